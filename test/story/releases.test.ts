// A release that watches itself, on one server (a real process; its clock shared with the test, so
// the progression's minute passes at once): the whole story of docs/guides/releasing.md told by
// test/helpers/release-story.ts, then the webhook: each of its events delivered exactly once.
import t from 'tap';
import { sharedClock } from '../helpers/clock.js';
import { receiverFor, RECEIVERS_ALLOWED, sleep } from '../helpers/receiver.js';
import { deliveries, STORY_ENV, tellReleaseStory } from '../helpers/release-story.js';
import { serve } from '../helpers/server.js';

t.test('a plan applied, moved on by its progression, and the flag switched off by a safeguard the SDK trips: each once', async (t) => {
  const clock = sharedClock();
  const { srv } = await serve(t, { command: clock.command, env: { ...STORY_ENV, ...RECEIVERS_ALLOWED, ...clock.env } });
  const receiver = await receiverFor(t);
  const told = await tellReleaseStory(t, { adminUrl: () => srv.url, sdkUrl: srv.url, clock, receiver });

  await receiver.waitFor(told.events.length, 10_000);
  await sleep(1_000);
  t.same(deliveries(receiver).map((d) => [d.id, d.type]), told.events.map((e) => [e.id, e.type]), 'the webhook got each of those events once, in order');
  t.equal(srv.output().match(/"msg":"a release plan progression started a milestone"/g)?.length, 1, 'the server says once that the progression started milestone 2');
  t.equal(srv.output().match(/"msg":"a safeguard fired"/g)?.length, 1, 'and once that the safeguard fired');
});
