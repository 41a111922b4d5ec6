// The start-up lines say which mode runs and where its flags come from (the data folder, the
// upstream), and nothing the mode does not have (a relay has no console). A cluster node's lines
// are checked against a real PostgreSQL in test/core/storage/postgres/settings.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli.js';
import { ROOT, spawnServer } from '../helpers/server.js';

/** The start-up lines of `output` (JSON), from the port opening to listening. */
function startLines(output: string): { msg: string; mode?: string; [k: string]: unknown }[] {
  return output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).filter((l) => /^port \d+ open|^Fanion listening/.test(l.msg));
}

t.test('the start-up lines say which mode runs and its source, and nothing a mode does not have', async (t) => {
  const server = await spawnServer();
  t.teardown(() => server.kill());
  const [open, listening] = startLines(server.output());
  t.match(open, { mode: 'server', dataDir: server.dataDir }, 'server: the port line names the mode and the data folder');
  t.match(open.msg, `replaying the data folder ${server.dataDir}`);
  t.match(listening, { mode: 'server', msg: `Fanion listening on port ${server.port}: a server on the data folder ${server.dataDir}; the console is at http://127.0.0.1:${server.port}/` });

  const upstream = 'http://127.0.0.1:9/some/path';
  const relay = await spawnServer({ env: { AUTH_TYPE: 'api-token', UPSTREAM_URL: upstream, TOKENS: 'default:development.start-line-token' } });
  t.teardown(() => relay.kill());
  const [rOpen, rListening] = startLines(relay.output());
  t.match(rOpen, { mode: 'relay', upstream, dataDir: relay.dataDir }, 'relay: the port line names the upstream');
  t.match(rListening, { mode: 'relay', upstream, msg: `Fanion listening on port ${relay.port}: a relay of the upstream ${upstream} (its copy in ${relay.dataDir})` });
  t.notMatch(relay.output(), /console is at|replaying the data folder/, 'a relay has no console, and its folder is its copy of the upstream');
  t.notMatch(relay.output(), /start-line-token/, 'no token in the log');
});

t.test('the listening line and fanion --version say the version of package.json', async (t) => {
  const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  t.match(version, /^\d+\.\d+\.\d+$/, 'a semantic version');
  const server = await spawnServer();
  t.teardown(() => server.kill());
  t.match(startLines(server.output())[1], { version, msg: /^Fanion listening/ });
  const cli = await runCli(['--version'], { timeoutMs: 10_000 });
  t.equal(cli.code, 0);
  t.equal(cli.stdout, `fanion ${version}\n`);
});
