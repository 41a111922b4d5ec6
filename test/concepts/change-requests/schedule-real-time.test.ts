// Scheduled change requests on the real clock, against a real server process: 30 requests, each
// scheduled 3 s ahead of when it is scheduled (one after the other), are each applied once, never before their time and
// within 5 s of it. The lateness is measured two ways: by the server (its success event's time
// minus the time asked for) and as a client sees it (the first poll, every 50 ms, that shows it
// Applied); p50 and p99 of both are printed.
import t from 'tap';
import { sleep } from '../../helpers/receiver.js';
import { serve } from '../../helpers/server.js';

const P = '/api/admin/projects/default';
const CR = `${P}/change-requests`;
const COUNT = 30;
const AHEAD_MS = 3_000;
const WITHIN_MS = 5_000;

t.setTimeout(120_000);

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

t.test(`${COUNT} requests scheduled ~3 s ahead are each applied once, not early, within ${WITHIN_MS} ms`, async (t) => {
  // AUTH_TYPE=none: every caller is the same anonymous Admin, who may approve their own requests.
  const { api, ok } = await serve(t);
  await ok('PUT', `${P}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 1 });
  const ids: number[] = [];
  for (let i = 0; i < COUNT; i++) {
    await ok('POST', `${P}/features`, { name: `timed-${i}` });
    const cr = await ok('POST', `${P}/environments/production/change-requests`, { feature: `timed-${i}`, action: 'updateEnabled', payload: { enabled: true } });
    await ok('PUT', `${CR}/${cr.id}/state`, { state: 'In review' });
    await ok('PUT', `${CR}/${cr.id}/state`, { state: 'Approved' });
    ids.push(cr.id);
  }
  const at = new Map<number, number>();
  for (const id of ids) {
    // Each 3 s ahead of when it is scheduled: a slow answer cannot put one in the past.
    const when = Date.now() + AHEAD_MS;
    at.set(id, when);
    await ok('PUT', `${CR}/${id}/state`, { state: 'Scheduled', scheduledAt: new Date(when).toISOString() });
  }
  const seen = new Map<number, number>();
  const end = Math.max(...at.values()) + WITHIN_MS + 2_000;
  while (seen.size < COUNT && Date.now() < end) {
    const list = (await api('GET', CR)).json as { id: number; state: string }[];
    const now = Date.now();
    for (const cr of list) if (cr.state === 'Applied' && !seen.has(cr.id)) seen.set(cr.id, now);
    await sleep(50);
  }
  t.equal(seen.size, COUNT, 'every request applied');
  await sleep(1_500);
  const success = (await ok('POST', '/api/admin/events/search', { type: 'change-request-scheduled-application-success' })).events as any[];
  t.same(success.map((e) => e.data.changeRequestId).sort((a: number, b: number) => a - b), ids, 'one success event each');
  const server = success.map((e) => Date.parse(e.createdAt) - at.get(e.data.changeRequestId)!);
  const client = ids.map((id) => seen.get(id)! - at.get(id)!);
  t.ok(server.every((ms) => ms >= 0), `never before its time (earliest ${Math.min(...server)} ms)`);
  t.ok(server.every((ms) => ms <= WITHIN_MS), `within ${WITHIN_MS} ms (latest ${Math.max(...server)} ms)`);
  t.comment(`lateness by the server's clock over ${COUNT}: p50 ${percentile(server, 50)} ms, p99 ${percentile(server, 99)} ms, max ${Math.max(...server)} ms`);
  t.comment(`lateness as a client polling every 50 ms sees it: p50 ${percentile(client, 50)} ms, p99 ${percentile(client, 99)} ms`);
});
