// The Unleash Proxy (npm @unleash/proxy), unchanged, in front of Fanion: started in its own
// process with a Fanion client token, it serves frontend SDK calls, and a change made on Fanion
// is seen through the proxy within its refresh interval.
import { spawn } from 'node:child_process';
import t from 'tap';
import { client, ROOT, serve } from '../../helpers/server.js';

const ADMIN = '*:*.proxy-admin';
const CLIENT = 'default:development.proxy-client';
const PROXY_KEY = 'proxy-client-key';
const F = '/api/admin/projects/default/features';
const REFRESH_MS = 500;

// The proxy's own createApp, listening on a free port; nothing of it is changed.
const LAUNCHER = `
const { createApp } = require('@unleash/proxy');
const app = createApp({
  unleashUrl: process.env.FANION_URL + '/api/', unleashApiToken: process.env.FANION_TOKEN,
  clientKeys: [process.env.PROXY_KEY], refreshInterval: ${REFRESH_MS}, metricsInterval: 60000, logLevel: 'error',
});
const server = app.listen(0, '127.0.0.1', () => console.log('PROXY PORT ' + server.address().port));
`;

t.test('@unleash/proxy against Fanion: frontend calls through it see Fanion changes', async (t) => {
  const { srv, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  await ok('POST', F, { name: 'through-proxy' });
  await ok('POST', `${F}/through-proxy/environments/development/strategies`, {
    name: 'flexibleRollout', parameters: { rollout: '100' }, constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }],
  });
  await ok('POST', `${F}/through-proxy/environments/development/on`);

  const proxy = spawn(process.execPath, ['-e', LAUNCHER], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', FANION_URL: srv.url, FANION_TOKEN: CLIENT, PROXY_KEY }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => proxy.kill('SIGKILL'));
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /PROXY PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    proxy.stdout!.on('data', onData);
    proxy.stderr!.on('data', onData);
    proxy.once('exit', (code) => reject(new Error(`the proxy exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`the proxy did not start: ${out}`)), 15_000).unref();
  });
  const front = client(`http://127.0.0.1:${port}`, { authorization: PROXY_KEY });
  const toggles = async (userId: string) => {
    const res = await front('GET', `/proxy?userId=${userId}`);
    if (res.status !== 200) return null;
    return res.json.toggles.map((x: any) => x.name);
  };
  const until = async (what: string, test: () => Promise<boolean>, ms: number) => {
    const started = Date.now();
    while (Date.now() - started < ms) {
      if (await test()) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  await until('the proxy to load Fanion\'s flags', async () => (await toggles('u1'))?.includes('through-proxy') === true, 10_000);
  t.same(await toggles('u1'), ['through-proxy'], 'on for the user the constraint names');
  t.same(await toggles('u2'), [], 'off for another user');
  t.equal((await client(`http://127.0.0.1:${port}`)('GET', '/proxy?userId=u1')).status, 401, 'the proxy wants its own key');

  await ok('POST', `${F}/through-proxy/environments/development/off`);
  const seenOff = await until('the change to reach the proxy', async () => (await toggles('u1'))?.length === 0, REFRESH_MS * 6);
  t.ok(seenOff <= REFRESH_MS * 3, `a change on Fanion is seen through the proxy after ${seenOff} ms (refresh interval ${REFRESH_MS} ms)`);
  // Stopped before Fanion is, so Fanion's shutdown does not wait on the proxy's open connection.
  const exited = new Promise((r) => proxy.once('exit', r));
  proxy.kill('SIGKILL');
  await exited;
});
