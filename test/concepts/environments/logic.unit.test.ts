// Environment commands as pure functions.
import t from 'tap';
import { createEnvironment, deleteEnvironment, updateEnvironment } from '../../../src/concepts/environments/logic.js';
import { strategiesOf } from '../../../src/core/state/state.js';
import { runFailing, runPure } from '../../core/engine/pure.js';
import { copiesOf } from '../../core/state/fixture.js';

t.test('createEnvironment: last in order; every flag, archived included, gets a disabled configuration', async (t) => {
  const { change, after } = runPure(t, createEnvironment({ name: 'staging', type: 'test' }));
  t.same(after.environments.get('staging'), { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 201 });
  for (const f of ['alpha', 'beta', 'gone']) t.same(after.featureEnvs.get(f)!.get('staging'), { environment: 'staging', enabled: false, variants: [], lastSeenAt: null });
  t.same(change.events.map((e) => [e.type, e.environment]), [['environment-created', 'staging']]);
  t.equal(runPure(t, createEnvironment({ name: 'first', type: 'test', sortOrder: 1 })).after.environments.get('first')!.sortOrder, 1);
  runFailing(t, createEnvironment({ name: 'production', type: 'x' }), 'NameExistsError');
  runFailing(t, createEnvironment({ name: '..', type: 'x' }), 'ValidationError');
});

t.test('updateEnvironment: type and sortOrder; protected refused', async (t) => {
  const { change, after } = runPure(t, updateEnvironment('production', { type: 'prod' }));
  t.same(after.environments.get('production'), { name: 'production', type: 'prod', enabled: true, protected: false, sortOrder: 200 });
  t.match(change.events, [{ type: 'environment-updated', data: { type: 'prod' }, preData: { type: 'production' } }]);
  runFailing(t, updateEnvironment('nope', {}), 'NotFoundError');
  const locked = runPure(t, (s) => ({ ops: [{ o: 'env.put', environment: { ...s.environments.get('production')!, protected: true } }], events: [], result: null })).after;
  runFailing(t, updateEnvironment('production', { sortOrder: 1 }), 'NoAccessError', copiesOf(locked));
  runFailing(t, deleteEnvironment('production'), 'NoAccessError', copiesOf(locked));
});

t.test('deleteEnvironment: removes every flag configuration and strategy there, leaves the others', async (t) => {
  const { change, after } = runPure(t, deleteEnvironment('development'));
  t.notOk(after.environments.has('development'));
  for (const f of ['alpha', 'beta', 'gone']) t.notOk(after.featureEnvs.get(f)?.has('development'));
  t.same(strategiesOf(after, 'alpha', 'development'), []);
  t.same(strategiesOf(after, 'alpha', 'production').map((s) => s.id), ['s4']);
  t.same([...after.strategies.keys()], ['s4']);
  t.same(change.events.map((e) => e.type), ['environment-deleted', 'api-token-deleted'], "the fixture's development client token goes with it");
  t.notOk(after.apiTokens.has('h1'));
  t.same(runPure(t, deleteEnvironment('production')).change.events.map((e) => e.type), ['environment-deleted'], 'no token of production: none deleted');
  runFailing(t, deleteEnvironment('nope'), 'NotFoundError');
});
