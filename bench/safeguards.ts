// `npm run bench:safeguards`: how soon a safeguard switches a flag off for the application that
// tripped it, on one server and on a three-node cluster (the SDK on a follower, so the metrics go
// through the log to the leader and the change back). For each firing: the official Node SDK
// (polling every 100 ms, posting metrics every 200 ms) adds 6 to an error counter whose safeguard
// threshold is 5; the time is from the answer to the post that carried them to the SDK answering
// the flag off. p50, p99 and the slowest over BENCH_FIRINGS (default 50) firings per setup. Not
// part of `npm test` (figures depend on the machine and its load; the test with its target is
// test/concepts/safeguards/sdk.test.ts). The ordinary impact metrics flush is set far off (30 s):
// only the early write of a watched metric can be measured.
//
//   BENCH_FIRINGS  firings per setup (default 50)
//   BENCH_SKIP     comma list of setups to skip: server, cluster
import os from 'node:os';
import { webhookLeader } from '../test/helpers/cluster.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { guarded, guardFlags, quantile, timeFiring } from '../test/helpers/safeguard-timing.js';
import { client, spawnServer, succeeding, type Spawned } from '../test/helpers/server.js';
import { syncedSdk } from '../test/helpers/unleash-sdk.js';

const ADMIN = '*:*.bench-safeguards-admin';
const CLIENT = '*:development.bench-safeguards-client';
const ENV = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, METRICS_FLUSH_MS: '30000' };
const FIRINGS = Number(process.env.BENCH_FIRINGS ?? 50);
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter(Boolean));
const APP = 'bench-safeguards';

/** Fires FIRINGS safeguards through an SDK on `sdkNode`, set up through `adminNode`; prints the figures. */
async function measure(label: string, adminNode: Spawned, sdkNode: Spawned): Promise<void> {
  const ok = succeeding(() => client(adminNode.url, { authorization: ADMIN }));
  await guardFlags(ok, { prefix: 'bench', runs: FIRINGS, app: APP, threshold: 5, environment: 'development' });
  const teardown: (() => void)[] = [];
  try {
    const sdk = await syncedSdk({ teardown: (fn) => teardown.push(fn) }, sdkNode.url, { token: CLIENT, metricsInterval: 200, refreshInterval: 100, appName: APP });
    for (let i = 0; i < FIRINGS; i++) sdk.impactMetrics.defineCounter(guarded('bench', i).metric, 'Failed checkouts');
    await new Promise((r) => setTimeout(r, 500));
    const times: number[] = [];
    for (let i = 0; i < FIRINGS; i++) times.push(await timeFiring(sdk, { ...guarded('bench', i), add: 6, withinMs: 30_000 }));
    console.log(`${label}: ${FIRINGS} firings, post → flag off for the SDK: p50 ${quantile(times, 0.5)} ms, p99 ${quantile(times, 0.99)} ms, slowest ${Math.max(...times)} ms, fastest ${Math.min(...times)} ms`);
  } finally {
    for (const fn of teardown) fn();
  }
}

async function main(): Promise<void> {
  console.log(`# bench:safeguards — ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  if (!SKIP.has('server')) {
    const srv = await spawnServer({ env: ENV });
    try {
      await measure('server', srv, srv);
    } finally {
      await srv.stop();
    }
  }
  if (!SKIP.has('cluster')) {
    const pg = await startPostgres();
    if (typeof pg === 'string') {
      console.error(`the cluster part needs PostgreSQL: ${pg}`);
      process.exit(2);
    }
    const nodes: Spawned[] = [];
    try {
      const url = await pg.createDatabase('bench_safeguards');
      for (let i = 0; i < 3; i++) nodes.push(await spawnServer({ env: { ...ENV, DATABASE_URL: url } }));
      const leader = await webhookLeader(nodes, { authorization: ADMIN });
      await measure('cluster of 3, SDK on a follower', nodes[(leader + 1) % 3], nodes[(leader + 2) % 3]);
    } finally {
      await Promise.all(nodes.map((n) => n.stop()));
      pg.destroy();
    }
  }
  console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}

await main();
