// The reader's bounds, in process with small limits: an answer too large (declared or streamed),
// one that never comes, 429s waited out (Retry-After obeyed) or given up on, and the addresses
// people paste (with /api, a trailing slash, a base path).
import t from 'tap';
import { SchemaRegistry } from '../../../src/http/validation.js';
import { JsonShape, MigrationError, normalizeUrl, readUnleash, type ReaderOptions } from '../../../src/modes/migrate/reader.js';
import { unleashAnswers } from '../../../src/modes/migrate/unleash-answers.js';
import { FAKE_ADMIN_TOKEN, fakeUnleash } from '../../helpers/fake-unleash.js';

const schemas = new SchemaRegistry();
schemas.addAll(unleashAnswers);

function options(url: string, lines: string[], limits: ReaderOptions['limits'] = {}): ReaderOptions {
  return { url, token: FAKE_ADMIN_TOKEN, check: (schema, data) => schemas.check(schema, data), progress: (l) => lines.push(l), limits };
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof MigrationError) return err.message;
    throw err;
  }
  throw new Error('it did not fail');
}

t.test('addresses: /api and trailing slashes are dropped, a base path is kept, the rest is refused', async (t) => {
  t.equal(normalizeUrl('https://unleash.example.com/api/'), 'https://unleash.example.com');
  t.equal(normalizeUrl('https://unleash.example.com/'), 'https://unleash.example.com');
  t.equal(normalizeUrl('http://host:4242/unleash/api'), 'http://host:4242/unleash');
  t.throws(() => normalizeUrl('unleash.example.com'), /--from must be the address of the Unleash server/);
  t.throws(() => normalizeUrl('https://admin:pw@unleash.example.com'), /must not carry a user name or password/);
});

t.test("an answer's depth and values are counted on its bytes, strings skipped, however it is cut into chunks", async (t) => {
  const text = '{"a":[1,2,{"b":"x[{,\\"]}"}],"c":[[[]]],"d":"\\\\"}';
  t.same(JSON.parse(text).d, '\\', 'the text parses (an escaped backslash ends a string)');
  for (const size of [1, 2, 3, 7, text.length]) {
    const shape = new JsonShape();
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += size) t.ok(shape.feed(bytes.subarray(i, i + size), 10));
    t.same([shape.deepest, shape.depth, shape.values], [4, 0, 10], `chunks of ${size} byte(s): 4 deep, 10 values`);
  }
  const deep = new JsonShape();
  t.notOk(deep.feed(Buffer.from('['.repeat(33)), 32), 'past the depth it stops');
  t.equal(deep.deepest, 33);
});

t.test('an answer larger than the limit is refused, whether its size is declared or streamed', async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  const lines: string[] = [];
  t.match(await failure(readUnleash(options(fake.url, lines, { answerBytes: 1000 }))), /^GET \/api\/admin\/projects\/shop\/features\/checkout\?variantEnvironments=true: the answer is \d+ bytes, more than the 1000 bytes read at most$/, 'declared');
  fake.override((_req, res, p) => {
    if (p !== '/api/admin/segments') return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = '{"segments":[' + '{"id":1,"name":"x"},'.repeat(400);
    res.write(chunk);
    res.write(chunk); // never ends: the reader must stop counting at the limit, not wait
    return true;
  });
  t.match(await failure(readUnleash(options(fake.url, lines, { answerBytes: 10_000 }))), /^GET \/api\/admin\/segments: the answer is more than the 10000 bytes read at most$/, 'streamed without a length');
});

t.test('an answer that does not come in time ends the run', async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  fake.override((_req, _res, p) => p === '/api/admin/tags');
  const started = Date.now();
  const message = await failure(readUnleash(options(fake.url, [], { timeoutMs: 300 })));
  t.match(message, /^cannot reach Unleash at http:\/\/127\.0\.0\.1:\d+ \(GET \/api\/admin\/tags: no answer within 0\.3 s\)$/);
  t.ok(Date.now() - started < 10_000, 'within the timeout, not the default');
});

t.test('429 and 503 are waited out as Retry-After says, and given up on after the last try', async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  let refusals = 2;
  fake.override((_req, res, p) => {
    if (p !== '/api/admin/search/features' || refusals === 0) return false;
    refusals--;
    res.writeHead(429, { 'retry-after': '0' });
    res.end();
    return true;
  });
  const lines: string[] = [];
  const read = await readUnleash(options(fake.url, lines));
  t.equal(read.flags.filter((f) => f.archived).length, 1, 'the archived flag is read after two 429s');
  t.equal(lines.filter((l) => /Unleash answered 429 to GET \/api\/admin\/search\/features\?archived=IS:true.*; trying again in 0\.1 s \(\d\/5\)/.test(l)).length, 2, 'each wait is shown');
  fake.override((_req, res, p) => {
    if (p !== '/api/admin/environments') return false;
    res.writeHead(503, { 'retry-after': '0' });
    res.end();
    return true;
  });
  t.match(await failure(readUnleash(options(fake.url, [], { tries: 3 }))), /^GET \/api\/admin\/environments answered 503$/, 'the last try fails the run');
});

t.test('a flag deleted between the listing and its definition is left out and listed', async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  fake.override((_req, res, p) => {
    if (p !== '/api/admin/projects/default/features/banner') return false;
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"message":"Could not find feature flag with name banner"}');
    return true;
  });
  const read = await readUnleash(options(fake.url, []));
  t.same(read.vanished, ['banner']);
  t.notOk(read.flags.some((f) => f.name === 'banner'));
});

t.test('a segment deleted while the flags are read is kept for a flag read with it; an unused one is not', async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  const unused = { id: 2, name: 'never used', constraints: [] };
  let reads = 0;
  fake.override((_req, res, p) => {
    if (p !== '/api/admin/segments') return false;
    // First read: both exist; by the second, both were deleted (with the flag's last use of 1).
    const segments = reads++ === 0 ? [...fake.world.segments, unused] : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ segments }));
    return true;
  });
  const read = await readUnleash(options(fake.url, []));
  t.equal(reads, 2, 'segments are read before and after the flags');
  t.same(read.segments.map((x) => x.id), [1], 'segment 1, which checkout was read with, stays; segment 2 does not');
});

t.test('an archived flag is read environment by environment, only where the search says there is something', async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  const read = await readUnleash(options(fake.url, []));
  const old = read.flags.find((f) => f.name === 'old-promo')!;
  t.equal(old.archived, true);
  t.same(old.environments!.map((e) => [e.name, e.enabled, e.strategies!.map((s) => s.id)]), [['development', true, ['01J0000000000000000000000E']], ['production', false, []], ['staging', false, []]]);
  t.same(fake.hits.filter((h) => h.includes('/old-promo/environments/')), ['/api/admin/projects/default/features/old-promo/environments/development', '/api/admin/projects/default/features/old-promo/environments/development/variants'], 'two requests, not six');
});

t.test("tags come with Unleash 8's flag lists; an Unleash that does not list them is asked flag by flag", async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  const tagsOf = (r: Awaited<ReturnType<typeof readUnleash>>) => Object.fromEntries([...r.flagTags].map(([k, v]) => [k, v.map((x) => `${x.type}:${x.value}`)]));
  const listed = await readUnleash(options(fake.url, []));
  t.same(tagsOf(listed), { checkout: ['team:payments'], banner: ['simple:ui'], 'old-promo': [] });
  t.same(fake.hits.filter((h) => h.endsWith('/tags') && h.startsWith('/api/admin/features/')), [], 'no request per flag');
  fake.world.listsTags = false;
  fake.hits.length = 0;
  const asked = await readUnleash(options(fake.url, []));
  t.same(tagsOf(asked), tagsOf(listed), 'the same tags');
  t.same(fake.hits.filter((h) => h.endsWith('/tags') && h.startsWith('/api/admin/features/')).sort(), ['/api/admin/features/banner/tags', '/api/admin/features/checkout/tags'], 'one request per flag');
});

t.test('a flag archived while it is read comes over once, archived, and is not reported as deleted', async (t) => {
  const fake = await fakeUnleash();
  t.teardown(() => fake.close());
  // Listed as live, then archived before its definition is asked for.
  fake.override((_req, _res, p) => {
    if (p === '/api/admin/projects/default/features/banner') fake.world.flags[1].archivedAt = '2025-06-01T00:00:00.000Z';
    return false;
  });
  const read = await readUnleash(options(fake.url, []));
  t.same(read.flags.filter((f) => f.name === 'banner').map((f) => f.archived), [true]);
  t.same(read.vanished, []);
});
