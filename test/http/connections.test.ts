// Connections are cut off: a request whose headers trickle in is closed at HEADERS_TIMEOUT_MS, a
// refused request's body is not read on, and under a flood of idle connections the server keeps
// descriptors for its own files and serves again once the flood ends. All against real processes.
import fs from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { connectionCap, OWN_DESCRIPTORS, openFilesLimit } from '../../src/http/connections.js';
import { loadConfig } from '../../src/core/config.js';
import { client, MAIN, spawnServer } from '../helpers/server.js';

const ADMIN = '*:*.connections-admin';

interface Watched {
  socket: net.Socket;
  /** Resolves with the ms from `since()` to the close, and what the server sent. */
  closed: Promise<{ at: number; data: string }>;
}

function open(port: number): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    const closed = new Promise<{ at: number; data: string }>((done) => socket.on('close', () => done({ at: Date.now(), data })));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

t.test('the defaults: headers within 15 s, a whole request within 60 s, connections below the descriptor limit', async (t) => {
  const config = loadConfig({});
  t.equal(config.http.headersTimeoutMs, 15_000, 'a trickled request is cut within 16 s by default');
  t.equal(config.http.requestTimeoutMs, 60_000);
  t.equal(connectionCap(undefined, 1024), 1024 - OWN_DESCRIPTORS);
  t.equal(connectionCap(500, 1024), 500, 'MAX_CONNECTIONS wins');
  t.type(openFilesLimit(), 'number', 'the limit is read from /proc/self/limits');
  t.throws(() => loadConfig({ HEADERS_TIMEOUT_MS: '70000' }), /cannot be longer than REQUEST_TIMEOUT_MS/);
});

interface Trickler {
  /** How long to wait after connecting before the first byte. */
  wait: number;
  /** Never close its side, even after the server's FIN: only a reset tells it. */
  halfOpen: boolean;
  /** Send one whole request first, answered, and trickle the second on the same connection. */
  keepAlive?: boolean;
}

/**
 * One client trickling a header line every 2 s and never the blank line that ends them. Resolves
 * with the ms from its connection (or, for a second request, from that request's first byte) to
 * the moment it saw the connection close, and what the server sent.
 */
function trickle(port: number, how: Trickler): Promise<{ ms: number; data: string }> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: how.halfOpen });
    let data = '';
    let since = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('error', () => {});
    socket.on('data', (d) => (data += d.toString()));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ ms: Date.now() - since, data });
    });
    const start = () => {
      if (how.keepAlive) since = Date.now();
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      timer = setInterval(() => !socket.destroyed && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 2000);
    };
    socket.once('connect', () => {
      since = Date.now();
      if (!how.keepAlive) {
        setTimeout(start, how.wait);
        return;
      }
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      socket.once('data', () => setTimeout(start, how.wait));
    });
  });
}

const CLIENTS: [string, Trickler][] = [
  ['one that closes when the server does', { wait: 0, halfOpen: false }],
  ['one that never closes its side', { wait: 0, halfOpen: true }],
  ['one that waits 1.5 s before its first byte', { wait: 1500, halfOpen: true }],
  ["a keep-alive connection's second request", { wait: 500, halfOpen: true, keepAlive: true }],
];

t.test('a request whose headers trickle in is closed within HEADERS_TIMEOUT_MS and a second, however it trickles', async (t) => {
  const srv = await spawnServer({ env: { HEADERS_TIMEOUT_MS: '3000' } });
  t.teardown(() => srv.stop());
  const runs = await Promise.all(CLIENTS.map(([, how]) => trickle(srv.port, how)));
  CLIENTS.forEach(([what, how], i) => {
    const { ms, data } = runs[i];
    t.comment(`${what}: closed ${ms} ms after ${how.keepAlive ? "its second request's first byte" : 'it connected'}`);
    t.ok(ms >= 2900 && ms <= 4000, `${what}: closed within the timeout and a second (${ms} ms)`);
    t.match(data, /HTTP\/1\.1 408 /, `${what}: with a 408`);
  });
});

t.test('with the default settings (15 s), a trickle of a line every 2 s is closed within 16 s', async (t) => {
  const srv = await spawnServer({ env: { HEADERS_TIMEOUT_MS: undefined, REQUEST_TIMEOUT_MS: undefined } });
  t.teardown(() => srv.stop());
  const [closing, halfOpen] = await Promise.all([trickle(srv.port, { wait: 0, halfOpen: false }), trickle(srv.port, { wait: 0, halfOpen: true })]);
  for (const [what, { ms, data }] of [['a client that closes', closing], ['a client that never closes its side', halfOpen]] as const) {
    t.comment(`${what}: closed after ${ms} ms`);
    t.ok(ms >= 14_900 && ms <= 16_000, `${what}: closed between 15 and 16 s (${ms} ms)`);
    t.match(data, /^HTTP\/1\.1 408 /);
  }
});

/** The sockets a process holds open (its listening socket included). */
function socketCount(pid: number): number {
  let n = 0;
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      /* closed meanwhile */
    }
  }
  return n;
}

t.test('a client that trickles headers, never reads and never closes loses its socket within seconds of the 408', async (t) => {
  const srv = await spawnServer({ env: { HEADERS_TIMEOUT_MS: '1000' } });
  t.teardown(() => srv.stop());
  const pid = srv.proc.pid!;
  const base = socketCount(pid);
  // Half-open allowed: the FIN after the 408 does not make these close their side, and paused,
  // they read nothing (not the answer, not the FIN).
  const hostile = Array.from({ length: 10 }, () => {
    const s = net.connect({ port: srv.port, host: '127.0.0.1', allowHalfOpen: true });
    s.on('error', () => {});
    s.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    s.pause();
    return s;
  });
  t.teardown(() => hostile.forEach((s) => s.destroy()));
  const trickle = setInterval(() => hostile.forEach((s) => !s.destroyed && s.write(`X-Slow-${Date.now()}: 1\r\n`)), 300);
  t.teardown(() => clearInterval(trickle));
  const started = Date.now();
  let most = 0;
  let held = Infinity;
  while (held > 0 && Date.now() - started < 15_000) {
    await new Promise((r) => setTimeout(r, 100));
    held = socketCount(pid) - base;
    most = Math.max(most, held);
  }
  const ms = Date.now() - started;
  t.equal(most, 10, 'the server held the ten sockets while their headers trickled');
  t.equal(held, 0, `then closed every one of them (${ms} ms after they connected)`);
  // The headers timeout (1 s) and Node's check (1 s), then the grace after the answer (2 s).
  t.ok(ms < 8000, `within a few seconds of the 408, not never (${ms} ms)`);
  t.equal((await fetch(`${srv.url}/health`)).status, 200, 'and serves on');
});

t.test('after a refusal the unread body is not read on: the connection closes at once', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN } });
  t.teardown(() => srv.stop());
  const cases: [string, string][] = [
    ['401, no token', 'POST /api/admin/projects/default/features HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 52428800\r\n\r\n{"na'],
    ['413, a 50 MB body announced', `POST /api/admin/projects/default/features HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 52428800\r\n\r\n{"na`],
    ['415, not JSON', `POST /api/admin/projects/default/features HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN}\r\nContent-Type: text/plain\r\nContent-Length: 52428800\r\n\r\nname`],
    ['403, cross-origin', `POST /api/admin/projects/default/features HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN}\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"na\r\n`],
  ];
  for (const [what, head] of cases) {
    const c = await open(srv.port);
    c.socket.write(head);
    // Keep trickling the body, as a hostile client would.
    const trickle = setInterval(() => !c.socket.destroyed && c.socket.write(head.includes('chunked') ? '1\r\nx\r\n' : 'x'), 200);
    let answeredAt = 0;
    c.socket.on('data', () => (answeredAt ||= Date.now()));
    const { at, data } = await Promise.race([c.closed, new Promise<{ at: number; data: string }>((r) => setTimeout(() => r({ at: Infinity, data: '' }), 8000))]);
    clearInterval(trickle);
    c.socket.destroy();
    t.match(data, new RegExp(`^HTTP/1\\.1 ${what.slice(0, 3)} [\\s\\S]*Connection: close`, 'i'), `${what}: answered with Connection: close`);
    t.ok(at - answeredAt < 5000, `${what}: closed ${at - answeredAt} ms after the answer`);
  }
  // A refused request without a body keeps its connection (SDKs with a bad token retry on it).
  const keep = await client(srv.url)('GET', '/api/admin/projects');
  t.equal(keep.status, 401);
  t.not(keep.headers.get('connection'), 'close');
});

function fdCount(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

t.test('1,400 idle connections at nofile 1024: at most 960 descriptors open, and serving again within 3 s', async (t) => {
  const srv = await spawnServer({ command: ['prlimit', '--nofile=1024:1024', process.execPath, MAIN] });
  t.teardown(() => srv.stop());
  t.match(srv.output(), /"maxConnections":896/, `the cap is the limit less ${OWN_DESCRIPTORS}, and is logged at start`);
  const pid = srv.proc.pid!;
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, fdCount(pid))), 20);
  const sockets: net.Socket[] = [];
  let failed = 0;
  for (let i = 0; i < 1400; i++) {
    try {
      sockets.push((await open(srv.port)).socket);
    } catch {
      failed++;
    }
    sockets.at(-1)?.on('error', () => {});
  }
  await new Promise((r) => setTimeout(r, 1500)); // let the server settle with all of them
  most = Math.max(most, fdCount(pid));
  t.comment(`most descriptors open during the flood: ${most} (connect errors seen by the client: ${failed})`);
  t.ok(most <= 960, `at most 960 descriptors open (${most})`);
  await new Promise((r) => setTimeout(r, 200));
  t.match(srv.output(), /connection limit reached/, 'the cap is logged');
  t.equal(srv.output().match(/connection limit reached/g)!.length, 1, '… once');

  for (const s of sockets) s.destroy();
  const ended = Date.now();
  let healthy = false;
  while (!healthy && Date.now() - ended < 3000) {
    healthy = await fetch(`${srv.url}/health`).then((r) => r.ok, () => false);
    if (!healthy) await new Promise((r) => setTimeout(r, 50));
  }
  clearInterval(sampler);
  t.ok(healthy, `serving again ${Date.now() - ended} ms after the flood ended`);
  t.ok(most <= 960, `no sample above 960 (${most})`);
  await new Promise((r) => setTimeout(r, 1500));
  t.match(srv.output(), /"refused":\d+[^\n]*connection limit: room again/, 'the recovery is logged with the count of refusals');
});
