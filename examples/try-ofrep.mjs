// The same flag through OpenFeature's remote evaluation protocol (OFREP), with a client or
// frontend token: `node examples/try-ofrep.mjs`.
import { OpenFeature } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';

const url = process.env.FANION_URL ?? 'http://localhost:4242';
await OpenFeature.setProviderAndWait(new OFREPProvider({
  baseUrl: url,
  headers: [['Authorization', 'Bearer default:production.change-me-client-secret']],
}));
const flags = OpenFeature.getClient();
console.log('Norway:', await flags.getBooleanValue('new-checkout', false, { targetingKey: 'u42', country: 'NO' }));
console.log('Sweden:', await flags.getBooleanValue('new-checkout', false, { targetingKey: 'u42', country: 'SE' }));
await OpenFeature.close();
