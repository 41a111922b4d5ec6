// `npm start` runs Fanion as node itself (the shell of the script execs it, so signals reach node
// and nothing else stays resident), with glibc's malloc limited to two arenas unless the operator
// chose otherwise: docs/operations.md, "Memory".
import fs from 'node:fs';
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
    t.match(fs.readFileSync(`/proc/${children[0]}/cmdline`, 'utf8'), /dist\/src\/main\.js/);
    t.equal(environOf(children[0]).get('MALLOC_ARENA_MAX'), expected);
    t.equal((await fetch(`${srv.url}/health`)).status, 200);
  });
}
