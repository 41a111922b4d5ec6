// Fanion's evaluator against the official Node SDK (unleash-client 6.12.1) on random flag sets and
// thousands of random contexts: every built-in deterministic strategy, every operator (inverted,
// case-insensitive), segments, strategy and environment variants with overrides and payloads,
// dependencies, disabled strategies. The SDK polls the same flags from an in-process server; both
// must give the same on/off and the same variant for every flag and context. Also: the hash is
// the SDK's (murmurhash3js), byte for byte.
import { createRequire } from 'node:module';
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import type { Runtime } from '../../src/evaluation/compile.js';
import type { EvalContext } from '../../src/evaluation/context.js';
import { evaluate } from '../../src/evaluation/evaluate.js';
import { murmur3 } from '../../src/evaluation/murmur.js';
import { PreparedFlags } from '../../src/evaluation/prepared.js';
import { startInProcess } from '../helpers/in-process-server.js';
import { chance, int, pick, testRandom, type Rng } from '../helpers/random.js';
import { HOSTNAME } from '../helpers/evaluation.js';

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

const FIELDS = ['userId', 'sessionId', 'remoteAddress', 'country', 'plan', 'version', 'age', 'email'];
const words = ['NO', 'SE', 'dk', 'Free', 'pro', 'gold', 'a@x.io', 'b@y.com', '1.2.3', '2.0.0-beta.1', '10', '3.5', '', 'ÅSE'];

function constraint(r: Rng) {
  const contextName = pick(r, FIELDS);
  const op = pick(r, ['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS', 'NUM_EQ', 'NUM_GT', 'NUM_LTE', 'DATE_AFTER', 'DATE_BEFORE', 'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'REGEX', 'IN_CIDR']);
  const c: Record<string, unknown> = { contextName, operator: op, inverted: chance(r, 0.2), caseInsensitive: chance(r, 0.3) };
  if (['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS'].includes(op)) c.values = Array.from({ length: int(r, 1, 3) }, () => pick(r, words));
  else if (op === 'IN_CIDR') c.values = [pick(r, ['10.0.0.0/8', '192.168.1.0/24', '::1/128', '1.2.3.4', 'bad'])];
  else if (op.startsWith('NUM')) c.value = String(int(r, 0, 20));
  else if (op.startsWith('DATE')) c.value = pick(r, ['2020-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
  else if (op.startsWith('SEMVER')) c.value = pick(r, ['1.2.3', '2.0.0', '2.0.0-beta.1']);
  else c.value = pick(r, ['^a', 'o$', 'P[a-z]+', '(']);
  return c;
}

function variants(r: Rng, withOverrides: boolean) {
  const n = int(r, 0, 3);
  return Array.from({ length: n }, (_, i) => ({
    name: `v${i}`, weight: n === 0 ? 0 : Math.floor(1000 / n), weightType: 'variable', stickiness: pick(r, ['default', 'userId', 'sessionId', 'country']),
    ...(chance(r, 0.6) ? { payload: { type: pick(r, ['string', 'json', 'number']), value: pick(r, ['x', '{"a":1}', '42']) } } : {}),
    ...(withOverrides && chance(r, 0.3) ? { overrides: [{ contextName: pick(r, FIELDS), values: [pick(r, words)] }] } : {}),
  }));
}

function strategy(r: Rng, segments: number[]) {
  const name = pick(r, ['default', 'userWithId', 'flexibleRollout', 'gradualRolloutUserId', 'gradualRolloutSessionId', 'remoteAddress', 'applicationHostname']);
  const parameters: Record<string, string> = {};
  if (name === 'userWithId') parameters.userIds = ['u1', 'u2', 'u7', 'u13'].filter(() => chance(r, 0.5)).join(', ');
  if (name === 'flexibleRollout') {
    parameters.rollout = String(pick(r, [0, 10, 50, 90, 100]));
    parameters.stickiness = pick(r, ['default', 'userId', 'sessionId', 'country']);
    if (chance(r, 0.7)) parameters.groupId = pick(r, ['g1', 'g2']);
  }
  if (name.startsWith('gradualRollout')) {
    parameters.percentage = String(int(r, 0, 100));
    parameters.groupId = 'g';
  }
  if (name === 'remoteAddress') parameters.IPs = pick(r, ['10.0.0.1', '10.0.0.0/24, 1.2.3.4', '192.168.1.0/24']);
  if (name === 'applicationHostname') parameters.hostNames = pick(r, [HOSTNAME, 'elsewhere']);
  return {
    name, parameters, disabled: chance(r, 0.1), constraints: Array.from({ length: int(r, 0, 2) }, () => constraint(r)),
    variants: chance(r, 0.3) ? variants(r, false) : [], segments: segments.filter(() => chance(r, 0.2)),
  };
}

function randomContext(r: Rng): Record<string, unknown> {
  const ctx: Record<string, unknown> = { properties: {} };
  // Every field a stickiness may name is there and not empty: with one missing, the SDK draws at
  // random, and no two evaluators could agree.
  ctx.userId = `u${int(r, 0, 20)}`;
  ctx.sessionId = `s${int(r, 0, 50)}`;
  if (chance(r, 0.5)) ctx.remoteAddress = pick(r, ['10.0.0.1', '10.0.0.77', '1.2.3.4', '192.168.1.9', '::1']);
  if (chance(r, 0.5)) ctx.currentTime = pick(r, ['2025-06-01T00:00:00.000Z', '2019-01-01T00:00:00.000Z']);
  const props = ctx.properties as Record<string, string>;
  for (const f of ['plan', 'version', 'age', 'email']) if (chance(r, 0.7)) props[f] = pick(r, words);
  props.country = pick(r, words.filter((w) => w !== ''));
  return ctx;
}

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
      const segIds = [1, 2, 3];
      const flags: string[] = [];
      const doc = {
        version: 1, features: [] as unknown[], featureStrategies: [] as unknown[], featureEnvironments: [] as unknown[],
        segments: segIds.map((id) => ({ id, name: `seg${id}`, constraints: [constraint(r)] })),
      };
      for (let i = 0; i < 25; i++) {
        const name = `f${i}`;
        const deps = i > 5 && chance(r, 0.3) ? [{ feature: `f${int(r, 0, 5)}`, enabled: chance(r, 0.7), variants: chance(r, 0.3) ? ['v0'] : [] }] : [];
        flags.push(name);
        doc.features.push({ name, project: 'default', dependencies: deps });
        doc.featureEnvironments.push({ featureName: name, environment: 'development', enabled: chance(r, 0.85), variants: chance(r, 0.4) ? variants(r, true) : [] });
        for (let k = int(r, 0, 3); k > 0; k--) doc.featureStrategies.push({ featureName: name, environment: 'development', ...strategy(r, segIds) });
      }
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
