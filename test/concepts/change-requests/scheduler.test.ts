// The change request scheduler over a real engine and data folder, with an injected clock: a node
// that does not lead writes nothing; two that both believe they lead (a deposed leader that has
// not noticed yet) and decide the same apply write it once, as does a decision written twice; a
// schedule that fell due while the server was down is applied once when it opens again (from a
// checkpoint that carries it).
import t from 'tap';
import { createFeature } from '../../../src/concepts/features/logic.js';
import { scheduleSteps } from '../../../src/concepts/change-requests/schedule.js';
import { ChangeRequestScheduler } from '../../../src/concepts/change-requests/scheduler.js';
import { addChanges, runScheduled, setState, type Rights } from '../../../src/concepts/change-requests/workflow.js';
import type { Engine } from '../../../src/core/engine/engine.js';
import { createLogger } from '../../../src/core/logger.js';
import { openTestFanion } from '../../helpers/fanion.js';
import { tempDataDir } from '../../helpers/server.js';
import { until } from '../../helpers/receiver.js';

const actor = { name: 'test', userId: null };
const where = { project: 'default', environment: 'production' };
const rights: Rights = { token: false, mayApprove: true, mayApply: true, maySelfApprove: true };
const MINUTE = 60_000;

/** A flag and an approved request switching it on in production, scheduled `inMs` ahead of `now`; its id. */
async function scheduledSwitch(engine: Engine, flag: string, now: number, inMs: number): Promise<number> {
  await engine.run(actor, createFeature('default', { name: flag }));
  const cr = await engine.run(actor, addChanges(where, { enabled: true, requiredApprovals: 1 }, [{ feature: flag, action: 'updateEnabled', payload: { enabled: true } }]));
  for (const to of ['In review', 'Approved']) await engine.run(actor, setState('default', String(cr.id), to, undefined, rights));
  await engine.run(actor, setState('default', String(cr.id), 'Scheduled', undefined, rights, new Date(now + inMs).toISOString()));
  return cr.id;
}

const applied = (engine: Engine, id: number) => [...engine.state.events.oldestFirst()].filter((e) => e.type === 'change-request-applied' && (e.data as { changeRequestId: number }).changeRequestId === id).length;

t.test('only a leading node applies a due request, and an apply decided twice or by two nodes is written once', async (t) => {
  let now = Date.parse('2026-06-01T08:00:00.000Z');
  const clock = () => new Date(now);
  const fanion = await openTestFanion(tempDataDir('fanion-cr-scheduler-'), {}, { clock });
  t.teardown(() => fanion.close());
  // The server's own scheduler is stopped: the ones below are driven by hand.
  await fanion.admin.schedules.close();
  const { engine } = fanion;
  const log = createLogger('silent');
  const scheduler = (leads: boolean) => new ChangeRequestScheduler(engine, { clock, checkMs: 3_600_000, leads: () => leads }, log);
  const state = (id: number) => engine.state.changeRequests.get(id)!.state;

  const first = await scheduledSwitch(engine, 'first', now, MINUTE);
  now += MINUTE - 1;
  await scheduler(true).check();
  t.equal(state(first), 'Scheduled', 'a millisecond before its time: not applied');
  now += 1;
  await scheduler(false).check();
  t.equal(state(first), 'Scheduled', 'a node that does not lead writes nothing');
  const decidedElsewhere = scheduleSteps(engine.state, clock());
  t.match(decidedElsewhere, [{ id: first, kind: 'apply' }], 'the apply is due');
  await scheduler(true).check();
  t.equal(state(first), 'Applied', 'a leading node applies it');
  t.equal(await engine.run(actor, runScheduled(first, decidedElsewhere[0].scheduledAt)), null, 'the other node\'s write of the same apply changes nothing');
  t.equal(applied(engine, first), 1, 'applied once');

  // Two nodes that both believe they lead look at the same moment.
  const second = await scheduledSwitch(engine, 'second', now, MINUTE);
  now += MINUTE;
  await Promise.all([scheduler(true).check(), scheduler(true).check(), scheduler(true).check()]);
  t.equal(state(second), 'Applied');
  t.equal(applied(engine, second), 1, 'three looks at once: applied once');
  const success = [...engine.state.events.oldestFirst()].filter((e) => e.type === 'change-request-scheduled-application-success');
  t.same(success.map((e) => (e.data as { changeRequestId: number }).changeRequestId), [first, second], 'one success event each');
});

t.test('a schedule due while the server was down is applied once when it opens again', async (t) => {
  let now = Date.parse('2026-06-01T08:00:00.000Z');
  const clock = () => new Date(now);
  const dataDir = tempDataDir('fanion-cr-restart-');
  const before = await openTestFanion(dataDir, {}, { clock });
  const id = await scheduledSwitch(before.engine, 'overnight', now, 10 * MINUTE);
  // Read back from a checkpoint, not only from the log: the checkpoint carries the schedule.
  t.ok(await before.checkpointer.checkpoint(), 'a checkpoint written');
  await before.close();
  now += 60 * MINUTE;
  const after = await openTestFanion(dataDir, {}, { clock });
  t.teardown(() => after.close());
  await until('the request applied on start', () => after.engine.state.changeRequests.get(id)!.state === 'Applied', 5_000);
  t.equal(after.engine.state.featureEnvs.get('overnight')!.get('production')!.enabled, true, 'the flag on');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(applied(after.engine, id), 1, 'once');
});
