// Import bodies are validated in slices (SchemaRegistry.checkInSlices): the answer must be the one
// the whole-document check gives, the same field named, for errors in the envelope, in a list's
// own bounds and deep inside an item; and a valid document passes both.
import t from 'tap';
import { SchemaRegistry } from '../../src/http/validation.js';
import { featuresBatchSchemas } from '../../src/concepts/features-batch/schema.js';
import { stateSchemas } from '../../src/concepts/state-io/schema.js';
import { Slicer } from '../../src/core/slices.js';
import { batchDocument, stateDocument } from '../helpers/big-import.js';

const registry = new SchemaRegistry();
registry.addAll(featuresBatchSchemas);
registry.addAll(stateSchemas);

async function both(schema: Record<string, unknown>, body: unknown): Promise<[string, string]> {
  const message = (fn: () => unknown) => {
    try {
      fn();
      return 'valid';
    } catch (err) {
      return (err as Error).message;
    }
  };
  let sliced = 'valid';
  try {
    await registry.checkInSlices(schema, body, new Slicer(0));
  } catch (err) {
    sliced = (err as Error).message;
  }
  return [message(() => registry.check(schema, body)), sliced];
}

t.test('checkInSlices answers as check does', async (t) => {
  const batch = featuresBatchSchemas.importTogglesSchema;
  const good = { project: 'default', environment: 'development', data: batchDocument(300) };
  const cases: [string, Record<string, unknown>, (doc: any) => void][] = [
    ['a valid features-batch import', batch, () => {}],
    ['a bad project (envelope)', batch, (d) => (d.project = 'a b')],
    ['data missing its features', batch, (d) => delete d.data.features],
    ['a list that is not a list', batch, (d) => (d.data.featureTags = {})],
    ['a bad variant name deep in an item', batch, (d) => (d.data.featureEnvironments[250].variants[1].name = 'a b')],
    ['a constraint value too long', batch, (d) => (d.data.featureStrategies[299].constraints[0].values[2] = 'x'.repeat(1001))],
    ['an unknown weightType', batch, (d) => (d.data.featureStrategies[7].variants[0].weightType = 'heavy')],
  ];
  for (const [what, schema, spoil] of cases) {
    const doc = structuredClone(good);
    spoil(doc);
    const [whole, sliced] = await both(schema, doc);
    t.equal(sliced, whole, `${what}: ${whole.slice(0, 120)}`);
  }
  const state = stateSchemas.stateSchema;
  const doc: any = stateDocument(500);
  t.same(await both(state, doc), ['valid', 'valid'], 'a valid state document');
  doc.featureStrategies[420].parameters.groupId = 'g'.repeat(101);
  const [whole, sliced] = await both(state, doc);
  t.match(whole, /featureStrategies\[420\]\.parameters\.groupId/);
  t.equal(sliced, whole, 'a state document with a bad item: the same error');
});
