// The answer cache of server-side evaluation, in process: a request seen once is answered and
// remembered, kept when it comes back and then served without evaluating; a change to the flags
// makes kept answers stale; answers that drew on the clock are never kept; ETags follow content;
// everything kept, keys included, fits in the byte budget.
import t from 'tap';
import { Evaluator, MAX_ALIASES, type Render } from '../../../src/concepts/evaluation/answers.js';
import { PreparedFlags } from '../../../src/concepts/evaluation/prepared.js';
import { createFeature, setEnvironmentEnabled } from '../../../src/concepts/features/logic.js';
import { addStrategy } from '../../../src/concepts/strategies/logic.js';
import { openTestFanion } from '../../helpers/fanion.js';
import { tempDataDir } from '../../helpers/paths.js';

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

/** An evaluator over one flag on for userId u1, with the given bounds. */
async function small(t: { teardown(fn: () => unknown): void }, maxBytes: number, maxEntries = 10_000) {
  const fanion = await openTestFanion(tempDataDir('fanion-answers-'));
  t.teardown(() => fanion.close());
  await fanion.engine.run(actor, createFeature('default', { name: 'users' }));
  await fanion.engine.run(actor, addStrategy({ project: 'default', feature: 'users', environment: 'development' }, { name: 'userWithId', parameters: { userIds: 'u1' } }));
  await fanion.engine.run(actor, setEnvironmentEnabled('default', 'users', 'development', true));
  return new Evaluator(new PreparedFlags(fanion.engine.state, 'host'), { maxEntries, maxBytes });
}

t.test('long requests and contexts, each sent twice, never hold more than the byte budget, keys included', async (t) => {
  const budget = 1 << 20;
  const ev = await small(t, budget);
  const pad = 'x'.repeat(4000);
  let over = 0;
  let wrong = 0;
  for (let i = 0; i < 2000; i++) {
    for (let n = 0; n < 2; n++) {
      const a = ev.byRequest('x', scope, `?userId=u${i}&pad=${pad}`, () => ({ userId: `u${i}`, properties: { pad } }), render);
      if (a.body.toString() !== `[["users",${i === 1}]]`) wrong++;
      if (ev.size().bytes > budget) over++;
    }
  }
  const size = ev.size();
  t.equal(wrong, 0, 'every answer is right');
  t.equal(over, 0, `never past the budget (now ${size.bytes} bytes)`);
  t.ok(size.answers > 10 && size.answers < 2000, `the oldest answers went, recent ones stay (${size.answers})`);
  // 2 × 4,000 characters of raw key, 2 × 4,000 of context key: about 16 KB counted per answer.
  t.ok(size.answers * 16_000 < budget, 'keys are counted at two bytes a character');
  const built = ev.built;
  ev.byRequest('x', scope, `?userId=u1999&pad=${pad}`, () => ({ userId: 'u1999', properties: { pad } }), render);
  t.equal(ev.built, built, 'a recent request is still served from the cache');
  for (let i = 2000; i < 4000; i++) {
    ev.byRequest('x', scope, `?userId=u${i}&pad=${pad}`, () => ({ userId: `u${i}`, properties: { pad } }), render);
    if (ev.size().bytes > budget) over++;
  }
  t.equal(over, 0, 'requests seen once: within the budget too');
  t.ok(ev.size().seen > 10 && ev.size().seen < 2000, `the oldest of them are forgotten (${ev.size().seen} remembered)`);
});

t.test('many raw requests for one context: a few are remembered as such, the rest are parsed', async (t) => {
  const ev = await small(t, 1 << 20);
  for (let k = 0; k < 50; k++) for (let n = 0; n < 2; n++) ev.byRequest('x', scope, `?userId=u1${'&'.repeat(k)}`, () => ({ userId: 'u1', properties: {} }), render);
  t.same([ev.size().answers, ev.size().aliases], [1, MAX_ALIASES]);
  const built = ev.built;
  for (let k = 0; k < 50; k++) ev.byRequest('x', scope, `?userId=u1${'&'.repeat(k)}`, () => ({ userId: 'u1', properties: {} }), render);
  t.equal(ev.built, built, 'each is served from the cache when it comes back, indexed or not');
});

t.test('an answer whose key alone is past the budget is answered and not kept', async (t) => {
  const ev = await small(t, 8192);
  const big = 'y'.repeat(5000);
  for (let n = 0; n < 3; n++) {
    const a = ev.byRequest('x', scope, `?userId=u1&big=${big}`, () => ({ userId: 'u1', properties: { big } }), render);
    t.equal(a.body.toString(), '[["users",true]]');
  }
  t.equal(ev.built, 3, 'evaluated each time');
  t.same(ev.size(), { bytes: 0, answers: 0, aliases: 0, seen: 0 });
});

t.test('a context posted (POST /api/frontend, OFREP bulk) is remembered the first time, kept the second, served the third', async (t) => {
  const ev = await small(t, 1 << 20);
  const ctx = () => ({ userId: 'u1', properties: { plan: 'pro' } });
  ev.all('x', scope, ctx(), render);
  t.same([ev.built, ev.size().answers, ev.size().seen], [1, 0, 1], 'seen once: only remembered');
  const kept = ev.all('x', scope, ctx(), render);
  t.same([ev.built, ev.size().answers, ev.size().seen], [2, 1, 0], 'back: kept');
  const before = ev.size().bytes;
  const third = ev.all('x', scope, ctx(), render);
  t.same([ev.built, third], [2, kept], 'served from the cache');
  t.ok(ev.size().bytes >= before + third.body.length, 'its body, kept from now on, is counted');
});

t.test('FRONTEND_CACHE_ENTRIES bounds answers and requests seen once by number', async (t) => {
  const ev = await small(t, 1 << 20, 5);
  for (let i = 0; i < 20; i++) for (let n = 0; n < 2; n++) ev.byRequest('x', scope, `?userId=u${i}`, () => ({ userId: `u${i}`, properties: {} }), render);
  for (let i = 20; i < 40; i++) ev.byRequest('x', scope, `?userId=u${i}`, () => ({ userId: `u${i}`, properties: {} }), render);
  t.same([ev.size().answers, ev.size().seen], [5, 5]);
});
