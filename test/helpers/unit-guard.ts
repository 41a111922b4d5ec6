// Loaded into every test process (tap's node-arg `--import`, see package.json). In a
// `*.unit.test.js` file it makes the fast tier's promise hold at run time: such a test may not
// start a process, listen on or connect to a socket, or ask a resolver. Each attempt throws and is
// also remembered, and the process then exits in error, so a test that catches the throw (one that
// expects a connection to fail, say) still fails the run. Other test files are left alone.
import childProcess from 'node:child_process';
import dns from 'node:dns';
import module from 'node:module';
import net from 'node:net';

const file = process.argv[1] ?? '';
if (/\.unit\.test\.js$/.test(file)) {
  const seen: string[] = [];
  const refuse = (what: string) => {
    seen.push(what);
    throw new Error(`${what} in a unit test: *.unit.test files run without processes, sockets or lookups (see CONTRIBUTING.md); move the test out of the unit tier or take the I/O out of it`);
  };
  const trap = (target: Record<string, unknown>, names: string[], label: string) => {
    for (const name of names) target[name] = () => refuse(`${label}.${name}()`);
  };

  trap(childProcess as unknown as Record<string, unknown>, ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'], 'child_process');
  // http(s) servers, fetch, pg and tls all come down to these two.
  trap(net.Server.prototype as unknown as Record<string, unknown>, ['listen'], 'a server');
  trap(net.Socket.prototype as unknown as Record<string, unknown>, ['connect'], 'a socket');
  const lookups = (m: object) => Object.keys(m).filter((k) => /^(lookup|resolve)/.test(k));
  trap(dns as unknown as Record<string, unknown>, lookups(dns), 'dns');
  trap(dns.promises as unknown as Record<string, unknown>, lookups(dns.promises), 'dns.promises');
  // `import { spawn } from 'node:child_process'` reads the ES module's own copy of the export.
  module.syncBuiltinESMExports();

  process.on('exit', () => {
    if (seen.length === 0) return;
    process.stderr.write(`unit tier broken by ${file}: ${[...new Set(seen)].join(', ')}\n`);
    process.exitCode = 1;
  });
}
