// An upstream that never stops changing: every stream frame changes 200 flags. What the relay keeps
// of that history is bounded: the events it holds in memory (RELAY_MAX_EVENTS, the oldest go
// first), and so what its checkpoints hold; the WAL is cut by those checkpoints. Its data folder
// and its RSS stay within bounds however long the upstream goes on.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { rssOf } from '../../helpers/hostile.js';
import { startRelay, waitFor, waitReady } from '../../helpers/relay.js';
import { scriptedUpstream, simpleFlag } from '../../helpers/scripted-upstream.js';
import { RELAY_MAX_EVENTS } from '../../../src/modes/relay/relay.js';

const TOKEN = '*:development.scripted-client';
const FLAGS = 200;
/** The run ends once this many events were made (three times what is kept), or after MAX_RUN_MS. */
const TARGET_EVENTS = 3 * RELAY_MAX_EVENTS;
const MAX_RUN_MS = 20_000;
const CHECKPOINT_BYTES = 4 * 1024 * 1024;
/** After a restart, the WAL's tail after the newest checkpoint is replayed whole before the first trim. */
const CHECKPOINT_EVENTS_SLACK = 60_000;

function metric(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

function folderBytes(dir: string): number {
  let n = 0;
  for (const f of fs.readdirSync(dir)) {
    const st = fs.statSync(path.join(dir, f));
    if (st.isFile()) n += st.size;
  }
  return n;
}

t.test('an upstream that changes without end: the relay keeps a bounded history', async (t) => {
  const up = await scriptedUpstream(t, { [TOKEN]: { type: 'client', projects: ['*'], environment: 'development' } });
  let frames = 0;
  let streaming = true;
  t.teardown(() => {
    streaming = false;
  });
  up.route('/api/client/streaming', async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let eventId = 1;
    const flags = Array.from({ length: FLAGS }, (_, i) => simpleFlag(`churn-${i}`));
    res.write(`id: ${eventId}\nevent: unleash-connected\ndata: ${JSON.stringify({ events: [{ type: 'hydration', eventId, features: flags, segments: [] }] })}\n\n`);
    while (streaming && !res.destroyed) {
      frames++;
      const events = flags.map((f, i) => ({ type: 'feature-updated', eventId: ++eventId, feature: { ...f, strategies: [{ name: 'flexibleRollout', parameters: { rollout: String((frames + i) % 100), stickiness: 'default', groupId: f.name }, constraints: [] }] } }));
      const ok = res.write(`id: ${eventId}\nevent: unleash-updated\ndata: ${JSON.stringify({ events })}\n\n`);
      await new Promise<void>((resolve) => (ok ? setTimeout(resolve, 2) : res.once('drain', resolve)));
    }
    res.end();
    return true;
  });
  const relay = await startRelay(t, up.url, { tokens: [TOKEN], protocol: 'streaming', env: { CHECKPOINT_BYTES: String(CHECKPOINT_BYTES) } });
  await waitReady(relay.url);
  const baseline = rssOf(relay.proc.pid!);
  const started = Date.now();
  let maxKept = 0;
  let maxFolder = 0;
  let maxRss = 0;
  let lastId = 0;
  while (Date.now() - started < MAX_RUN_MS && lastId < TARGET_EVENTS) {
    const text = await (await fetch(`${relay.url}/internal-backstage/prometheus`)).text();
    maxKept = Math.max(maxKept, metric(text, 'event_log_events_kept'));
    lastId = metric(text, 'event_log_events');
    maxFolder = Math.max(maxFolder, folderBytes(relay.dataDir));
    maxRss = Math.max(maxRss, rssOf(relay.proc.pid!));
    await new Promise((r) => setTimeout(r, 100));
  }
  streaming = false;
  t.ok(lastId >= TARGET_EVENTS, `the upstream sent ${frames} frames of ${FLAGS} changed flags in ${((Date.now() - started) / 1000).toFixed(1)} s: event ids went on to ${lastId}`);
  // A record's own events come on top of the kept ones until the next one trims them.
  const bound = 2 * RELAY_MAX_EVENTS + FLAGS;
  t.ok(maxKept <= bound, `events held at most ${maxKept} (bound: twice RELAY_MAX_EVENTS plus one frame's, ${bound})`);
  const folderBound = 4 * CHECKPOINT_BYTES + 8 * 1024 * 1024;
  t.ok(maxFolder < folderBound, `data folder (WAL and checkpoints) at most ${(maxFolder / 2 ** 20).toFixed(1)} MB (bound ${folderBound / 2 ** 20} MB)`);
  t.ok(maxRss - baseline < 150 * 1024 * 1024, `RSS at most ${Math.round(maxRss / 2 ** 20)} MB (${Math.round((maxRss - baseline) / 2 ** 20)} MB over the ${Math.round(baseline / 2 ** 20)} MB before)`);
  await waitFor(async () => (await fetch(`${relay.url}/health`)).status === 200, 'the relay to answer', 5000, 50);

  // Its checkpoints and WAL hold a log that starts past event 1: a restart reads it back.
  t.equal(await relay.stop(), 0, 'the relay stops cleanly');
  const again = await startRelay(t, up.url, { tokens: [TOKEN], protocol: 'streaming', dataDir: relay.dataDir, env: { CHECKPOINT_BYTES: String(CHECKPOINT_BYTES) } });
  await waitReady(again.url);
  const text = await (await fetch(`${again.url}/internal-backstage/prometheus`)).text();
  t.ok(metric(text, 'event_log_events') >= lastId, `restarted, its event ids go on from ${metric(text, 'event_log_events')}`);
  t.ok(metric(text, 'event_log_events_kept') <= bound + CHECKPOINT_EVENTS_SLACK, `and it holds ${metric(text, 'event_log_events_kept')} events`);
});
