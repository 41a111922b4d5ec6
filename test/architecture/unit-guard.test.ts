// test/helpers/unit-guard.ts, loaded into every test process, refuses processes, sockets and
// lookups in a *.unit.test.js file, and fails the file even when the test swallows the error.
// Each case runs a small script under the guard, as tap runs a test file.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { ROOT, tempDataDir } from '../helpers/paths.js';

const GUARD = pathToFileURL(path.join(ROOT, 'dist/test/helpers/unit-guard.js')).href;

function run(name: string, body: string) {
  const file = path.join(tempDataDir('fanion-unit-guard-'), name);
  fs.writeFileSync(file, body);
  const r = spawnSync(process.execPath, [`--import=${GUARD}`, file], { encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stderr: r.stderr };
}

// Each attempt is caught, as a test expecting a failure would, and the script then exits 0 itself.
const attempts: Record<string, string> = {
  'a listening server': `import http from 'node:http'; try { http.createServer().listen(0); } catch {}`,
  'a process': `import { spawn } from 'node:child_process'; try { spawn('true'); } catch {}`,
  'a synchronous process': `import cp from 'node:child_process'; try { cp.execFileSync('true'); } catch {}`,
  'a connection (fetch)': `try { await fetch('http://127.0.0.1:65535/'); } catch {}`,
  'a lookup': `import dns from 'node:dns/promises'; try { await dns.lookup('localhost'); } catch {}`,
};

t.test('in a unit test file, each attempt fails the file even when caught', async (t) => {
  for (const [what, body] of Object.entries(attempts)) {
    const r = run('probe.unit.test.js', `${body}\nprocess.exitCode = 0;\n`);
    t.equal(r.status, 1, `${what}: the file fails`);
    t.match(r.stderr, /unit tier broken by .*probe\.unit\.test\.js: /, `${what}: and says why`);
  }
});

t.test('pure work passes, and other test files are left alone', async (t) => {
  t.equal(run('pure.unit.test.js', `import zlib from 'node:zlib'; zlib.gzipSync('x');`).status, 0, 'a unit file without I/O');
  const server = run('server.test.js', `import http from 'node:http'; const s = http.createServer().listen(0, '127.0.0.1', () => s.close());`);
  t.equal(server.status, 0, 'an ordinary test file may listen');
  t.equal(server.stderr, '');
});
