// A Fanion cluster for a test: a throwaway PostgreSQL (postgres.ts), one database, and real node
// processes (dist/src/entry/main.js) started on it with DATABASE_URL, each on its own port.
import type { Test } from 'tap';
import { decodeRecord } from '../../src/core/log/record.js';
import type { WalRecord } from '../../src/core/log/record.js';
import { postgresFor, type Postgres } from './postgres.js';
import { client, spawnServer, type SpawnOptions, type Spawned } from './server.js';

export interface Cluster {
  pg: Postgres;
  database: string;
  /** DATABASE_URL of the cluster's database. */
  url: string;
  /** Starts a node (DATABASE_URL and `env` on top of the test defaults); stopped when the test ends. */
  node(env?: Record<string, string | undefined>, opts?: SpawnOptions): Promise<Spawned>;
  /** Every record in the database log, decoded, in seq order. */
  records(): Promise<{ seq: number; rec: WalRecord }[]>;
}

let databases = 0;
const ending = new WeakSet<Spawned>();

/** The test expects `node` to exit by itself: its output is not printed when it does. */
export function expectExit(node: Spawned): void {
  ending.add(node);
}

export async function clusterFor(
  t: Test,
  env: Record<string, string | undefined> = {},
): Promise<Cluster | null> {
  const pg = await postgresFor(t);
  if (!pg) return null;
  const database = `fanion_${process.pid}_${++databases}`;
  const url = await pg.createDatabase(database);
  const nodes: Spawned[] = [];
  t.teardown(async () => {
    await Promise.all(nodes.map((n) => n.kill().catch(() => {})));
  });
  return {
    pg,
    database,
    url,
    async node(extra = {}, opts = {}) {
      const n = await spawnServer({ ...opts, env: { DATABASE_URL: url, ...env, ...extra } });
      nodes.push(n);
      // A node that dies on its own says why in the test's output (unless the test expects it).
      const [stop, kill] = [n.stop, n.kill];
      n.stop = () => (ending.add(n), stop());
      n.kill = () => (ending.add(n), kill());
      n.proc.once('exit', (code, signal) => {
        if (!ending.has(n)) process.stderr.write(`node ${n.url} exited by itself (${code ?? signal}):\n${n.output().split('\n').slice(-30).join('\n')}\n`);
      });
      return n;
    },
    async records() {
      const res = await pg.query(database, 'SELECT seq, rec FROM fanion_log ORDER BY seq');
      return (res.rows as { seq: string; rec: Buffer }[]).map((r) => ({ seq: Number(r.seq), rec: decodeRecord(r.rec) }));
    },
  };
}

/** Tokens for a cluster with AUTH_TYPE=api-token: a client token for the SDK answer, an admin one for events. */
export interface Auth {
  client: string;
  admin: string;
}

/** What every node should agree on once idle: the SDK's answer (bytes and ETag) and the newest event. */
export async function fingerprint(node: Spawned, auth?: Auth): Promise<string> {
  const api = client(node.url, auth ? { authorization: auth.admin } : {});
  const features = await fetch(`${node.url}/api/client/features`, { headers: auth ? { authorization: auth.client } : {} });
  const body = await features.text();
  const events = await api('POST', '/api/admin/events/search', { limit: 1 });
  return JSON.stringify({ etag: features.headers.get('etag'), body, newest: events.json.events[0]?.id ?? 0, total: events.json.totalEvents });
}

/** Waits (up to `ms`) until every node gives the same fingerprint; returns it, or throws with what differed. */
export async function converged(nodes: Spawned[], ms = 20_000, auth?: Auth): Promise<string> {
  const until = Date.now() + ms;
  let prints: string[] = [];
  for (;;) {
    prints = await Promise.all(nodes.map((n) => fingerprint(n, auth)));
    if (prints.every((p) => p === prints[0])) return prints[0];
    if (Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const short = prints.map((p) => {
    const j = JSON.parse(p);
    return `${j.etag} newest=${j.newest} total=${j.total} bytes=${j.body.length}`;
  });
  throw new Error(`the nodes did not converge within ${ms} ms: ${short.join(' | ')}`);
}

/** Whether `n` says it is the webhook leader (the node that also starts due milestones and fires safeguards). */
export async function leadsWebhooks(n: Spawned, headers: Record<string, string> = {}): Promise<boolean> {
  const m = await fetch(`${n.url}/internal-backstage/prometheus`, { headers }).then((r) => r.text()).catch(() => '');
  return /^cluster_webhook_leader 1$/m.test(m);
}

/** The index in `nodes` of the one webhook leader, once exactly one says it leads (within 10 s). */
export async function webhookLeader(nodes: Spawned[], headers: Record<string, string> = {}): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const flags = await Promise.all(nodes.map((n) => leadsWebhooks(n, headers)));
    const at = flags.indexOf(true);
    if (at >= 0 && flags.filter(Boolean).length === 1) return at;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no single webhook leader emerged');
}
