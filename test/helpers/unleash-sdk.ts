// The official Node SDK (unleash-client) against a test server: created, synchronized (its first
// flags in) and destroyed when the test ends. Errors and warnings are kept, not printed.
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';

export type SdkMode = { type: 'polling'; format: 'full' | 'delta' } | { type: 'streaming' };

export interface SdkOptions {
  token: string;
  /** The SDK's experimentalMode; its default (polling the full flag set) when absent. */
  mode?: SdkMode;
  /** How often it polls (ms); in streaming mode, how often its fallback would. */
  refreshInterval?: number;
  /** Metrics are sent this often (ms) when given, never when absent. */
  metricsInterval?: number;
  appName?: string;
  /** How long it may take to synchronize. */
  syncMs?: number;
}

export async function syncedSdk(t: { teardown(fn: () => void): void }, url: string, opts: SdkOptions): Promise<Unleash> {
  const problems: unknown[] = [];
  const u = new Unleash({
    url: `${url}/api/`, appName: opts.appName ?? `test-${opts.mode?.type ?? 'default'}`, customHeaders: { Authorization: opts.token },
    refreshInterval: opts.refreshInterval ?? 100, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
    ...(opts.metricsInterval === undefined ? { disableMetrics: true } : { metricsInterval: opts.metricsInterval }),
    ...(opts.mode ? { experimentalMode: opts.mode } : {}),
  });
  t.teardown(() => u.destroy());
  u.on(UnleashEvents.Error, (e) => problems.push(e));
  u.on(UnleashEvents.Warn, () => {});
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the ${opts.mode?.type ?? 'default'} SDK did not synchronize: ${String(problems[0])}`)), opts.syncMs ?? 10_000);
    u.once(UnleashEvents.Synchronized, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return u;
}
