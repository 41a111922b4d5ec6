// Stopping is bounded: a client that keeps a request open (a body trickled byte by byte) cannot
// keep the process, its port and its data folder's lock past SHUTDOWN_TIMEOUT_MS, and a second
// Ctrl-C (more than a second after the first: sooner, it is the same stop) stops at once. Either
// way what was acknowledged is there after a restart.
import net from 'node:net';
import t from 'tap';
import { client, spawnServer } from '../helpers/server.js';

/** A POST whose body never finishes: the request stays in flight until the server lets it go. */
async function trickle(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.on('error', () => {});
  socket.write('POST /api/admin/projects/default/features HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na');
  return socket;
}

const exited = (srv: { proc: import('node:child_process').ChildProcess }) =>
  new Promise<number | null>((resolve) => srv.proc.once('exit', (code) => resolve(code)));

t.test('a stop held up by a request in flight ends at SHUTDOWN_TIMEOUT_MS, saying what it waited for', async (t) => {
  const srv = await spawnServer({ env: { SHUTDOWN_TIMEOUT_MS: '1000' } });
  t.teardown(() => srv.kill());
  t.equal((await client(srv.url)('POST', '/api/admin/projects/default/features', { name: 'kept' })).status, 201);
  const socket = await trickle(srv.port);
  t.teardown(() => socket.destroy());
  const code = exited(srv);
  const t0 = performance.now();
  srv.proc.kill('SIGTERM');
  t.equal(await code, 1, 'it exits, with a failure status');
  const ms = performance.now() - t0;
  t.ok(ms >= 900 && ms < 4000, `after ${Math.round(ms)} ms (SHUTDOWN_TIMEOUT_MS=1000; the connection itself would be cut at 5 s)`);
  t.match(srv.output(), /"waitingFor":"in-flight requests and open connections"[^\n]*shutdown did not finish within SHUTDOWN_TIMEOUT_MS \(1000 ms\)/, 'the log says what it waited for');
  const again = await spawnServer({ dataDir: srv.dataDir });
  t.teardown(() => again.stop());
  t.equal((await client(again.url)('GET', '/api/admin/projects/default/features/kept')).status, 200, 'the acknowledged change is there');
});

t.test('without a short SHUTDOWN_TIMEOUT_MS the same stop cuts the connection and ends cleanly', async (t) => {
  const srv = await spawnServer();
  t.teardown(() => srv.kill());
  const socket = await trickle(srv.port);
  t.teardown(() => socket.destroy());
  const code = exited(srv);
  srv.proc.kill('SIGTERM');
  t.equal(await code, 0, 'exit 0 once the open request is cut (after 5 s)');
  t.match(srv.output(), /stopped cleanly/);
});

t.test('a second signal stops at once; one within a second of the first is the same stop', async (t) => {
  const srv = await spawnServer();
  t.teardown(() => srv.kill());
  const socket = await trickle(srv.port);
  t.teardown(() => socket.destroy());
  const code = exited(srv);
  srv.proc.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 100));
  // A process group's copy of the signal (npm passes its own on): the same stop, still draining.
  srv.proc.kill('SIGINT');
  await new Promise((r) => setTimeout(r, 1100));
  t.equal(srv.proc.exitCode, null, 'a copy 100 ms after the first did not end it');
  t.match(srv.output(), /the same stop again/);
  const t0 = performance.now();
  srv.proc.kill('SIGINT');
  t.equal(await code, 1);
  t.ok(performance.now() - t0 < 2000, 'without waiting for the open request');
  t.match(srv.output(), /stopping at once \(second signal\)/);
});
