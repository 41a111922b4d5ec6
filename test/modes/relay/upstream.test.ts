// The relay's HTTP client for its upstream (node:http, not fetch): gzip undone, the byte limit
// counted on what is unpacked, a timeout on an upstream that never answers, no redirect followed.
import http from 'node:http';
import zlib from 'node:zlib';
import t from 'tap';
import { DepthGuard, MAX_JSON_DEPTH, parseJsonInSlices, Upstream, UpstreamError } from '../../../src/modes/relay/upstream.js';

async function upstreamServer(t: { teardown(fn: () => unknown): void }, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const upstreamAt = (baseUrl: string, maxBytes = 1024 * 1024, timeoutMs = 2000) =>
  new Upstream({ baseUrl, timeoutMs, customHeaders: [['X-Team', 'a']], authHeader: 'Authorization', appName: 'relay', instanceId: 'i-1', maxBytes });

t.test('a gzip answer is unpacked, with the identity headers and the ETag', async (t) => {
  let seen: http.IncomingHttpHeaders = {};
  const url = await upstreamServer(t, (req, res) => {
    seen = req.headers;
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', etag: '"e1"' });
    res.end(zlib.gzipSync(JSON.stringify({ version: 1, features: [{ name: 'a' }] })));
  });
  const answer = await upstreamAt(url).get('/api/client/features', 'tok', '"e0"');
  t.same([answer.status, answer.etag, answer.body], [200, '"e1"', { version: 1, features: [{ name: 'a' }] }]);
  t.same([seen.authorization, seen['if-none-match'], seen['accept-encoding'], seen['unleash-appname'], seen['x-team']], ['tok', '"e0"', 'gzip', 'relay', 'a']);
});

t.test('the byte limit counts what is unpacked: a small gzip bomb is refused', async (t) => {
  const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 32));
  t.ok(bomb.length < 100 * 1024, `${bomb.length} bytes compressed`);
  const url = await upstreamServer(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...(req.url === '/bomb' ? { 'content-encoding': 'gzip' } : {}) });
    res.end(req.url === '/bomb' ? bomb : Buffer.alloc(2 * 1024 * 1024, 32));
  });
  const up = upstreamAt(url);
  for (const path of ['/bomb', '/plain']) {
    const err = await up.get(path, 'tok').then(() => null, (e: unknown) => e);
    t.ok(err instanceof UpstreamError && /larger than 1048576 bytes/.test(err.message), `${path}: ${(err as Error)?.message}`);
  }
});

t.test('an upstream that never answers: a timeout, not a hang; a redirect is an answer, not followed', async (t) => {
  const url = await upstreamServer(t, (req, res) => {
    if (req.url === '/moved') {
      res.writeHead(301, { location: 'http://169.254.169.254/' });
      res.end();
    } else if (req.url === '/half') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"version":');
    }
  });
  const up = upstreamAt(url, 1024 * 1024, 300);
  for (const path of ['/silent', '/half']) {
    const t0 = performance.now();
    const err = await up.get(path, 'tok').then(() => null, (e: unknown) => e);
    t.ok(err instanceof UpstreamError && /no answer within 300 ms/.test(err.message), `${path}: ${(err as Error)?.message}`);
    t.ok(performance.now() - t0 < 2000, 'given up on time');
  }
  t.equal((await up.get('/moved', 'tok')).status, 301);
  const stop = new AbortController();
  const pending = up.get('/silent', 'tok', null, stop.signal).then(() => null, (e: unknown) => e);
  stop.abort();
  t.match((await pending as Error).message, /aborted/, 'a stop cuts it at once');
});

t.test('JSON nesting is followed across pieces, strings and escapes included, and refused past the bound', async (t) => {
  const feed = (pieces: (string | Buffer)[]) => {
    const g = new DepthGuard(3);
    for (const p of pieces) g.feed(p);
  };
  t.doesNotThrow(() => feed(['{"a":[[1]]}']), 'three levels');
  t.throws(() => feed(['{"a":[[[1]]]}']), /nested deeper than 3 levels/);
  t.doesNotThrow(() => feed(['{"a":"[[[[[{{{{"}']), 'brackets inside a string do not count');
  t.doesNotThrow(() => feed(['{"a":"x\\', '"[[[[', '"}']), 'an escaped quote (its backslash in the chunk before) does not end a string');
  t.throws(() => feed(['{"a":"x\\\\', '",[[[1]]]]}']), /nested deeper/, 'after an escaped backslash, a quote does');
  t.throws(() => feed([Buffer.from('{"a":[['), Buffer.from('[1]]]}')]), /nested deeper/, 'counted across chunks');
  const ok = `{"features":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
  t.same(await parseJsonInSlices(ok), JSON.parse(ok), `${MAX_JSON_DEPTH} levels parse`);
  await t.rejects(parseJsonInSlices(`{"features":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`), /nested deeper/);
  const big = JSON.stringify({ features: Array.from({ length: 5000 }, (_, i) => ({ name: `f-${i}`, description: 'é'.repeat(i % 7) })) });
  t.same(await parseJsonInSlices(big), JSON.parse(big), 'a long string parsed in pieces gives what JSON.parse gives');
  const bytes = Buffer.from(big);
  t.same(await parseJsonInSlices([bytes.subarray(0, 100_001), bytes.subarray(100_001)]), JSON.parse(big), 'and chunks cut inside a character too');
  // The streaming parser alone took these as closed after their last whole element (a hydration
  // cut short would have removed flags).
  for (const cut of ['{"features":[{"name":"a"}', '{"features":[{"name":"a"},{"name":"b"}', '[1,[2]']) {
    await t.rejects(parseJsonInSlices(cut), /truncated/, `a truncated text is refused: ${cut}`);
    await t.rejects(parseJsonInSlices([Buffer.from(cut)]), /truncated/, 'as chunks too');
  }
  for (const cut of ['{"features":[{"name":"a"},', '{"features":[{"name":"a\\"}]}']) await t.rejects(parseJsonInSlices(cut), `cut elsewhere, refused too: ${cut}`);
});
