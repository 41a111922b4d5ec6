// One rule for every door (issue #26): a variant name, and every other bounded string or list an
// import takes, is refused by the state import and the features-batch import exactly where the
// admin API refuses it, with a 400 naming the path and nothing applied. Before, imports stored
// million-character variant names, spaces, "<" and NUL, and the client answer grew to 26 MB.
import t from 'tap';
import { serve } from '../../helpers/server.js';

const H = '/api/admin';
const B = `${H}/features-batch/import`;

const BAD_NAMES: [string, string][] = [
  ['1,000,000 characters', 'v'.repeat(1_000_000)],
  ['a space', 'blue variant'],
  ['"<"', '<script>'],
  ['NUL', 'blue\u0000'],
  ['empty', ''],
  ['"."', '.'],
];

/** A state document with one flag whose environment variants, or one strategy's, carry `variant`. */
function stateDoc(where: 'environment' | 'strategy', variant: Record<string, unknown>) {
  const variants = [{ name: 'ok', weight: 500, weightType: 'variable' }, { weight: 500, weightType: 'variable', ...variant }];
  return {
    version: 4,
    features: [{ name: 'one-rule' }],
    featureEnvironments: [{ featureName: 'one-rule', environment: 'development', enabled: true, ...(where === 'environment' ? { variants } : {}) }],
    featureStrategies: [{ featureName: 'one-rule', environment: 'development', strategyName: 'default', ...(where === 'strategy' ? { variants } : {}) }],
  };
}

function batchDoc(where: 'environment' | 'strategy', variant: Record<string, unknown>) {
  const variants = [{ name: 'ok', weight: 500, weightType: 'variable' }, { weight: 500, weightType: 'variable', ...variant }];
  return {
    project: 'default',
    environment: 'development',
    data: {
      features: [{ name: 'one-rule' }],
      featureEnvironments: [{ featureName: 'one-rule', environment: 'development', enabled: true, ...(where === 'environment' ? { variants } : {}) }],
      featureStrategies: [{ featureName: 'one-rule', name: 'default', ...(where === 'strategy' ? { variants } : {}) }],
    },
  };
}

t.test('every door refuses the same variants, naming the path; nothing is applied', async (t) => {
  const { api, ok } = await serve(t);
  const events = async () => (await ok('POST', `${H}/events/search`, { limit: 1 })).totalEvents as number;
  const before = await events();
  const paths = {
    state: { environment: 'featureEnvironments[0].variants[1]', strategy: 'featureStrategies[0].variants[1]' },
    batch: { environment: 'data.featureEnvironments[0].variants[1]', strategy: 'data.featureStrategies[0].variants[1]' },
  };
  const refused = async (what: string, door: 'state' | 'batch', where: 'environment' | 'strategy', variant: Record<string, unknown>, field: string) => {
    const res = door === 'state'
      ? await api('POST', `${H}/state/import`, stateDoc(where, variant))
      : await api('POST', B, batchDoc(where, variant));
    t.equal(res.status, 400, `${door} import, ${where} variants, ${what}: 400`);
    t.equal(res.json?.name, 'ValidationError');
    t.equal(res.json?.details?.[0]?.path, `${paths[door][where]}.${field}`, `the path names the ${field}`);
    t.ok(res.text.length < 2000, 'the answer does not echo the whole value');
  };
  for (const [what, name] of BAD_NAMES) {
    for (const door of ['state', 'batch'] as const) for (const where of ['environment', 'strategy'] as const) await refused(`name ${what}`, door, where, { name }, 'name');
    // The admin API has refused these all along; it still does, with the same rule.
    const admin = await api('PUT', `${H}/projects/default/features/some-flag/environments/development/variants`, [{ name, weightType: 'variable' }]);
    t.equal(admin.status, 400, `the admin API refuses a name with ${what}`);
  }
  // The other strings of a variant: as bounded in the imports as in the admin API.
  const long = { name: 'long', stickiness: 's'.repeat(101) };
  const payload = { name: 'big', payload: { type: 'string', value: 'p'.repeat(50_001) } };
  const override = { name: 'over', overrides: [{ contextName: 'userId', values: Array.from({ length: 1001 }, (_, i) => `u${i}`) }] };
  for (const door of ['state', 'batch'] as const) {
    await refused('a 101-character stickiness', door, 'environment', long, 'stickiness');
    await refused('a 50,001-character payload', door, 'strategy', payload, 'payload.value');
    await refused('an override of 1,001 values', door, 'environment', override, 'overrides[0].values');
  }
  t.equal((await api('GET', `${H}/projects/default/features/one-rule`)).status, 404, 'no flag was created');
  t.equal(await events(), before, 'no event was recorded');

  // And at their bounds, the same documents are accepted by both doors.
  const atBounds = { name: "Blue_variant-2.(x)~!*'", stickiness: 's'.repeat(100), payload: { type: 'string', value: 'p'.repeat(50_000) } };
  t.equal((await api('POST', B, batchDoc('environment', atBounds))).status, 200, 'features-batch import at the bounds');
  t.equal((await api('POST', `${H}/state/import?keep=false`, stateDoc('strategy', atBounds))).status, 202, 'state import at the bounds');
});

t.test('other names and lists an import takes are bounded as the admin API bounds them', async (t) => {
  const { api } = await serve(t);
  const state = async (doc: Record<string, unknown>, path: string) => {
    const res = await api('POST', `${H}/state/import`, { version: 4, ...doc });
    t.equal(res.status, 400, `state import refuses ${path}`);
    t.equal(res.json?.details?.[0]?.path, path);
  };
  const batch = async (data: Record<string, unknown>, path: string) => {
    const res = await api('POST', B, { project: 'default', environment: 'development', data: { features: [{ name: 'f' }], ...data } });
    t.equal(res.status, 400, `features-batch import refuses ${path}`);
    t.equal(res.json?.details?.[0]?.path, path);
  };
  const strategy = { featureName: 'f', environment: 'development', strategyName: 'flexibleRollout' };
  await state({ features: [{ name: 'f' }], featureStrategies: [{ ...strategy, parameters: { groupId: 'g'.repeat(101) } }] }, 'featureStrategies[0].parameters.groupId');
  await state({ features: [{ name: 'f' }], featureStrategies: [{ ...strategy, parameters: { stickiness: 's'.repeat(101) } }] }, 'featureStrategies[0].parameters.stickiness');
  await state({ features: [{ name: 'f' }], featureStrategies: [{ ...strategy, parameters: { userIds: 'u'.repeat(100_001) } }] }, 'featureStrategies[0].parameters.userIds');
  await state({ features: [{ name: 'f' }], featureStrategies: [{ ...strategy, id: 'an id with spaces' }] }, 'featureStrategies[0].id');
  await state({ features: [{ name: 'f', dependencies: [{ feature: 'p', variants: ['v'.repeat(101)] }] }] }, 'features[0].dependencies[0].variants[0]');
  await state({ strategies: [{ name: 'my strategy' }] }, 'strategies[0].name');
  await state({ strategies: [{ name: 'mine', parameters: Array.from({ length: 51 }, (_, i) => ({ name: `p${i}` })) }] }, 'strategies[0].parameters');
  await batch({ featureStrategies: [{ featureName: 'f', name: 'flexibleRollout', parameters: { groupId: 'g'.repeat(101) } }] }, 'data.featureStrategies[0].parameters.groupId');
  await batch({ featureStrategies: [{ featureName: 'f', name: 'flexibleRollout', id: '<id>' }] }, 'data.featureStrategies[0].id');
  await batch({ dependencies: [{ feature: 'f', dependencies: [{ feature: 'p', variants: Array.from({ length: 101 }, (_, i) => `v${i}`) }] }] }, 'data.dependencies[0].dependencies[0].variants');
  await batch({ contextFields: [{ name: 'region', legalValues: Array.from({ length: 1001 }, (_, i) => ({ value: `r${i}` })) }] }, 'data.contextFields[0].legalValues');
  t.equal((await api('GET', `${H}/projects/default/features/f`)).status, 404, 'nothing was applied');
});
