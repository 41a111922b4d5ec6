// `npm start` runs Fanion as node itself (the shell of the script execs it, so signals reach node
// and nothing else stays resident), with glibc's malloc limited to two arenas unless the operator
// chose otherwise: docs/decisions/0007-malloc-arenas.md. A stop sent to its whole process group (npm and
// node both get it, and npm passes its copy on) drains like one signal.
import fs from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { spawnServer } from '../helpers/server.js';

const NPM_START = ['npm', 'start', '--silent'];
const NPM_ENV = { HOME: process.env.HOME ?? '/root' };

/** The direct children of `pid`, from /proc (every thread's list). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (text) out.push(...text.split(/\s+/).map(Number));
  }
  return out;
}

function environOf(pid: number): Map<string, string> {
  const entries = fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean);
  return new Map(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

for (const [chosen, expected] of [[undefined, '2'], ['8', '8']] as const) {
  t.test(`npm start${chosen ? ` with MALLOC_ARENA_MAX=${chosen}` : ''}: node is npm's child, with MALLOC_ARENA_MAX=${expected}`, async (t) => {
    const srv = await spawnServer({ command: NPM_START, env: { ...NPM_ENV, ...(chosen ? { MALLOC_ARENA_MAX: chosen } : {}) } });
    t.teardown(() => srv.stop());
    const children = childrenOf(srv.proc.pid!);
    t.equal(children.length, 1, 'npm runs one process');
    const exe = fs.readlinkSync(`/proc/${children[0]}/exe`);
    t.match(exe, /\/node$/, `that process is node itself, not a shell waiting for it (${exe})`);
    t.match(fs.readFileSync(`/proc/${children[0]}/cmdline`, 'utf8'), /dist\/src\/entry\/main\.js/);
    t.equal(environOf(children[0]).get('MALLOC_ARENA_MAX'), expected);
    t.equal((await fetch(`${srv.url}/health`)).status, 200);
  });
}

t.test('a stop sent to npm start\'s process group drains: the request in flight is answered, exit 0', async (t) => {
  // What Ctrl-C in a terminal, systemd's KillMode=control-group and `kill -TERM -- -<pgid>` do:
  // npm and node both get the signal, and npm passes its own on to node, so node hears it twice.
  const srv = await spawnServer({ command: NPM_START, env: NPM_ENV, detached: true });
  t.teardown(() => srv.killGroup());
  const node = childrenOf(srv.proc.pid!)[0];
  const socket = net.connect(srv.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const body = JSON.stringify({ name: 'sent-during-the-stop' });
  let answer = '';
  socket.on('data', (d) => (answer += d.toString()));
  socket.on('error', () => {});
  socket.write(`POST /api/admin/projects/default/features HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
  await new Promise((r) => setTimeout(r, 200));
  const nodeGone = new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (!fs.existsSync(`/proc/${node}`) || /^State:\s+Z/m.test(fs.readFileSync(`/proc/${node}/status`, 'utf8'))) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
  const code = new Promise<number | null>((resolve) => srv.proc.once('exit', (c) => resolve(c)));
  process.kill(-srv.proc.pid!, 'SIGTERM');
  // The request is still arriving when the stop comes; it finishes 500 ms later and is answered.
  await new Promise((r) => setTimeout(r, 500));
  socket.write(body.slice(5));
  const finished = await Promise.race([code.then(() => 'exited'), new Promise((r) => setTimeout(() => r('running'), 300))]);
  t.equal(finished, 'running', 'npm start has not exited 800 ms after the stop: it waits for the request');
  await Promise.race([nodeGone, new Promise((r) => setTimeout(r, 10_000))]);
  t.match(answer, /^HTTP\/1\.1 201 /, `the request in flight was answered 201 (got ${JSON.stringify(answer.slice(0, 40))})`);
  t.equal(await code, 0, 'npm start exits 0');
  t.match(srv.output(), /stopped cleanly/);
  t.notMatch(srv.output(), /stopping at once/, 'the second copy of the signal did not force an exit');
  socket.destroy();
  const again = await spawnServer({ dataDir: srv.dataDir });
  t.teardown(() => again.stop());
  t.equal((await fetch(`${again.url}/api/admin/projects/default/features/sent-during-the-stop`)).status, 200, 'and what it acknowledged is there after a restart');
});
