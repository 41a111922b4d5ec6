// A progression on the real clock, against a real server process: intervals are whole minutes (at
// least 1), so this test waits one. Milestone 2 starts no sooner than 60 s after milestone 1 and
// no later than the scheduler's 1 s look plus slack, and once. The other progression tests move an
// injected clock instead; this one holds the real timer and the real clock together. It spends
// its ~65 s asleep, in a file of its own, so tap runs other files beside it.
import t from 'tap';
import { sleep } from '../../helpers/receiver.js';
import { serve } from '../../helpers/server.js';

const P = '/api/admin/projects/default/features';
const FLAG = 'real-time';
const ENV = `${P}/${FLAG}/environments/development`;
const MINUTE = 60_000;
/** The scheduler looks every second; a write and this test's 100 ms polling come on top. */
const CHECK_MS = 1_000;
const SLACK_MS = 2_000;

// A minute of waiting on top of a server's start: more than the suite's 120 s on a loaded machine.
t.setTimeout(240_000);

t.test('a one-minute progression starts the next milestone once, between 60 s and 60 s + its check interval + slack', async (t) => {
  const { ok } = await serve(t);
  await ok('POST', P, { name: FLAG });
  const builtin = (await ok('GET', '/api/admin/release-plan-templates')).find((x: any) => x.name === 'Gradual rollout');
  const plan = await ok('POST', `${ENV}/release-plans`, { templateId: builtin.id });
  const [m1, m2, m3] = plan.milestones.map((m: any) => m.id);
  await ok('PUT', `${ENV}/progressions/${m1}`, { targetMilestone: m2, transitionCondition: { intervalMinutes: 1 } });
  await ok('PUT', `${ENV}/progressions/${m2}`, { targetMilestone: m3, transitionCondition: { intervalMinutes: 60 } });
  const before = Date.now();
  await ok('POST', `${ENV}/on`);
  const after = Date.now();
  const read = () => ok('GET', `${ENV}/release-plans/${plan.id}`);
  const startedAt = Date.parse((await read()).milestones[0].startedAt);

  await sleep(MINUTE - 5_000 - (Date.now() - after));
  t.equal((await read()).activeMilestoneId, m1, '55 s in, milestone 1 is still active');
  let seen: any;
  for (const end = after + MINUTE + CHECK_MS + SLACK_MS + 2_000; Date.now() < end; await sleep(100)) {
    seen = await read();
    if (seen.activeMilestoneId === m2) break;
  }
  const observedMs = Date.now() - before;
  t.equal(seen.activeMilestoneId, m2, 'milestone 2 started');
  const firedMs = Date.parse(seen.milestones[1].startedAt) - startedAt;
  t.comment(`milestone 2 started ${firedMs} ms after milestone 1 (server clock); seen ${observedMs} ms after switching on`);
  t.ok(firedMs >= MINUTE, `not before the minute (${firedMs} ms)`);
  t.ok(firedMs <= MINUTE + CHECK_MS + SLACK_MS, `within the minute + ${CHECK_MS} ms check + ${SLACK_MS} ms slack (${firedMs} ms)`);
  t.ok(observedMs >= MINUTE, `and not seen before the minute (${observedMs} ms)`);

  // Another look or two of the scheduler: still one start of milestone 2.
  await sleep(2 * CHECK_MS + 500);
  const events = (await ok('GET', `/api/admin/events/${FLAG}`)).events.filter((e: any) => e.type === 'release-plan-milestone-started');
  t.same(events.map((e: any) => e.data.milestoneId).reverse(), [m1, m2], 'milestone 1 started once, milestone 2 started once');
  t.equal((await read()).activeMilestoneId, m2, 'the plan stays at milestone 2');
});
