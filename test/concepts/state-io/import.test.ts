// The import command on its own: atomicity, drop/keep cascades, and that the state it leaves
// always has every reference resolved. Plus: one import is one WAL record, replayed identically.
import t from 'tap';
import { resolveEvents, type CommandEnv, type SlicedCommand } from '../../../src/core/engine/command.js';
import { Slicer } from '../../../src/core/slices.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import { defaultOps } from '../../../src/core/state/defaults.js';
import { dumpState } from '../../../src/core/state/dump.js';
import { emptyState, featureEnvKey, tagKey, type State } from '../../../src/core/state/state.js';
import { exportState } from '../../../src/concepts/state-io/export.js';
import { importState } from '../../../src/concepts/state-io/import.js';
import type { StateDocument } from '../../../src/concepts/state-io/schema.js';
import { startInProcess } from '../../helpers/in-process-server.js';

function harness() {
  const state = emptyState();
  let lsn = 1;
  applyRecord(state, { lsn: lsn++, ops: defaultOps('2026-01-01T00:00:00.000Z'), events: [] }, false);
  let ids = 0;
  const env: CommandEnv = { now: '2026-02-01T00:00:00.000Z', newId: () => `id-${++ids}`, actor: { name: 'tester', userId: null } };
  const run = async <R>(cmd: SlicedCommand<R>) => {
    const change = await cmd(state, env, new Slicer());
    applyRecord(state, { lsn: lsn++, ops: change.ops, events: resolveEvents(state, env, change.events).map(storeEvent) }, false);
    return change;
  };
  const imp = (doc: Omit<StateDocument, 'version'>, opts: { drop?: boolean; keep?: boolean } = {}) =>
    run(importState({ version: 4, ...doc }, { drop: opts.drop ?? false, keep: opts.keep ?? true }));
  return { state, env, run, imp };
}

/** Every reference in the state resolves; the strategy index matches the strategies. */
function assertConsistent(t: { ok: (...a: any[]) => unknown; same: (...a: any[]) => unknown }, s: State) {
  for (const f of s.features.values()) t.ok(s.projects.has(f.project), `flag ${f.name}: project ${f.project}`);
  for (const [flag, envs] of s.featureEnvs) {
    t.ok(s.features.has(flag), `featureEnv of ${flag}`);
    for (const e of envs.keys()) t.ok(s.environments.has(e), `featureEnv ${flag}/${e}`);
  }
  let indexed = 0;
  for (const [key, ids] of s.strategiesByFeatureEnv) {
    for (const id of ids) {
      const st = s.strategies.get(id)!;
      t.ok(st && featureEnvKey(st.featureName, st.environment) === key, `index entry ${id}`);
      indexed++;
    }
  }
  t.same(indexed, s.strategies.size, 'every strategy is indexed once');
  for (const st of s.strategies.values()) {
    t.ok(s.featureEnvs.get(st.featureName)?.has(st.environment), `strategy ${st.id} has its flag configuration`);
    t.ok(s.strategyTypes.has(st.name), `strategy ${st.id} type`);
    t.same(st.projectId, s.features.get(st.featureName)?.project, `strategy ${st.id} project`);
    for (const seg of st.segments) t.ok(s.segments.has(seg), `strategy ${st.id} segment ${seg}`);
  }
  for (const tag of s.tags.values()) t.ok(s.tagTypes.has(tag.type), `tag ${tagKey(tag)}`);
  for (const [flag, tags] of s.featureTags) {
    t.ok(s.features.has(flag), `tags of ${flag}`);
    for (const tag of tags) t.ok(s.tags.has(tagKey(tag)), `tag ${tagKey(tag)} on ${flag}`);
  }
}

const base: Omit<StateDocument, 'version'> = {
  projects: [{ id: 'shop', name: 'Shop' }],
  environments: [{ name: 'staging', type: 'test' }],
  features: [{ name: 'a', project: 'shop' }, { name: 'b' }],
  featureStrategies: [
    { id: 's-a-stg', featureName: 'a', environment: 'staging', strategyName: 'default' },
    { id: 's-b-prod', featureName: 'b', environment: 'production', strategyName: 'userWithId', parameters: { userIds: '1' } },
  ],
  tagTypes: [{ name: 'team' }],
  featureTags: [{ featureName: 'a', tagType: 'team', tagValue: 'red' }, { featureName: 'b', tagType: 'simple', tagValue: 'blue' }],
  segments: [{ id: 4, name: 'seg', constraints: [] }],
  featureStrategySegments: [{ segmentId: 4, featureStrategyId: 's-b-prod' }],
};

t.test('a document whose last item is invalid changes nothing: no ops, state and events as before', async (t) => {
  const h = harness();
  await h.imp(base);
  const before = dumpState(h.state);
  const doc = { ...base, featureStrategies: [...base.featureStrategies!, { featureName: 'b', environment: 'production', strategyName: 'no-such-type' }] };
  await t.rejects(() => h.imp(doc, { keep: false }), /featureStrategies\[2\]\.strategyName/);
  await t.rejects(() => h.imp({ ...base, featureStrategySegments: [{ segmentId: 99, featureStrategyId: 's-a-stg' }] }, { keep: false }), /featureStrategySegments\[0\]\.segmentId/);
  await t.rejects(() => h.imp({ ...base, projects: [{ id: 'shop' }] }, { drop: true }), /features\[1\]\.project/, 'dropping the project a flag in the document needs');
  await t.rejects(() => h.imp({ tagTypes: [{ name: 'team' }], featureTags: [{ featureName: 'b', tagType: 'simple', tagValue: 'blue' }] }, { drop: true }), /featureTags\[0\]\.tagType/, 'dropping the tag type a tag in the document needs');
  t.same(dumpState(h.state), before);
});

t.test('the imported state is consistent and carries every kind', async (t) => {
  const h = harness();
  await h.imp(base);
  assertConsistent(t, h.state);
  t.same(h.state.strategies.get('s-b-prod')!.segments, [4]);
  t.equal(h.state.strategies.get('s-a-stg')!.projectId, 'shop');
  t.same(h.state.featureTags.get('a'), [{ type: 'team', value: 'red' }]);
  t.ok(h.state.tags.has('simple:blue'), 'a tag used on a flag exists as a tag');
});

t.test('drop=true with environments: configurations and strategies of dropped environments go with them', async (t) => {
  const h = harness();
  await h.imp(base);
  const change = await h.imp({ environments: [{ name: 'development', type: 'development', sortOrder: 100 }, { name: 'production', type: 'production', sortOrder: 200 }] }, { drop: true });
  t.same(change.events.map((e) => e.type), ['drop-environments', 'environment-import', 'environment-import']);
  t.notOk(h.state.environments.has('staging'));
  t.notOk(h.state.strategies.has('s-a-stg'));
  t.ok(h.state.strategies.has('s-b-prod'), 'strategies elsewhere stay');
  assertConsistent(t, h.state);
});

t.test('drop=true with projects that flags still need is refused', async (t) => {
  const h = harness();
  await h.imp(base);
  const before = dumpState(h.state);
  await t.rejects(() => h.imp({ projects: [{ id: 'default' }] }, { drop: true }), /flag "a" belongs to project "shop"/);
  t.same(dumpState(h.state), before);
  // …but fine when the flags are dropped too.
  await h.imp({ projects: [{ id: 'default' }], features: [{ name: 'c' }] }, { drop: true });
  t.same([...h.state.features.keys()], ['c']);
  t.same(h.state.strategies.size, 0);
  assertConsistent(t, h.state);
});

t.test('drop=true with tag types removes their tags and their uses on flags', async (t) => {
  const h = harness();
  await h.imp(base);
  const change = await h.imp({ tagTypes: [{ name: 'simple' }] }, { drop: true });
  t.same(change.events.map((e) => e.type), ['drop-tag-types', 'tag-type-import']);
  t.notOk(h.state.tagTypes.has('team'));
  t.same(h.state.featureTags.get('a'), undefined);
  t.same(h.state.featureTags.get('b'), [{ type: 'simple', value: 'blue' }]);
  assertConsistent(t, h.state);
});

t.test('drop=true with segments unlinks them from strategies', async (t) => {
  const h = harness();
  await h.imp(base);
  await h.imp({ segments: [{ id: 5, name: 'other', constraints: [] }] }, { drop: true });
  t.same(h.state.strategies.get('s-b-prod')!.segments, []);
  assertConsistent(t, h.state);
});

t.test('keep=false moves a strategy id to another flag cleanly; keep=true leaves it', async (t) => {
  const h = harness();
  await h.imp(base);
  const moved = { featureStrategies: [{ id: 's-b-prod', featureName: 'a', environment: 'production', strategyName: 'default' }] };
  await h.imp(moved);
  t.equal(h.state.strategies.get('s-b-prod')!.featureName, 'b', 'keep=true: existing strategy untouched');
  await h.imp(moved, { keep: false });
  t.equal(h.state.strategies.get('s-b-prod')!.featureName, 'a');
  t.equal(h.state.strategies.get('s-b-prod')!.projectId, 'shop');
  assertConsistent(t, h.state);
});

t.test('keep=false moving a flag to another project takes its strategies along', async (t) => {
  const h = harness();
  await h.imp(base);
  await h.imp({ features: [{ name: 'b', project: 'shop' }] }, { keep: false });
  t.equal(h.state.strategies.get('s-b-prod')!.projectId, 'shop');
  assertConsistent(t, h.state);
});

t.test('export of an imported state re-imports to the same export (pure)', async (t) => {
  const h = harness();
  await h.imp(base);
  const doc = exportState(h.state);
  const h2 = harness();
  await h2.imp(doc as unknown as StateDocument, { keep: false });
  t.same(exportState(h2.state), doc);
});

t.test('one import is one WAL record, and a restart replays it to the same state', async (t) => {
  const srv = await startInProcess();
  let records = 0;
  srv.running.engine.onChange((_rec, kind) => {
    if (kind === 'applied') records++;
  });
  const res = await srv.api('POST', '/api/admin/state/import', { version: 4, ...base });
  t.equal(res.status, 202);
  t.equal(records, 1);
  const exported = exportState(srv.running.engine.state);
  const events = [...srv.running.engine.state.events.oldestFirst()];
  await srv.close();
  const again = await startInProcess({ dataDir: srv.dataDir });
  t.teardown(() => again.close());
  t.same(exportState(again.running.engine.state), exported);
  t.same([...again.running.engine.state.events.oldestFirst()], events);
});
