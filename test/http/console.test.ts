// The console's files over HTTP: the page with its security headers, revalidated by ETag; the
// hashed script and stylesheet cached for a year; gzip; a first visit under 60 KB compressed.
import zlib from 'node:zlib';
import t from 'tap';
import { spawnServer } from '../helpers/server.js';

t.test('the console is served from memory: ETag, gzip, long caching for hashed files, under 60 KB', async (t) => {
  const srv = await spawnServer();
  t.teardown(() => srv.stop());
  const page = await fetch(`${srv.url}/`, { headers: { 'accept-encoding': 'gzip' } });
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.equal(page.headers.get('cache-control'), 'no-cache', 'the page is revalidated');
  t.match(page.headers.get('content-security-policy'), /default-src 'self'.*frame-ancestors 'none'/);
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="(\/ui\/[^"]+)"/g)].map((m) => m[1]);
  // A script, a stylesheet, and the chunks the script imports at start (named so they are fetched
  // with it): pages opened now and then are fetched when first shown, and do not count.
  t.equal(assets.filter((a) => a.endsWith('.css')).length, 1, `one stylesheet: ${assets.join(', ')}`);
  t.equal([...html.matchAll(/<script type="module" src=/g)].length, 1, 'one script');
  t.ok(assets.length <= 12, `${assets.length} files at first load`);
  const again = await fetch(`${srv.url}/`, { headers: { 'if-none-match': page.headers.get('etag')! } });
  t.equal(again.status, 304, 'unchanged: 304');
  let compressed = Buffer.byteLength(zlib.gzipSync(html));
  for (const a of assets) {
    t.match(a, /-[A-Z0-9]{8}\.(js|css)$/, 'a content-hashed name');
    const raw = await fetch(`${srv.url}${a}`, { headers: { 'accept-encoding': 'identity' } });
    const body = Buffer.from(await raw.arrayBuffer());
    t.equal(raw.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const gz = await fetch(`${srv.url}${a}`, { headers: { 'accept-encoding': 'gzip, br' } });
    t.equal(gz.headers.get('content-encoding'), 'gzip');
    const length = Number(gz.headers.get('content-length'));
    t.ok(length < body.length, `${a}: ${body.length} bytes, ${length} gzipped`);
    compressed += length;
    t.equal((await fetch(`${srv.url}${a}`, { headers: { 'if-none-match': raw.headers.get('etag')! } })).status, 304);
  }
  t.ok(compressed < 60 * 1024, `first load ${compressed} bytes compressed (target < 60 KB)`);
  const missing = await fetch(`${srv.url}/ui/nothing.js`);
  t.equal(missing.status, 404);
  t.equal((await fetch(`${srv.url}/index.html`)).status, 200, '/index.html is the page too');
});
