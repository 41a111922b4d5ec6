// `npm run bench:frontend`: the Frontend API against a real server process (API tokens,
// WAL_SYNC=none), 200 flags with 3 strategies each (constraints, a segment, variants), beside a raw
// node:http baseline in its own process serving a fixed body of the same size, in the same run:
//  - distinct contexts: every request a new userId (nothing cached; 200 flags evaluated each time);
//  - a repeated context (answered from the cache) and the same with If-None-Match (304);
//  - the evaluator's own cost per flag, in process.
// Targets on this machine: >= 5,000 req/s with distinct contexts; the 304 path >= 0.85 x baseline.
import os from 'node:os';
import autocannon from 'autocannon';
import { cpuMicros, median, startBaseline } from './ab.js';
import { openServer } from '../src/entry/embedded.js';
import { loadConfig } from '../src/core/config.js';
import { HOSTNAME } from '../src/concepts/evaluation/answers.js';
import type { Runtime } from '../src/concepts/evaluation/compile.js';
import { evaluate } from '../src/concepts/evaluation/evaluate.js';
import { PreparedFlags } from '../src/concepts/evaluation/prepared.js';
import { createLogger } from '../src/core/logger.js';
import { spawnServer } from '../test/helpers/server.js';

const ADMIN = '*:*.bench-frontend-admin';
const FRONTEND = 'default:development.bench-frontend-key';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const FLAGS = 200;
const P = '/api/admin/projects/default/features';

async function seed(base: string): Promise<void> {
  const post = async (p: string, body: unknown, method = 'POST') => {
    const res = await fetch(base + p, { method, headers: { authorization: ADMIN, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${p} → ${res.status} ${await res.text()}`);
    return res.json().catch(() => null);
  };
  const seg = (await post('/api/admin/segments', { name: 'paying', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro', 'gold'] }] })) as { id: number };
  const one = async (i: number) => {
    const name = `flag-${String(i).padStart(3, '0')}`;
    await post(P, { name });
    const s = `${P}/${name}/environments/development/strategies`;
    await post(s, { name: 'flexibleRollout', parameters: { rollout: String(20 + (i % 80)), stickiness: 'userId', groupId: name }, constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE', 'DK'] }] });
    await post(s, { name: 'default', segments: [seg.id], constraints: [{ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0' }] });
    await post(s, {
      name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default' }, constraints: [{ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'] }],
      variants: [{ name: 'a', weight: 500, weightType: 'variable', payload: { type: 'string', value: 'A' } }, { name: 'b', weight: 500, weightType: 'variable' }],
    });
    await post(`${P}/${name}/environments/development/on`, {});
  };
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < FLAGS) await one(next++);
  }));
}

const QUERY = '/api/frontend?userId=u7&sessionId=s7&properties[country]=NO&properties[plan]=pro&properties[version]=2.3.0&properties[email]=a@example.com';

async function main(): Promise<void> {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_FRONTEND_API_TOKENS: FRONTEND, WAL_SYNC: 'none', METRICS_FLUSH_MS: '0' } });
  let stopBaseline = () => {};
  try {
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
    await seed(srv.url);
    const sample = await fetch(srv.url + QUERY, { headers: { authorization: FRONTEND } });
    const body = Buffer.from(await sample.arrayBuffer());
    const etag = sample.headers.get('etag')!;
    const toggles = JSON.parse(body.toString()).toggles.length;
    console.log(`${FLAGS} flags × 3 strategies (constraints, a segment, variants); the sample answer: ${body.length} bytes, ${toggles} flags on`);
    // The Frontend API's own headers after the ETag; no gzip (the benchmark's clients ask for none).
    const started = await startBaseline({ identity: body, gzip: null, etag }, ['Cache-Control', 'no-cache', 'X-Content-Type-Options', 'nosniff']);
    stopBaseline = started.stop;
    const baseline = started.url;

    // Distinct contexts, prebuilt: each connection gets its own list of request paths (so no two
    // requests share a context), and autocannon sends prebuilt bytes instead of building each
    // request, which on 2 shared cores would make the load generator the bottleneck.
    let n = 0;
    const distinctPath = () => {
      n++;
      return `/api/frontend?userId=user-${n}&properties[country]=${n % 2 ? 'NO' : 'FI'}&properties[plan]=${n % 3 ? 'free' : 'pro'}&properties[version]=2.${n % 5}.0&properties[email]=u${n}@example.com`;
    };
    const perConnection = Math.ceil((SECONDS + 1) * 2000);
    const setupClient = (c: { setRequests(r: unknown[]): void }) => c.setRequests(Array.from({ length: perConnection }, () => ({ path: distinctPath() })));
    const cases: { name: string; fanion: { path?: string; setupClient?: (c: { setRequests(r: unknown[]): void }) => void }; base: { path: string }; headers: Record<string, string> }[] = [
      { name: 'distinct contexts', fanion: { setupClient }, base: { path: QUERY }, headers: { authorization: FRONTEND } },
      { name: 'repeated context', fanion: { path: QUERY }, base: { path: QUERY }, headers: { authorization: FRONTEND } },
      { name: 'repeated, If-None-Match (304)', fanion: { path: QUERY }, base: { path: QUERY }, headers: { authorization: FRONTEND, 'if-none-match': etag } },
    ];
    console.log(`autocannon: ${CONNECTIONS} connections, ${SECONDS}s per run, ${ROUNDS} A/B rounds; ratio = median of Fanion/baseline per round\n`);
    console.log('case                              fanion req/s   baseline req/s   ratio   fanion CPU µs/req');
    for (const c of cases) {
      const f: number[] = [];
      const b: number[] = [];
      const cpu: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const c0 = cpuMicros(srv.proc.pid!);
        const r1 = await autocannon({ url: srv.url + (c.fanion.path ?? '/api/frontend'), ...(c.fanion.setupClient ? { setupClient: c.fanion.setupClient as never } : {}), connections: CONNECTIONS, duration: SECONDS, headers: c.headers });
        cpu.push((cpuMicros(srv.proc.pid!) - c0) / r1.requests.total);
        const r2 = await autocannon({ url: baseline + c.base.path, connections: CONNECTIONS, duration: SECONDS, headers: c.headers });
        if (r1.non2xx && !c.name.includes('304')) console.warn(`  warning: ${r1.non2xx} non-2xx answers from Fanion`);
        f.push(r1.requests.average);
        b.push(r2.requests.average);
      }
      const ratio = median(f.map((x, i) => x / b[i]));
      console.log(`${c.name.padEnd(34)}${String(Math.round(median(f))).padStart(12)}${String(Math.round(median(b))).padStart(17)}${ratio.toFixed(2).padStart(8)}${median(cpu).toFixed(0).padStart(20)}`);
    }
  } finally {
    stopBaseline();
    await srv.stop();
  }

  // The evaluator alone, in process, on the same data.
  const fanion = await openServer({ config: loadConfig({ DATA_DIR: srv.dataDir, WAL_SYNC: 'none', AUTH_TYPE: 'none', METRICS_FLUSH_MS: '0', LOG_LEVEL: 'silent' }), log: createLogger('silent') });
  try {
    const t0 = performance.now();
    const prepared = new PreparedFlags(fanion.engine.state, HOSTNAME).env('development');
    const prepareMs = performance.now() - t0;
    const rt: Runtime = { random: Math.random, now: Date.now, hostname: HOSTNAME, volatile: false };
    const lookup = (name: string) => prepared.flags.get(name);
    const contexts = Array.from({ length: 2000 }, (_, i) => ({ userId: `user-${i}`, properties: { country: i % 2 ? 'NO' : 'FI', plan: i % 3 ? 'free' : 'pro', version: `2.${i % 5}.0`, email: `u${i}@example.com` } }));
    let on = 0;
    const t1 = performance.now();
    for (let rep = 0; rep < 5; rep++) for (const ctx of contexts) for (const f of prepared.ordered) if (evaluate(f, ctx, rt, lookup).enabled) on++;
    const perFlag = ((performance.now() - t1) * 1000) / (5 * contexts.length * prepared.ordered.length);
    console.log(`\nevaluator: ${perFlag.toFixed(2)} µs per flag (${prepared.ordered.length} flags × ${contexts.length} contexts × 5, ${((on / (5 * contexts.length * prepared.ordered.length)) * 100).toFixed(0)} % on); preparing all ${prepared.ordered.length} flags took ${prepareMs.toFixed(1)} ms`);
  } finally {
    await fanion.close();
  }
}

await main();
