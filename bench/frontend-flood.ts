// `npm run bench:frontend-flood`: the flood of issue #26 (item 2) against a real server started
// with `--max-old-space-size=512`: 10,000 distinct ~16 KB `GET /api/frontend` queries, each sent
// twice, 16 at a time. Prints RSS before, at its peak and after, whether the process survived, and
// whether every answer was right. FLOOD_COUNT, FLOOD_SIZE, FLOOD_HEAP_MB change the figures;
// FRONTEND_CACHE_MAX_BYTES, when set, is passed to the server.
import os from 'node:os';
import { MAIN, spawnServer } from '../test/helpers/server.js';
import { rssOf } from '../test/helpers/hostile.js';
import { frontendFlood, seedFloodFlags } from '../test/helpers/frontend-flood.js';

const ADMIN = '*:*.bench-flood-admin';
const FRONTEND = 'default:development.bench-flood-frontend';
const COUNT = Number(process.env.FLOOD_COUNT ?? 10_000);
const SIZE = Number(process.env.FLOOD_SIZE ?? 16_000);
const HEAP_MB = Number(process.env.FLOOD_HEAP_MB ?? 512);
const CONCURRENCY = Number(process.env.FLOOD_CONCURRENCY ?? 16);

const budget: Record<string, string> = process.env.FRONTEND_CACHE_MAX_BYTES ? { FRONTEND_CACHE_MAX_BYTES: process.env.FRONTEND_CACHE_MAX_BYTES } : {};
const srv = await spawnServer({
  command: [process.execPath, `--max-old-space-size=${HEAP_MB}`, MAIN],
  env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_FRONTEND_API_TOKENS: FRONTEND, METRICS_FLUSH_MS: '0', ...budget },
});
const exited = new Promise<number | null>((resolve) => srv.proc.once('exit', (code) => resolve(code)));
let alive = true;
void exited.then(() => (alive = false));
try {
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
  await seedFloodFlags(srv.url, ADMIN);
  const before = rssOf(srv.proc.pid!);
  let peak = before;
  const sampler = setInterval(() => {
    if (alive) peak = Math.max(peak, rssOf(srv.proc.pid!) || 0);
  }, 100);
  let result: Awaited<ReturnType<typeof frontendFlood>> | null = null;
  let failure = '';
  try {
    result = await frontendFlood(srv.url, FRONTEND, { count: COUNT, size: SIZE, concurrency: CONCURRENCY });
  } catch (err) {
    failure = (err as Error).message;
  }
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, 200));
  const after = alive ? rssOf(srv.proc.pid!) : NaN;
  console.log(`flood: ${COUNT} distinct queries of ${SIZE} characters, each sent twice, ${CONCURRENCY} at a time, heap limit ${HEAP_MB} MB`);
  if (result) console.log(`  ${result.seconds.toFixed(1)} s; statuses ${JSON.stringify(result.statuses)}; wrong answers: ${result.wrong.length}${result.wrong.length ? ` (first: ${result.wrong[0].slice(0, 200)})` : ''}`);
  else console.log(`  the flood failed: ${failure}`);
  console.log(`RSS: ${mb(before)} before, ${mb(peak)} at peak, ${alive ? mb(after) : '(process gone)'} after; growth at peak +${mb(peak - before)} (target < 300 MB)`);
  console.log(`process: ${alive ? 'survived' : `died (exit ${await exited})`}`);
  if (!alive) console.log(srv.output().split('\n').filter((l) => /heap|memory|FATAL/i.test(l)).slice(0, 5).join('\n'));
  if (!alive || !result || result.wrong.length > 0 || peak - before >= 300 * 2 ** 20) process.exitCode = 1;
} finally {
  if (alive) await srv.stop();
}
