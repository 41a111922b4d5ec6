// Scheduled change requests on a three-node cluster (real processes on a throwaway PostgreSQL,
// their clock shared with the test): the node that leads is SIGKILLed before the requests' time;
// a survivor takes over and applies each once. Counted in the cluster's log itself: one
// change-request-applied and one success per request, written by the new leader alone.
import t from 'tap';
import { sharedClock } from '../../helpers/clock.js';
import { clusterFor, webhookLeader } from '../../helpers/cluster.js';
import { sleep, until } from '../../helpers/receiver.js';
import { client, succeeding, type Spawned } from '../../helpers/server.js';

const P = '/api/admin/projects/default';
const CR = `${P}/change-requests`;
const FLAGS = ['night-a', 'night-b', 'night-c'];

// Three node processes and a PostgreSQL on a loaded 2-core machine.
t.setTimeout(180_000);

t.test('the leader killed -9 before the time: a survivor applies each scheduled request once', async (t) => {
  const clock = sharedClock();
  const cluster = await clusterFor(t, { ...clock.env });
  if (!cluster) return;
  const nodes: Spawned[] = await Promise.all([0, 1, 2].map(() => cluster.node({}, { command: clock.command })));
  const first = await webhookLeader(nodes);
  const [adminNode, sdkNode] = [nodes[(first + 1) % 3], nodes[(first + 2) % 3]];
  const api = client(adminNode.url);
  const ok = succeeding(() => api);

  // AUTH_TYPE=none: every caller is the same anonymous Admin, who may approve their own requests.
  await ok('PUT', `${P}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 1 });
  const ids: number[] = [];
  for (const flag of FLAGS) {
    await ok('POST', `${P}/features`, { name: flag });
    const cr = await ok('POST', `${P}/environments/production/change-requests`, { feature: flag, action: 'updateEnabled', payload: { enabled: true } });
    await ok('PUT', `${CR}/${cr.id}/state`, { state: 'In review' });
    await ok('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' });
    ids.push(cr.id);
  }
  const at = Date.now() + clock.offsetMs + 60 * 60_000;
  for (const id of ids) await ok('PUT', `${CR}/${id}/state`, { state: 'Scheduled', scheduledAt: new Date(at).toISOString() });

  await nodes[first].kill();
  const killedAt = Date.now();
  const survivors = nodes.filter((_, i) => i !== first);
  const next = nodes.indexOf(survivors[await webhookLeader(survivors)]);
  t.comment(`node ${next} leads ${Date.now() - killedAt} ms after the leader (node ${first}) was SIGKILLed`);

  // The hour passes; the survivors' clock reaches the time.
  await clock.advance(at - (Date.now() + clock.offsetMs) + 50);
  const due = Date.now();
  await until('every request applied', async () => {
    const list = (await api('GET', CR)).json as { id: number; state: string }[];
    return ids.every((id) => list.find((cr) => cr.id === id)?.state === 'Applied');
  }, 10_000);
  t.comment(`applied ${Date.now() - due} ms after the time was reached (as this test polls)`);
  const other = client(sdkNode.url);
  for (const flag of FLAGS) {
    const env = (await other('GET', `${P}/features/${flag}`)).json.environments.find((e: any) => e.name === 'production');
    t.equal(env.enabled, true, `${flag} on, as the other survivor reads it`);
  }

  // A few more looks of every node's scheduler: still once.
  await sleep(2_500);
  // Stored events are tuples: [id, type, createdAt (epoch ms), …, the data's JSON text first in the last field].
  const records = (await cluster.records()).map((r) => r.rec.events.map((e) => ({ type: e[1] as string, at: e[2], feature: e[7], data: e[8] as string })));
  const events = records.flat();
  const of = (type: string, id: number) => events.filter((e) => e.type === type && e.data.includes(`"changeRequestId":${id},`));
  const per = (type: string) => ids.map((id) => of(type, id).length);
  t.same(per('change-request-applied'), [1, 1, 1], 'the log holds one change-request-applied per request');
  t.same(per('change-request-scheduled-application-success'), [1, 1, 1], 'and one success each');
  const together = ids.map((id, i) => records.find((r) => r.some((e) => e.type === 'change-request-applied' && e.data.includes(`"changeRequestId":${id},`)))!
    .map((e) => (e.type === 'feature-environment-enabled' ? `${e.type} ${e.feature}` : e.type)).filter((x) => x !== 'feature-strategy-add' && x !== FLAGS[i]));
  t.same(together, FLAGS.map((flag) => [`feature-environment-enabled ${flag}`, 'change-request-applied', 'change-request-scheduled-application-success']), 'each request one record: its change, applied, success');
  const late = ids.map((id) => Number(of('change-request-applied', id)[0]?.at) - at);
  t.comment(`written ${late.join(', ')} ms after the time, by the survivors' clock`);
  t.same(nodes.map((n) => n.output().match(/"msg":"a scheduled change request was applied"/g)?.length ?? 0), nodes.map((_, i) => (i === next ? 3 : 0)),
    'written by the new leader alone');
});
