// The answer cache of server-side evaluation, in process: a request seen once is answered and
// remembered, kept when it comes back and then served without evaluating; a change to the flags
// makes kept answers stale; answers that drew on the clock are never kept; ETags follow content.
import t from 'tap';
import { Evaluator, type Render } from '../../src/evaluation/answers.js';
import { PreparedFlags } from '../../src/evaluation/prepared.js';
import { createFeature, setEnvironmentEnabled } from '../../src/features/logic.js';
import { addStrategy } from '../../src/strategies/logic.js';
import { openTestFanion } from '../helpers/fanion.js';
import { tempDataDir } from '../helpers/server.js';

const actor = { name: 'test', userId: null };
const scope = { environment: 'development', projects: ['*'], key: 'all', actor };
const render: Render = (flags, evaluations) => JSON.stringify(flags.map((f, i) => [f.name, evaluations[i].enabled]));

t.test('seen once, kept on return, stale after a change, never kept when it drew on the clock', async (t) => {
  const fanion = await openTestFanion(tempDataDir('fanion-answers-'));
  t.teardown(() => fanion.close());
  const where = (feature: string) => ({ project: 'default', feature, environment: 'development' });
  await fanion.engine.run(actor, createFeature('default', { name: 'users' }));
  await fanion.engine.run(actor, addStrategy(where('users'), { name: 'userWithId', parameters: { userIds: 'u1' } }));
  await fanion.engine.run(actor, setEnvironmentEnabled('default', 'users', 'development', true));
  const prepared = new PreparedFlags(fanion.engine.state, 'host');
  fanion.engine.onChange((c, k) => prepared.onChange(c, k));
  const ev = new Evaluator(prepared, { maxEntries: 100, maxBytes: 1 << 20 });
  const ask = (raw: string, userId: string) => ev.byRequest('x', scope, raw, () => ({ userId, properties: {} }), render);

  const first = ask('?userId=u1', 'u1');
  t.equal(first.body.toString(), '[["users",true]]');
  const second = ask('?userId=u1', 'u1');
  t.equal(ev.built, 2, 'seen once: answered again when it comes back, and kept this time');
  t.equal(second.etag, first.etag, 'the same content, the same ETag');
  const third = ask('?userId=u1', 'u1');
  t.same([ev.built, ev.hits, third], [2, 1, second], 'the third time is served from the cache');
  t.not(ask('?userId=u2', 'u2').etag, first.etag, 'another content, another ETag');

  await fanion.engine.run(actor, setEnvironmentEnabled('default', 'users', 'development', false));
  const after = ask('?userId=u1', 'u1');
  t.equal(after.body.toString(), '[["users",false]]', 'a change makes the kept answer stale');
  t.not(after.etag, first.etag);

  await fanion.engine.run(actor, createFeature('default', { name: 'dated' }));
  await fanion.engine.run(actor, addStrategy(where('dated'), { name: 'default', constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2020-01-01T00:00:00.000Z' }] }));
  await fanion.engine.run(actor, setEnvironmentEnabled('default', 'dated', 'development', true));
  const built = ev.built;
  for (let i = 0; i < 3; i++) ask('?userId=u9', 'u9');
  t.equal(ev.built - built, 3, 'an answer that read the clock is evaluated every time');
});
