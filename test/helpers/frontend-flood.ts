// What a holder of a frontend token (public by design) sends to make the server keep things:
// ever-new contexts as long as a URL may carry (~16 KB), each sent twice, so that each is
// remembered when seen and its answer kept when it comes back. Shared by
// test/concepts/frontend/flood.test.ts and bench/frontend-flood.ts.
import http from 'node:http';

const P = '/api/admin/projects/default/features';

/** Flags whose answers the flood checks: on for everyone, on for even contexts only, a 50% rollout. */
export async function seedFloodFlags(url: string, admin: string): Promise<void> {
  const post = async (p: string, body: unknown = {}) => {
    const res = await fetch(url + p, { method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`POST ${p} → ${res.status} ${await res.text()}`);
  };
  const flag = async (name: string, strategy: unknown) => {
    await post(P, { name });
    await post(`${P}/${name}/environments/development/strategies`, strategy);
    await post(`${P}/${name}/environments/development/on`);
  };
  await flag('everyone', { name: 'default' });
  await flag('even', { name: 'default', constraints: [{ contextName: 'parity', operator: 'IN', values: ['even'] }] });
  await flag('half', { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId', groupId: 'half' } });
}

/** The i-th context of the flood as a query string of about `size` characters. */
export function floodQuery(i: number, size: number): string {
  const head = `?userId=flood-${i}&properties[parity]=${i % 2 ? 'odd' : 'even'}`;
  const pad = Math.max(0, size - head.length - 2 * '&properties[padN]='.length);
  const half = Math.floor(pad / 2);
  return `${head}&properties[pad1]=${'a'.repeat(half)}&properties[pad2]=${'b'.repeat(pad - half)}`;
}

export interface FloodResult {
  statuses: Record<number, number>;
  /** Answers that were not what the context asks for, or differed between the two sends. */
  wrong: string[];
  seconds: number;
}

/**
 * Sends `count` distinct contexts, each twice in a row, `concurrency` at a time over keep-alive
 * connections, and checks every answer: `everyone` on, `even` on for even contexts only, and the
 * second answer the same as the first (body and ETag). Answers are read in full.
 */
export async function frontendFlood(url: string, token: string, opts: { count: number; size: number; concurrency?: number }): Promise<FloodResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency ?? 16 });
  const get = (path: string) =>
    new Promise<{ status: number; etag: string; body: string }>((resolve, reject) => {
      const req = http.get(url + path, { agent, headers: { authorization: token } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, etag: String(res.headers.etag), body }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  const statuses: Record<number, number> = {};
  const wrong: string[] = [];
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < opts.count) {
      const i = next++;
      const path = `/api/frontend${floodQuery(i, opts.size)}`;
      const first = await get(path);
      const second = await get(path);
      for (const r of [first, second]) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (first.status !== 200 || second.status !== 200) continue;
      const names = (JSON.parse(first.body) as { toggles: { name: string }[] }).toggles.map((x) => x.name);
      const ok = names.includes('everyone') && names.includes('even') === (i % 2 === 0) && second.body === first.body && second.etag === first.etag;
      if (!ok && wrong.length < 10) wrong.push(`context ${i}: ${first.body} then ${second.body}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? 16 }, worker));
  } finally {
    agent.destroy();
  }
  return { statuses, wrong, seconds: (Date.now() - started) / 1000 };
}
