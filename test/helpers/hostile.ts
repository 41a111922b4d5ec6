// What a hostile holder of a client token sends to make the server keep things: registrations
// with every kept string as long as the schema allows and many distinct applications, instances
// and strategy names. Shared by test/concepts/client-metrics/hostile.test.ts and bench/hostile.ts.
import fs from 'node:fs';

const MAX = 255;
const long = (tag: string, i: number) => `${tag}-${i}-`.padEnd(MAX, 'x');

/** Resident set size of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** The i-th registration of the flood: its own application and instance, 100 strategy names of 255 characters. */
export function hostileRegistration(i: number): Record<string, unknown> {
  return {
    appName: long('app', i), instanceId: long('instance', i), connectionId: long('connection', i), sdkVersion: long('sdk', i),
    strategies: Array.from({ length: 100 }, (_, s) => long(`strategy-${s}`, i)),
    started: new Date().toISOString(), interval: 15000, platformName: long('platform', i), platformVersion: long('version', i),
    environment: long('env', i), specVersion: long('spec', i),
  };
}

/**
 * Sends `count` registrations, `concurrency` at a time, and returns how many got each status.
 * The server's answers are read in full, so this measures what it keeps, not what is in flight.
 */
export async function flood(url: string, token: string, count: number, concurrency = 16): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const body = JSON.stringify(hostileRegistration(next++));
      const res = await fetch(`${url}/api/client/register`, { method: 'POST', headers: { authorization: token, 'content-type': 'application/json' }, body });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}
