// What a browser or mobile app asks, through Unleash's browser SDK (it runs in Node too):
// `node examples/try-frontend.mjs`. Needs the frontend token of the walk-through's start command.
import { UnleashClient } from 'unleash-proxy-client';

const url = process.env.FANION_URL ?? 'http://localhost:4242';
const unleash = new UnleashClient({
  url: `${url}/api/frontend`,
  clientKey: 'default:production.change-me-frontend',
  appName: 'web-shop',
  context: { userId: 'u42', properties: { country: 'NO' } },
  // A script that stops at once: no first metrics timer left behind (an app in a page keeps running).
  metricsIntervalInitial: 0,
});
// A change-me-frontend token or URL is an error event, not an exception: without this the SDK goes on quietly.
unleash.on('error', (err) => console.error('Fanion said:', err?.message ?? err));
await unleash.start(); // resolves once the first answer is in
console.log('new-checkout for u42 in Norway:', unleash.isEnabled('new-checkout'));
unleash.stop();
