// Progressions over real HTTP, with the server's clock injected (minutes pass in milliseconds):
// a milestone hands over to the next by itself once its interval is up, and not before; the
// client API serves the new rollout; switching the environment off pauses the plan and on again
// resumes it, counting the interval from then; a due start decided twice is written once; and one
// that fell due while the server was down runs once after it starts again.
import t from 'tap';
import { loadConfig } from '../../../src/core/config.js';
import { createLogger } from '../../../src/core/logger.js';
import { startServer } from '../../../src/entry/embedded.js';
import type { RunningServer } from '../../../src/entry/server.js';
import { dueProgressions, runProgression } from '../../../src/concepts/release-plans/progressions.js';
import { waitFor } from '../../helpers/relay.js';
import { client, succeeding, tempDataDir } from '../../helpers/server.js';

const P = '/api/admin/projects/default/features';
const ENV = 'development';
const FLAG = 'timed';
const FLAG_ENV = `${P}/${FLAG}/environments/${ENV}`;
const MINUTE = 60_000;

t.test('a plan moves on by itself, pauses with its environment, and each start is written once', async (t) => {
  const dataDir = tempDataDir();
  let now = Date.parse('2026-05-01T10:00:00.000Z');
  const clock = () => new Date(now);
  let running: RunningServer | null = null;
  const open = async () => {
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WAL_SYNC: 'none', AUTH_TYPE: 'none', PASSWORD_SCRYPT_LOG_N: '10' });
    running = await startServer({ config, log: createLogger('silent'), clock, progressionCheckMs: 10 });
    return client(`http://127.0.0.1:${running.port}`);
  };
  t.teardown(() => running?.close());
  let api = await open();
  const ok = succeeding(() => api);

  await ok('POST', P, { name: FLAG });
  await ok('POST', `${FLAG_ENV}/on`);
  const builtin = (await ok('GET', '/api/admin/release-plan-templates')).find((x: any) => x.name === 'Gradual rollout');
  const plan = await ok('POST', `${FLAG_ENV}/release-plans`, { templateId: builtin.id });
  const [m1, m2, m3, m4] = plan.milestones.map((m: any) => m.id);
  const active = async () => (await ok('GET', `${FLAG_ENV}/release-plans/${plan.id}`)).activeMilestoneId;
  const rollout = async () => {
    const f = (await ok('GET', '/api/client/features')).features.find((x: any) => x.name === FLAG);
    return f.strategies[0].parameters.rollout;
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

  const set = await ok('PUT', `${FLAG_ENV}/progressions/${m1}`, { targetMilestone: m2, transitionCondition: { intervalMinutes: 1 } });
  t.same(set, { sourceMilestone: m1, targetMilestone: m2, transitionCondition: { intervalMinutes: 1 } }, 'the progression is set');
  await ok('PUT', `${FLAG_ENV}/progressions/${m2}`, { targetMilestone: m3, transitionCondition: { intervalMinutes: 1 } });
  const bad = await api('PUT', `${FLAG_ENV}/progressions/${m1}`, { targetMilestone: 'elsewhere', transitionCondition: { intervalMinutes: 1 } });
  t.equal(bad.status, 400, 'a target outside the plan is refused');
  t.match(bad.json, { id: String, name: 'ValidationError', message: /not a milestone of this release plan/ }, 'with an error body naming why');
  t.equal((await api('PUT', `${FLAG_ENV}/progressions/${m1}`, { targetMilestone: m2, transitionCondition: { intervalMinutes: 0 } })).status, 400, 'an interval under a minute is refused');

  now += MINUTE - 1_000;
  await settle();
  t.equal(await active(), m1, 'a second before its interval is up, the first milestone is still active');
  now += 1_000;
  await waitFor(async () => (await active()) === m2, 'the progression to milestone 2');
  t.equal(await rollout(), '50', 'the client API serves milestone 2 (50 %)');
  const after = await ok('GET', `${FLAG_ENV}/release-plans/${plan.id}`);
  t.equal(after.milestones[0].progressionExecutedAt, new Date(now).toISOString(), 'milestone 1 says when its progression ran');

  await ok('POST', `${FLAG_ENV}/off`);
  t.ok((await ok('GET', `${FLAG_ENV}/release-plans/${plan.id}`)).milestones[1].pausedAt, 'switching the environment off pauses the plan');
  now += 10 * MINUTE;
  await settle();
  t.equal(await active(), m2, 'paused: ten minutes later, milestone 2 is still active');
  await ok('POST', `${FLAG_ENV}/on`);
  const resumed = await ok('GET', `${FLAG_ENV}/release-plans/${plan.id}`);
  t.equal(resumed.milestones[1].pausedAt, null, 'switched on again, it resumes');
  await settle();
  t.equal(await active(), m2, 'and counts its interval from then');
  now += MINUTE;
  await waitFor(async () => (await active()) === m3, 'the progression to milestone 3');

  // A due start decided twice (two nodes, or two ticks) is written once.
  await ok('PUT', `${FLAG_ENV}/progressions/${m3}`, { targetMilestone: m4, transitionCondition: { intervalMinutes: 5 } });
  const engine = running!.engine;
  const due = dueProgressions(engine.state, new Date(now + 5 * MINUTE));
  t.equal(due.length, 1, 'one start is due five minutes on');
  await running!.close();
  running = null;
  now += 5 * MINUTE;
  api = await open();
  await waitFor(async () => (await active()) === m4, 'after a restart, the start that fell due meanwhile runs');
  const again = await running!.engine.run({ name: 'test', userId: null }, runProgression(due[0]));
  t.equal(again, false, 'the same start decided again changes nothing');
  const events = (await ok('GET', `/api/admin/events/${FLAG}`)).events.filter((e: any) => e.type === 'release-plan-milestone-started');
  t.same(events.map((e: any) => e.data.milestoneId).reverse(), [m1, m2, m3, m4], 'each milestone started once');
  t.equal(await rollout(), '100', 'the client API serves milestone 4 (100 %)');
});
