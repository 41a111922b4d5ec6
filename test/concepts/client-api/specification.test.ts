// The whole public Unleash client specification (@unleash/client-specification 6.1.0), evaluated
// by the official Node SDK (unleash-client) against a real Fanion process. Every file's state goes
// in twice:
// 1. through the state import, as data: every case must pass (the one case whose strategy names a
//    segment missing from its own state is skipped, since no server can store that link);
// 2. through the admin API, as a person would build it, for the flags it can express: those must
//    give the SDK the same answers. What the admin API refuses or would store differently (an
//    unknown operator, a dependency on a missing flag, variant weights it recomputes) is counted
//    and named, not failed.
// A per-file tally is printed at the end of each pass.
import t, { type Test } from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import {
  missingSegmentLinks, specFiles, stateDocument, type SpecFeature, type SpecFile, type SpecVariant, type VariantCase,
} from '../../helpers/client-spec.js';
import { client, spawnServer, type Spawned } from '../../helpers/server.js';

const ADMIN = '*:*.spec-admin';
const CLIENT = '*:development.spec-client';
const ENV = 'development';
const P = '/api/admin/projects/default/features';

async function sdkFor(srv: Spawned): Promise<Unleash> {
  const problems: unknown[] = [];
  const sdk = new Unleash({
    url: `${srv.url}/api/`,
    appName: 'client-specification',
    customHeaders: { Authorization: CLIENT },
    refreshInterval: 60_000,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
  sdk.on(UnleashEvents.Error, (e) => problems.push(e));
  sdk.on(UnleashEvents.Warn, () => {}); // an unknown flag asked for is a warning, and expected here
  await new Promise<void>((resolve, reject) => {
    sdk.once(UnleashEvents.Synchronized, () => resolve());
    setTimeout(() => reject(new Error(`the SDK did not synchronize: ${String(problems[0])}`)), 10_000);
  });
  return sdk;
}

/** The fields the specification fixes; the SDK adds `featureEnabled`, a newer spelling. */
function variantOf(sdk: Unleash, c: VariantCase): Record<string, unknown> {
  const v = sdk.getVariant(c.toggleName, c.context as never) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { name: v.name, enabled: v.enabled };
  if ('feature_enabled' in c.expectedResult) out.feature_enabled = v.feature_enabled;
  if (v.payload !== undefined || c.expectedResult.payload !== undefined) out.payload = v.payload;
  return out;
}

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

/** Runs a file's cases against what the server now holds; `skip` names flags whose cases are not run, with why. */
async function runCases(t: Test, srv: Spawned, file: SpecFile, skip: Map<string, string>, tally: Tally): Promise<void> {
  const sdk = await sdkFor(srv);
  try {
    for (const c of file.tests) {
      const why = skip.get(c.toggleName);
      if (why) {
        tally.skipped++;
        t.comment(`skipped "${c.description}": ${why}`);
        continue;
      }
      const ok = t.equal(sdk.isEnabled(c.toggleName, c.context as never), c.expectedResult, c.description);
      if (ok) tally.passed++;
      else tally.failed++;
    }
    for (const c of file.variantTests) {
      const why = skip.get(c.toggleName);
      if (why) {
        tally.skipped++;
        t.comment(`skipped "${c.description}": ${why}`);
        continue;
      }
      const ok = t.same(variantOf(sdk, c), c.expectedResult, c.description);
      if (ok) tally.passed++;
      else tally.failed++;
    }
  } finally {
    sdk.destroy();
  }
}

function report(t: Test, pass: string, tallies: Map<string, Tally>): void {
  const all: Tally = { passed: 0, failed: 0, skipped: 0 };
  const lines = [...tallies].map(([name, n]) => {
    all.passed += n.passed;
    all.failed += n.failed;
    all.skipped += n.skipped;
    return `  ${name.padEnd(42)} passed ${String(n.passed).padStart(3)}  failed ${n.failed}  skipped ${n.skipped}`;
  });
  t.comment(`${pass}\n${lines.join('\n')}\n  ${'total'.padEnd(42)} passed ${String(all.passed).padStart(3)}  failed ${all.failed}  skipped ${all.skipped}`);
}

const files = specFiles();

t.test('the specification has the files and cases this suite was written for', async (t) => {
  t.equal(files.length, 22);
  t.equal(files.reduce((n, f) => n + f.tests.length + f.variantTests.length, 0), 279);
});

type Loader = (api: ReturnType<typeof client>, file: SpecFile, t: Test) => Promise<Map<string, string>>;

/** Loads every file in turn into one server, runs its cases, prints the tally; returns the totals. */
async function runPass(t: Test, label: string, load: Loader): Promise<Tally> {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT } });
  t.teardown(() => srv.stop());
  const api = client(srv.url, { authorization: ADMIN });
  const tallies = new Map<string, Tally>();
  for (const file of files) {
    await t.test(file.name, async (t) => {
      const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
      tallies.set(file.name, tally);
      await runCases(t, srv, file, await load(api, file, t), tally);
    });
  }
  report(t, label, tallies);
  return [...tallies.values()].reduce((a, n) => ({ passed: a.passed + n.passed, failed: a.failed + n.failed, skipped: a.skipped + n.skipped }));
}

t.test('pass 1: every state through the state import, every case through the Node SDK', async (t) => {
  const sum = await runPass(t, 'pass 1 (state import):', async (api, file, t) => {
    const res = await api('POST', '/api/admin/state/import?drop=true&keep=false', stateDocument(file.state, ENV));
    t.equal(res.status, 202, `the import takes the state as it is${res.status === 202 ? '' : `: ${res.text}`}`);
    const skip = new Map<string, string>();
    for (const { feature, segment } of missingSegmentLinks(file.state)) {
      skip.set(feature, `its strategy names segment ${segment}, which its own state does not have, so no server can store the link`);
    }
    return skip;
  });
  t.same(sum, { passed: 278, failed: 0, skipped: 1 }, 'every case passes but the one with a missing segment');
});

/**
 * Builds a file's flags through the admin API. Returns the flags it could not express, with the
 * admin API's answer: those are left out of the comparison.
 */
async function buildThroughAdmin(api: ReturnType<typeof client>, file: SpecFile): Promise<Map<string, string>> {
  const skip = new Map<string, string>();
  const must = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status >= 300) throw Object.assign(new Error(res.json?.message ?? res.text), { status: res.status });
    return res.json;
  };
  const segmentIds = new Map<number, number>();
  for (const s of file.state.segments) {
    try {
      segmentIds.set(s.id, (await must('POST', '/api/admin/segments', { name: s.name ?? `segment ${s.id}`, constraints: s.constraints })).id);
    } catch (err) {
      for (const f of file.state.features) {
        if (f.strategies?.some((st) => st.segments?.includes(s.id))) skip.set(f.name, `its segment ${s.id}: ${(err as Error).message}`);
      }
    }
  }
  // The SDK walks variants in order by weight (a lone variant gets everyone, whatever its
  // weight); a strategy's variant without stickiness follows the strategy's, a flag's variant
  // without one uses "default".
  const sameVariants = (given: SpecVariant[], stored: SpecVariant[], absent: string | undefined) =>
    given.length === stored.length &&
    given.every((v, i) => v.name === stored[i].name && (given.length === 1 || (v.weight ?? 0) === stored[i].weight) && (v.stickiness ?? absent) === stored[i].stickiness);
  const build = async (f: SpecFeature) => {
    const flag = `${P}/${encodeURIComponent(f.name)}`;
    await must('POST', P, { name: f.name, type: f.type ?? 'release' });
    for (const s of f.strategies ?? []) {
      if (s.segments?.some((id) => !segmentIds.has(id))) throw new Error('a segment it uses could not be created');
      const stored = await must('POST', `${flag}/environments/${ENV}/strategies`, {
        name: s.name, parameters: s.parameters ?? {}, constraints: s.constraints ?? [], variants: s.variants ?? [],
        segments: (s.segments ?? []).map((id) => segmentIds.get(id)),
      });
      if (!sameVariants(s.variants ?? [], stored.variants, s.parameters?.stickiness ?? 'default')) throw new Error('the admin API recomputes or reorders these strategy variants');
    }
    if (f.variants && f.variants.length > 0) {
      await must('PUT', `${flag}/environments/${ENV}/variants`, f.variants);
      const stored = (await must('GET', `${flag}/environments/${ENV}/variants`)).variants;
      if (!sameVariants(f.variants, stored, 'default')) throw new Error('the admin API recomputes or reorders these variants');
    }
    if (f.enabled) await must('POST', `${flag}/environments/${ENV}/on`);
  };
  for (const f of file.state.features) {
    if (skip.has(f.name)) continue;
    try {
      await build(f);
    } catch (err) {
      skip.set(f.name, (err as Error).message);
    }
  }
  // Dependencies once every flag exists; a refused one leaves its child out.
  for (const f of file.state.features) {
    for (const dep of f.dependencies ?? []) {
      if (skip.has(f.name)) break;
      try {
        await must('POST', `${P}/${encodeURIComponent(f.name)}/dependencies`, dep);
      } catch (err) {
        skip.set(f.name, `its dependency on "${dep.feature}": ${(err as Error).message}`);
      }
    }
  }
  // A parent left out leaves its children's answers undefined too.
  for (const f of file.state.features) {
    const parent = (f.dependencies ?? []).find((d) => skip.has(d.feature));
    if (parent && !skip.has(f.name)) skip.set(f.name, `its parent "${parent.feature}" is left out`);
  }
  return skip;
}

t.test('pass 2: the same states built through the admin API agree where it can express them', async (t) => {
  const sum = await runPass(t, 'pass 2 (admin API):', async (api, file, t) => {
    const cleared = await api('POST', '/api/admin/state/import?drop=true', { version: 1, features: [], segments: [] });
    t.equal(cleared.status, 202, 'the previous file is cleared');
    return buildThroughAdmin(api, file);
  });
  t.equal(sum.failed, 0, 'no case the admin API could express gives a different answer');
  t.ok(sum.passed >= 232, `the admin API expresses at least the 232 cases it did when this was written (now ${sum.passed} of 279)`);
});
