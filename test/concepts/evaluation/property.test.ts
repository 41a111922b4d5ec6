// Fanion's evaluator against the official Node SDK (unleash-client 6.12.1) on random flag sets and
// thousands of random contexts: every built-in deterministic strategy, every operator (inverted,
// case-insensitive), segments, strategy and environment variants with overrides and payloads,
// dependencies, disabled strategies. The SDK polls the same flags from an in-process server; both
// must give the same on/off and the same variant for every flag and context. Also: the hash is
// the SDK's (murmurhash3js), byte for byte.
import { createRequire } from 'node:module';
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import type { Runtime } from '../../../src/concepts/evaluation/compile.js';
import type { EvalContext } from '../../../src/concepts/evaluation/context.js';
import { evaluate } from '../../../src/concepts/evaluation/evaluate.js';
import { murmur3 } from '../../../src/concepts/evaluation/murmur.js';
import { PreparedFlags } from '../../../src/concepts/evaluation/prepared.js';
import { startInProcess } from '../../helpers/in-process-server.js';
import { chance, int, testRandom } from '../../helpers/random.js';
import { randomContext, randomFlagDocument } from '../../helpers/random-flags.js';
import { HOSTNAME } from '../../helpers/evaluation.js';

const require = createRequire(import.meta.url);
const murmurhash3js = require('murmurhash3js') as { x86: { hash32(key: string, seed: number): number } };

t.test('the hash is the SDK\'s, ASCII or not', async (t) => {
  const r = testRandom('murmur');
  for (let i = 0; i < 5000; i++) {
    const len = int(r, 0, 40);
    let s = '';
    for (let j = 0; j < len; j++) s += String.fromCharCode(chance(r, 0.8) ? int(r, 32, 126) : int(r, 0, 0xffff));
    const seed = chance(r, 0.5) ? 0 : 86028157;
    if (murmur3(s, seed) !== murmurhash3js.x86.hash32(s, seed)) {
      t.fail(`differs for ${JSON.stringify(s)} seed ${seed}`);
      return;
    }
  }
  t.pass('5,000 random keys hash alike');
});

const asEval = (raw: Record<string, unknown>): EvalContext => {
  const ctx: EvalContext = { properties: { ...(raw.properties as Record<string, string>) }, appName: 'property-test', environment: 'default' };
  for (const k of ['userId', 'sessionId', 'remoteAddress', 'currentTime'] as const) if (raw[k] !== undefined) ctx[k] = String(raw[k]);
  return ctx;
};

const CONTEXTS = 400;

t.test('random flag sets and contexts: Fanion answers as the Node SDK', async (t) => {
  const r = testRandom('evaluation-property');
  const rounds = Number(process.env.PROPERTY_ROUNDS ?? 6);
  let compared = 0;
  for (let round = 0; round < rounds; round++) {
    const srv = await startInProcess();
    try {
      const api = srv.api;
      // Segments come with the data too: as data, any constraint is stored as given.
      const { doc, flags } = randomFlagDocument(r, { count: 25, prefix: 'f', environment: 'development' });
      const imported = await api('POST', '/api/admin/state/import', doc);
      if (imported.status !== 202) throw new Error(`import: ${imported.status} ${imported.text}`);

      const sdk = new Unleash({
        url: `${srv.url}/api/`, appName: 'property-test', refreshInterval: 60_000, disableMetrics: true, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
      });
      sdk.on(UnleashEvents.Warn, () => {});
      await new Promise<void>((resolve, reject) => {
        sdk.once(UnleashEvents.Synchronized, () => resolve());
        sdk.once(UnleashEvents.Error, reject);
      });
      const prepared = new PreparedFlags(srv.running.engine.state, HOSTNAME).env('development');
      const lookup = (name: string) => prepared.flags.get(name);
      const rt: Runtime = { random: Math.random, now: Date.now, hostname: HOSTNAME, volatile: false };
      let differences = 0;
      for (let i = 0; i < CONTEXTS; i++) {
        const raw = randomContext(r);
        const ctx = asEval(raw);
        for (const name of flags) {
          const mine = evaluate(prepared.flags.get(name)!, ctx, rt, lookup);
          const theirs = sdk.getVariant(name, raw as never);
          const mineV = { enabled: mine.enabled, name: mine.variant.name, variantEnabled: mine.variant.enabled, payload: mine.variant.payload };
          const theirsV = { enabled: sdk.isEnabled(name, raw as never), name: theirs.name, variantEnabled: theirs.enabled, payload: theirs.payload };
          compared++;
          if (JSON.stringify(mineV) !== JSON.stringify(theirsV) && differences++ < 3) {
            t.fail(`round ${round}, ${name}, context ${JSON.stringify(raw)}: Fanion ${JSON.stringify(mineV)}, SDK ${JSON.stringify(theirsV)}`);
          }
        }
      }
      t.equal(differences, 0, `round ${round}: 25 flags × ${CONTEXTS} contexts alike`);
      sdk.destroy();
    } finally {
      await srv.close();
    }
  }
  t.comment(`${compared} evaluations compared with the Node SDK`);
});
