// Clients that open a stream or a delta poll and never read (issue #26, item 3). Over a 5 MB flag
// set each used to pin its own copy of the hydration (200 streams: +1 GB); they now hold
// references to one shared Buffer, also when their filters differ but select the same flags. A
// stalled stream is let go once its first frame counts against its allowance, and one token
// cannot take every stream.
import net from 'node:net';
import t from 'tap';
import { loadConfig } from '../../../src/core/config.js';
import { rssOf } from '../../helpers/hostile.js';
import { serve, type Spawned } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';
import { syncedSdk } from '../../helpers/unleash-sdk.js';

const ADMIN = '*:*.stalled-admin';
const CLIENT = '*:development.stalled-client';
const P = '/api/admin/projects/default/features';
const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT };
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** ~5 MB of flags in one import: 1,000 flags on in development, each with a 4,900-character description. */
const bigState = {
  version: 4,
  features: Array.from({ length: 1000 }, (_, i) => ({ name: `big-${i}`, project: 'default', description: `${i}`.padEnd(4900, 'd') })),
  featureEnvironments: Array.from({ length: 1000 }, (_, i) => ({ featureName: `big-${i}`, environment: 'development', enabled: true })),
};

/** A socket that asks for `path` and then reads nothing, ever. */
function stalled(srv: Spawned, path: string, token = CLIENT): net.Socket {
  const s = net.connect(srv.port, '127.0.0.1');
  s.on('error', () => {});
  s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${token}\r\nAccept: text/event-stream\r\n\r\n`);
  s.pause();
  return s;
}

/**
 * Like `stalled`, once the server has started its answer: the socket reads what one buffer of its
 * own holds (16 kB) and no more, which is still not reading a 5 MB first frame.
 */
function stalledAnswered(srv: Spawned, path: string): Promise<net.Socket> {
  const s = stalled(srv, path);
  return new Promise((resolve) => s.once('readable', () => resolve(s)));
}

async function openStreams(srv: Spawned): Promise<number> {
  const text = await (await fetch(`${srv.url}/internal-backstage/prometheus`, { headers: { authorization: ADMIN } })).text();
  return Number(/^streaming_connections (\d+)/m.exec(text)?.[1] ?? NaN);
}

async function until(what: string, fn: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await fn())) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

t.test('200 stalled streams and 200 stalled delta polls over a 5 MB flag set share its bytes; a reading SDK goes on', async (t) => {
  const { srv, ok } = await serve(t, { env, authorization: ADMIN });
  await ok('POST', '/api/admin/state/import', bigState);
  const pid = srv.proc.pid!;
  await sleep(300);
  const before = rssOf(pid);
  const sockets: net.Socket[] = [];
  t.teardown(() => sockets.forEach((s) => s.destroy()));
  for (let i = 0; i < 200; i++) {
    // Half of them ask for a filter of their own that selects the same flags (a project that does
    // not exist): the same bytes, so the same Buffer.
    const query = i % 2 ? `?project=default&project=nowhere-${i}` : '';
    sockets.push(stalled(srv, `/api/client/streaming${query}`), stalled(srv, `/api/client/delta${query}`));
  }
  await until('200 open streams', async () => (await openStreams(srv)) === 200, 60_000);
  let most = rssOf(pid);
  for (let i = 0; i < 20; i++) {
    await sleep(100);
    most = Math.max(most, rssOf(pid));
  }
  const added = (most - before) / MB;
  const delta = await fetch(`${srv.url}/api/client/delta`, { headers: { authorization: CLIENT } });
  const size = (await delta.arrayBuffer()).byteLength / MB;
  t.ok(size > 4.9, `the flag set's hydration is ${size.toFixed(2)} MB`);
  t.equal(await openStreams(srv), 200, 'the stalled streams are all still held while measured');
  t.comment(`server RSS ${Math.round(before / MB)} MB → at most ${Math.round(most / MB)} MB with 400 stalled clients`);
  // Before: +1,027 MB for the 200 streams alone (a copy each).
  t.ok(added < 300, `200 stalled streams and 200 stalled delta answers added ${added.toFixed(0)} MB (< 300 MB)`);
  // Gone before the server stops, which would wait for the answers they never read.
  sockets.forEach((s) => s.destroy());

  // An SDK that reads gets its hydration and the next change.
  const u = await syncedSdk(t, srv.url, { token: CLIENT, mode: { type: 'streaming' }, refreshInterval: 60_000, appName: 'reader', syncMs: 15_000 });
  t.ok(u.isEnabled('big-7'), 'the SDK has the 5 MB flag set');
  await ok('POST', `${P}/big-7/environments/development/off`);
  const changed = Date.now();
  while (u.isEnabled('big-7') && Date.now() - changed < 5000) await sleep(5);
  t.notOk(u.isEnabled('big-7'), `and the change after it (${Date.now() - changed} ms)`);
});

t.test('a stalled stream is let go once its first frame counts, whatever revision it holds', async (t) => {
  // A small allowance: what the kernel's buffers take of the 5 MB frame never counts, and must not decide.
  const { srv, api, ok } = await serve(t, { env: { ...env, STREAMING_KEEPALIVE_MS: '400', STREAMING_BUFFER_BYTES: '262144' }, authorization: ADMIN });
  await ok('POST', '/api/admin/state/import', bigState);
  const reader = await openStream(srv.url, { authorization: CLIENT });
  await reader.next(undefined, 15_000);
  t.teardown(() => reader.close());
  // Each stalled stream connects at another revision: each holds a hydration no later stream shares.
  const sockets: net.Socket[] = [];
  t.teardown(() => sockets.forEach((s) => s.destroy()));
  for (let i = 0; i < 4; i++) {
    await ok('POST', `${P}/big-${i}/environments/development/off`);
    sockets.push(await stalledAnswered(srv, '/api/client/streaming'));
  }
  t.match(sockets.map((s) => s.read(15)?.toString()), Array(4).fill('HTTP/1.1 200 OK'), 'each was answered: a stream');
  const started = Date.now();
  await until('the stalled streams to be let go', async () => (await openStreams(srv)) === 1, 10_000);
  t.pass(`the four stalled streams were let go ${Date.now() - started} ms later (keep-alive every 400 ms)`);
  await api('POST', `${P}/big-9/environments/development/off`);
  const frame = await reader.next((f) => f.comment === null && JSON.stringify(f.data).includes('"big-9"'));
  t.same(frame.data.events.map((e: any) => [e.feature.name, e.feature.enabled]), [['big-9', false]], 'the reading stream stayed and got the next change');
  sockets.forEach((s) => s.destroy());
});

t.test('one token holds at most STREAMING_MAX_CONNECTIONS_PER_TOKEN streams; another token still gets one', async (t) => {
  t.equal(loadConfig({}).streaming.maxConnectionsPerToken, 1000, 'a tenth of STREAMING_MAX_CONNECTIONS by default');
  t.equal(loadConfig({ STREAMING_MAX_CONNECTIONS: '55' }).streaming.maxConnectionsPerToken, 6);
  t.throws(() => loadConfig({ STREAMING_MAX_CONNECTIONS_PER_TOKEN: '0' }), /STREAMING_MAX_CONNECTIONS_PER_TOKEN must be at least 1/);

  const { srv, ok } = await serve(t, { env: { ...env, STREAMING_MAX_CONNECTIONS_PER_TOKEN: '3' }, authorization: ADMIN });
  const other = (await ok('POST', '/api/admin/api-tokens', { tokenName: 'other', type: 'client', environment: 'development', projects: ['*'] })).secret;
  const mine = await Promise.all([0, 1, 2].map(() => openStream(srv.url, { authorization: CLIENT })));
  t.same(mine.map((s) => s.status), [200, 200, 200]);
  const refused = await openStream(srv.url, { authorization: CLIENT });
  t.equal(refused.status, 429, 'the fourth of one token is refused (the SDK polls instead)');
  t.equal(refused.body.name, 'TooManyStreamsError');
  t.match(refused.body.message, /STREAMING_MAX_CONNECTIONS_PER_TOKEN/);
  const theirs = await openStream(srv.url, { authorization: other });
  t.equal(theirs.status, 200, 'another token (same scope) still gets a stream');
  mine[0].close();
  await until('the closed stream to be counted out', async () => (await openStreams(srv)) === 3, 5000);
  const again = await openStream(srv.url, { authorization: CLIENT });
  t.equal(again.status, 200, 'a slot of the token, freed, can be taken again');
  for (const s of [...mine, theirs, again]) s.close();
});
