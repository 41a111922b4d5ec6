// The walk-through's flag through the official Node SDK: `node examples/try-sdk.mjs`.
import { initialize } from 'unleash-client';

const url = process.env.FANION_URL ?? 'http://localhost:4242';
const unleash = initialize({
  url: `${url}/api/`,
  appName: 'my-app',
  customHeaders: { Authorization: 'default:production.change-me-client-secret' },
});
unleash.on('error', (err) => console.error('Fanion said:', err.message));
unleash.on('synchronized', async () => {
  console.log('Norway:', unleash.isEnabled('new-checkout', { properties: { country: 'NO' } }));
  console.log('Sweden:', unleash.isEnabled('new-checkout', { properties: { country: 'SE' } }));
  // Sends the counts of the two checks before stopping: they show on the console's Applications page.
  await unleash.destroyWithFlush();
});
