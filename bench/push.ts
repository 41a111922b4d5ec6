// `npm run bench:push`: streaming against a real server process (WAL_SYNC=always).
//  1. Change-to-SDK latency over STREAMS (1,000) streams: for each of CHANGES on/off flips, the
//     time from the admin answer (2xx) to each stream's frame, and to the last stream's; the
//     baseline is the admin write's own round trip, measured in the same run.
//  2. Memory per idle stream: server RSS before and after opening IDLE (10,000) streams.
//  3. The CPU of one change fanned out to those streams, against the same changes with no stream
//     open (both measured in this run, from /proc/<pid>/stat).
import fs from 'node:fs';
import net from 'node:net';
import { client, spawnServer } from '../test/helpers/server.js';
import { rssOf } from '../test/helpers/hostile.js';

const ADMIN = '*:*.bench-push-admin';
const CLIENT = '*:development.bench-push-client';
const STREAMS = Number(process.env.STREAMS ?? 1000);
const IDLE = Number(process.env.IDLE ?? 10_000);
const CHANGES = Number(process.env.CHANGES ?? 100);
const FANOUT_CHANGES = Number(process.env.FANOUT_CHANGES ?? 20);
const P = '/api/admin/projects/default/features';

/** A stream read by a bare socket: counts frames after the first, and when each arrived. */
interface Reader {
  socket: net.Socket;
  frames: number;
  arrivals: number[];
  connected: Promise<void>;
}

function openReader(port: number): Reader {
  const socket = net.connect(port, '127.0.0.1');
  let resolveConnected!: () => void;
  const r: Reader = { socket, frames: -1, arrivals: [], connected: new Promise((res) => (resolveConnected = res)) };
  socket.setNoDelay(true);
  socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: bench\r\nAuthorization: ${CLIENT}\r\nAccept: text/event-stream\r\n\r\n`);
  socket.on('data', (chunk: Buffer) => {
    const now = performance.now();
    // One change's frame arrives in one chunk here (small frames on loopback); count frame starts.
    let at = chunk.indexOf('\nevent: ');
    while (at >= 0) {
      r.frames++;
      if (r.frames === 0) resolveConnected();
      else r.arrivals[r.frames] = now;
      at = chunk.indexOf('\nevent: ', at + 1);
    }
    if (r.frames < 0 && chunk.includes('event: unleash-connected')) {
      r.frames = 0;
      resolveConnected();
    }
  });
  socket.on('error', () => {});
  return r;
}

function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (1/100 s)
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x: number) => `${x.toFixed(2)} ms`;
const waitAll = async (readers: Reader[], k: number, limitMs = 30_000) => {
  const started = performance.now();
  while (readers.some((r) => r.frames < k)) {
    if (performance.now() - started > limitMs) throw new Error(`frame ${k} reached ${readers.filter((r) => r.frames >= k).length}/${readers.length} streams`);
    await new Promise((res) => setImmediate(res));
  }
};

const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, WAL_SYNC: 'always', STREAMING_MAX_CONNECTIONS: String(IDLE + STREAMS + 10), STREAMING_MAX_CONNECTIONS_PER_TOKEN: String(IDLE + STREAMS + 10) } });
const admin = client(srv.url, { authorization: ADMIN });
const pid = srv.proc.pid!;
try {
  for (let i = 0; i < 50; i++) await admin('POST', P, { name: `f${i}`, description: `flag ${i}` });
  await admin('POST', P, { name: 'flip' });
  const flip = async (k: number) => {
    const t0 = performance.now();
    const res = await admin('POST', `${P}/flip/environments/development/${k % 2 ? 'on' : 'off'}`);
    if (res.status !== 200) throw new Error(`flip ${k}: ${res.status}`);
    return { t0, t1: performance.now() };
  };

  // 1. Latency over STREAMS streams.
  const readers = Array.from({ length: STREAMS }, () => openReader(srv.port));
  await Promise.all(readers.map((r) => r.connected));
  const rtt: number[] = [];
  const perStream: number[] = [];
  const last: number[] = [];
  for (let k = 1; k <= CHANGES; k++) {
    const { t0, t1 } = await flip(k);
    await waitAll(readers, k);
    rtt.push(t1 - t0);
    let latest = 0;
    for (const r of readers) {
      const d = Math.max(0, r.arrivals[k] - t1);
      perStream.push(d);
      latest = Math.max(latest, d);
    }
    last.push(latest);
  }
  console.log(`latency over ${STREAMS} streams, ${CHANGES} changes (from the admin 2xx to the frame; a frame arriving before the 2xx counts 0):`);
  console.log(`  each stream:  p50 ${ms(pct(perStream, 50))}  p99 ${ms(pct(perStream, 99))}  max ${ms(Math.max(...perStream))}`);
  console.log(`  last stream:  p50 ${ms(pct(last, 50))}  p99 ${ms(pct(last, 99))}  max ${ms(Math.max(...last))}  (target p99 < 50 ms)`);
  console.log(`  baseline, the admin write's round trip: p50 ${ms(pct(rtt, 50))}  p99 ${ms(pct(rtt, 99))}; last-stream p99 / write p99 = ${(pct(last, 99) / pct(rtt, 99)).toFixed(2)}`);
  for (const r of readers) r.socket.destroy();
  await new Promise((res) => setTimeout(res, 500));

  // 3 (baseline first). CPU of FANOUT_CHANGES changes with no stream open.
  let flips = CHANGES;
  const cpuOf = async (streams: Reader[]) => {
    const before = cpuTicks(pid);
    const started = performance.now();
    for (let i = 0; i < FANOUT_CHANGES; i++) {
      await flip(++flips);
      if (streams.length) await waitAll(streams, i + 1, 60_000);
    }
    return { ticks: cpuTicks(pid) - before, wall: performance.now() - started };
  };
  const quiet = await cpuOf([]);

  // 2. Memory per idle stream.
  await new Promise((res) => setTimeout(res, 1000));
  const rssBefore = rssOf(pid);
  const idle: Reader[] = [];
  for (let i = 0; i < IDLE; i += 500) {
    const batch = Array.from({ length: Math.min(500, IDLE - i) }, () => openReader(srv.port));
    idle.push(...batch);
    await Promise.all(batch.map((r) => r.connected));
  }
  await new Promise((res) => setTimeout(res, 2000));
  const rssAfter = rssOf(pid);
  const per = (rssAfter - rssBefore) / IDLE;
  console.log(`memory: RSS ${(rssBefore / 2 ** 20).toFixed(0)} MB → ${(rssAfter / 2 ** 20).toFixed(0)} MB with ${IDLE} idle streams: ${(per / 1024).toFixed(1)} KB per stream (target < 10 KB)`);

  // 3. CPU of changes fanned out to IDLE streams, against the baseline.
  const busy = await cpuOf(idle);
  const perChange = (x: { ticks: number }) => (x.ticks * 10) / FANOUT_CHANGES;
  console.log(
    `fan-out: ${FANOUT_CHANGES} changes to ${IDLE} streams cost ${perChange(busy).toFixed(1)} ms of server CPU each ` +
      `(${((perChange(busy) * 1000) / IDLE).toFixed(2)} µs per stream), against ${perChange(quiet).toFixed(1)} ms each with no stream ` +
      `(ratio ${(busy.ticks / Math.max(1, quiet.ticks)).toFixed(1)}); wall ${ms(busy.wall / FANOUT_CHANGES)} per change until every stream had it`,
  );
  for (const r of idle) r.socket.destroy();
  if (pct(last, 99) >= 50 || per >= 10 * 1024) process.exitCode = 1;
} finally {
  await srv.stop();
}
