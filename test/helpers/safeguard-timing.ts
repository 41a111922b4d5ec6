// How long a safeguard takes, as an application sees it: from the answer to the official Node SDK's
// metrics post that carried an error counter past the threshold, to that SDK answering the flag
// off. Shared by test/concepts/safeguards/sdk.test.ts (a server, with its target) and
// bench/safeguards.ts (a server and a cluster, more firings).
import { UnleashEvents, type Unleash } from 'unleash-client';
import { until } from './receiver.js';

const P = '/api/admin/projects/default/features';

/** The q-quantile of `xs` (nearest rank). */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}

/** A flag's name and the counter its safeguard watches (count over an hour > `threshold`, from `app`). */
export const guarded = (prefix: string, i: number) => ({ flag: `${prefix}-${i}`, metric: `${prefix.replace(/-/g, '_')}_errors_${i}` });

/** `runs` flags, each on in `environment` with a safeguard that switches it off. */
export async function guardFlags(ok: (method: string, path: string, body?: unknown) => Promise<any>, o: { prefix: string; runs: number; app: string; threshold: number; environment: string }): Promise<void> {
  for (let i = 0; i < o.runs; i++) {
    const { flag, metric } = guarded(o.prefix, i);
    await ok('POST', P, { name: flag });
    await ok('POST', `${P}/${flag}/environments/${o.environment}/on`);
    await ok('PUT', `${P}/${flag}/environments/${o.environment}/safeguards`, {
      impactMetric: { metricName: metric, timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: [o.app] } },
      triggerCondition: { operator: '>', threshold: o.threshold },
    });
  }
}

/** Resolves with the time the SDK's post that carried `n` or more of `metric` was answered. */
export function postedAt(sdk: Unleash, metric: string, n: number): Promise<number> {
  return new Promise<number>((resolve) => {
    const onSent = (payload: { impactMetrics?: { name: string; samples: { value?: number }[] }[] }) => {
      const entry = payload.impactMetrics?.find((m) => m.name === metric);
      if (!entry || !entry.samples.some((s) => (s.value ?? 0) >= n)) return;
      sdk.off(UnleashEvents.Sent, onSent);
      resolve(Date.now());
    };
    sdk.on(UnleashEvents.Sent, onSent);
  });
}

/**
 * Counts `add` more errors of `metric` (enough to cross the threshold) and times the post that
 * carries them (a counter's post carries what was added since the last) → the SDK sees `flag` off.
 */
export async function timeFiring(sdk: Unleash, o: { flag: string; metric: string; add: number; withinMs: number }): Promise<number> {
  const post = postedAt(sdk, o.metric, o.add);
  sdk.impactMetrics.incrementCounter(o.metric, o.add);
  const at = await post;
  await until(`${o.flag} off for the SDK`, () => !sdk.isEnabled(o.flag), o.withinMs);
  return Date.now() - at;
}
