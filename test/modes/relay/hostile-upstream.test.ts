// An upstream that answers within the byte limit but with what would stall the relay: 60 MB of
// nested arrays, 150,000 flags. The relay reads and applies upstream answers in slices, refuses one
// nested deeper than it allows or with more flags than it takes (a log line says which), and keeps
// serving what it had; meanwhile /health, polled every 50 ms, answers within half a second. A large
// answer within the bounds is applied the same way, in slices.
import t from 'tap';
import { rssOf } from '../../helpers/hostile.js';
import { startRelay, waitFor, waitReady } from '../../helpers/relay.js';
import { featuresBody, scriptedUpstream, simpleFlag, watchLatency, type ScriptedUpstream } from '../../helpers/scripted-upstream.js';
import { MAX_UPSTREAM_FLAGS } from '../../../src/modes/relay/remote.js';

const TOKEN = '*:development.scripted-client';
const MAX_LATENCY_MS = 500;
const MAX_RSS_GROWTH = 400 * 1024 * 1024;

async function names(url: string): Promise<string[]> {
  const res = await fetch(`${url}/api/client/features`, { headers: { authorization: TOKEN } });
  return ((await res.json()) as { features: { name: string }[] }).features.map((f) => f.name).sort();
}

/** Serves `body` from now on, and waits until the relay has fetched it and asked again (it is done with it). */
async function serveWhileWatching(up: ScriptedUpstream, relay: { url: string; proc: { pid?: number } }, body: Buffer, etag: string) {
  const watch = watchLatency(`${relay.url}/health`, relay.proc.pid!, rssOf);
  const before = up.counts.get('/api/client/features') ?? 0;
  up.features = { body, etag };
  await waitFor(() => (up.counts.get('/api/client/features') ?? 0) >= before + 2, 'the relay to fetch the answer and poll again', 60_000, 50);
  return watch.stop();
}

t.test('a hostile upstream does not stall the relay, and its answer is refused', async (t) => {
  const up = await scriptedUpstream(t, { [TOKEN]: { type: 'client', projects: ['*'], environment: 'development' } });
  up.features = { body: featuresBody([simpleFlag('kept-1'), simpleFlag('kept-2')]), etag: '"good"' };
  // Time enough to read all of a large answer: the flags bound, not the timeout, must refuse it.
  const relay = await startRelay(t, up.url, { tokens: [TOKEN], protocol: 'polling', refresh: 1, env: { UPSTREAM_REQUEST_TIMEOUT: '30' } });
  await waitReady(relay.url);
  t.same(await names(relay.url), ['kept-1', 'kept-2']);
  const baseline = rssOf(relay.proc.pid!);

  // (a) 60 MB of nested arrays, within the relay's 64 MiB answer limit.
  const depth = 30_000_000 - 7;
  const nested = Buffer.alloc(12 + 2 * depth + 1);
  nested.write('{"features":');
  nested.fill('[', 12, 12 + depth);
  nested.fill(']', 12 + depth, 12 + 2 * depth);
  nested.write('}', 12 + 2 * depth);
  const a = await serveWhileWatching(up, relay, nested, '"nested"');
  t.ok(a.maxMs < MAX_LATENCY_MS, `60 MB of nested arrays: /health answered within ${a.maxMs} ms at worst (${a.polls} polls, under ${MAX_LATENCY_MS} ms)`);
  t.equal(a.failures, 0, 'every /health poll answered 200');
  t.ok(a.maxRss - baseline < MAX_RSS_GROWTH, `RSS at most ${Math.round(a.maxRss / 2 ** 20)} MB (${Math.round((a.maxRss - baseline) / 2 ** 20)} MB over the ${Math.round(baseline / 2 ** 20)} MB before)`);
  t.match(relay.output(), /nested deeper than 64/, 'a log line says why the answer was refused');
  t.same(await names(relay.url), ['kept-1', 'kept-2'], 'the relay serves what it had');

  // (b) 150,000 flags.
  const many = featuresBody(Array.from({ length: 150_000 }, (_, i) => simpleFlag(`many-${i}`)));
  const b = await serveWhileWatching(up, relay, many, '"many"');
  t.ok(b.maxMs < MAX_LATENCY_MS, `150,000 flags (${Math.round(many.length / 2 ** 20)} MB): /health answered within ${b.maxMs} ms at worst (${b.polls} polls)`);
  t.equal(b.failures, 0, 'every /health poll answered 200');
  t.ok(b.maxRss - baseline < MAX_RSS_GROWTH, `RSS at most ${Math.round(b.maxRss / 2 ** 20)} MB (${Math.round((b.maxRss - baseline) / 2 ** 20)} MB over the ${Math.round(baseline / 2 ** 20)} MB before)`);
  t.match(relay.output(), new RegExp(`more than ${MAX_UPSTREAM_FLAGS} flags`), 'a log line says why the answer was refused');
  t.same(await names(relay.url), ['kept-1', 'kept-2'], 'the relay still serves what it had');
});

t.test('a large answer within the bounds is applied in slices', async (t) => {
  const up = await scriptedUpstream(t, { [TOKEN]: { type: 'client', projects: ['*'], environment: 'development' } });
  up.features = { body: featuresBody([simpleFlag('first')]), etag: '"1"' };
  const relay = await startRelay(t, up.url, { tokens: [TOKEN], protocol: 'polling', refresh: 1 });
  await waitReady(relay.url);
  const N = 20_000;
  const big = featuresBody(Array.from({ length: N }, (_, i) => simpleFlag(`big-${i}`)));
  const w = await serveWhileWatching(up, relay, big, '"big"');
  // Twice the bound: the 20,000 flags' garbage is collected meanwhile (scavenges of 100-150 ms each
  // on a loaded two-core machine); before the apply was sliced, the worst was 3.7 s.
  t.ok(w.maxMs < 2 * MAX_LATENCY_MS, `${N} flags applied while /health answered within ${w.maxMs} ms at worst (${w.polls} polls, under ${2 * MAX_LATENCY_MS} ms)`);
  const served = await names(relay.url);
  t.equal(served.length, N, `the ${N} flags are served`);
  t.notOk(served.includes('first'), 'the answer replaced what the relay had');
});

t.test('an upstream answer whose JSON is cut short is refused, not read as fewer flags', async (t) => {
  const up = await scriptedUpstream(t, { [TOKEN]: { type: 'client', projects: ['*'], environment: 'development' } });
  up.features = { body: featuresBody([simpleFlag('kept-1'), simpleFlag('kept-2')]), etag: '"good"' };
  const relay = await startRelay(t, up.url, { tokens: [TOKEN], protocol: 'polling', refresh: 0.2 });
  await waitReady(relay.url);
  t.same(await names(relay.url), ['kept-1', 'kept-2']);
  // A whole HTTP answer (its length right), its JSON stopping after the first flag.
  const whole = featuresBody([simpleFlag('kept-1'), simpleFlag('kept-2')]).toString();
  const cut = whole.slice(0, whole.indexOf(',{"name":"kept-2"'));
  const before = up.counts.get('/api/client/features') ?? 0;
  up.features = { body: Buffer.from(cut), etag: '"cut"' };
  await waitFor(() => (up.counts.get('/api/client/features') ?? 0) >= before + 3, 'the relay to fetch the cut answer and poll again', 10_000, 20);
  t.match(relay.output(), /truncated answer, refused/, 'a log line says why');
  t.same(await names(relay.url), ['kept-1', 'kept-2'], 'the relay keeps both flags');
});
