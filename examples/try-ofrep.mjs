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
// A wrong token, an unreachable server or an unknown flag is not an exception: the default value
// comes back as if it were the answer. This says what went wrong instead, and exits with 1.
flags.addHooks({
  error(_hook, err) {
    const why = err.response ? `HTTP ${err.response.status} ${err.response.statusText}` : (err.cause?.cause?.code ?? err.message);
    console.error(`Fanion at ${url}: ${why}`);
    process.exit(1);
  },
});
console.log('Norway:', await flags.getBooleanValue('new-checkout', false, { targetingKey: 'u42', country: 'NO' }));
console.log('Sweden:', await flags.getBooleanValue('new-checkout', false, { targetingKey: 'u42', country: 'SE' }));
await OpenFeature.close();
