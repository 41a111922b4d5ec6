// SDK registrations and metrics received by the relay, summed per sender scope (the environment
// and projects of the token the SDK used) and sent upstream every METRICS_INTERVAL_SECONDS:
// `POST /api/client/metrics/bulk` (one request per scope, with a client token of that scope, or
// one covering it), or, when the upstream has no bulk route, per application
// `POST /api/client/register` and `POST /api/client/metrics`. A count of a flag outside the
// sender's projects is never kept nor sent: the upstream would take it from a wider token, though
// it refuses it from the sender's own. A batch is taken out before it is sent and only put back
// (added to what came meanwhile) when the upstream did not take it, so nothing is sent twice after
// a success. While the upstream is away what waits is held within UPSTREAM_METRICS_MAX_BYTES; what
// does not fit is dropped, counted and logged.
import type { ClientScope } from '../../core/access/access.js';
import type { BulkMetricsBody, InstanceReport, MetricsBody } from '../../concepts/client-metrics/schema.js';
import type { MetricsKind, MetricsTap, UsageEntry } from '../../concepts/client-metrics/store.js';
import type { Logger } from '../../core/logger.js';
import { inScope, normalizeScope, scopeKey, type RelayScope } from './scope.js';
import { UpstreamError, type Upstream } from './upstream.js';
import { SingleFlight } from '../../core/single-flight.js';
import { heldBytes, holdDelta, toEntries, type HeldSeries } from '../../concepts/impact-metrics/logic.js';
import { readImpactMetrics } from '../../concepts/impact-metrics/store.js';

export interface ForwardedApp {
  appName: string;
  instanceId: string;
  environment: string;
  sdkType: 'backend' | 'frontend';
  strategies?: string[];
  started?: string;
  interval?: number;
  sdkVersion?: string;
  connectVia?: { appName: string; instanceId: string }[];
}

/**
 * A metric as the bulk route takes it: Unleash's raw metrics entry, the same the usage view answers;
 * its timestamp is the start of the earliest bucket summed in.
 */
export type ForwardedMetric = UsageEntry;

/** One sender scope's waiting registrations and counts. */
interface Batch {
  scope: RelayScope;
  apps: Map<string, ForwardedApp>;
  metrics: Map<string, ForwardedMetric>;
  /** Impact metrics (impact-metrics/logic.ts): the sum of each series' deltas since the last send. */
  impact: Map<string, HeldSeries>;
  bytes: number;
}

/** An application as an SDK (or a relay, for one) reported it. */
function appOf(body: InstanceReport, environment: string, sdkType: 'backend' | 'frontend', now: string): ForwardedApp {
  const started = body.started == null ? now : typeof body.started === 'number' ? new Date(body.started).toISOString() : body.started;
  const app: ForwardedApp = { appName: body.appName, instanceId: body.instanceId || 'default', environment, sdkType, started };
  if (body.strategies) app.strategies = body.strategies;
  if (typeof body.interval === 'number') app.interval = body.interval;
  if (body.sdkVersion) app.sdkVersion = body.sdkVersion;
  return app;
}

const emptyBatch = (scope: RelayScope): Batch => ({ scope, apps: new Map(), metrics: new Map(), impact: new Map(), bytes: 0 });
const str = (s: string | undefined) => (s === undefined ? 0 : 40 + 2 * s.length);
const add = (a: number, b: number) => Math.min(a + b, Number.MAX_SAFE_INTEGER);
const appBytes = (a: ForwardedApp) => 200 + str(a.appName) * 2 + str(a.instanceId) * 2 + str(a.environment) + str(a.sdkVersion) + str(a.started) +
  (a.strategies ?? []).reduce((n, s) => n + str(s), 0) + (a.connectVia ?? []).reduce((n, c) => n + 80 + str(c.appName) + str(c.instanceId), 0);
const metricBytes = (m: ForwardedMetric) => 200 + str(m.featureName) * 2 + str(m.appName) * 2 + str(m.environment) + str(m.timestamp);

export interface ForwarderOptions {
  upstream: Upstream;
  /**
   * A client token to send a scope's batch with: one of exactly that scope (`exact`), else one
   * covering it; null when none is known (the batch waits).
   */
  tokenFor: (scope: RelayScope) => { raw: string; exact: boolean } | null;
  /** The project of a flag the relay holds, or null when it holds none of that name. */
  projectOf: (flag: string) => string | null;
  /** The upstream refused a token the relay sent metrics with (401, 403): it may have been revoked or have expired. */
  onTokenRefused?: (token: string) => void;
  log: Logger;
  /** UPSTREAM_METRICS_MAX_BYTES. */
  maxBytes: number;
  /** How the relay names itself in `connectVia`. */
  self: { appName: string; instanceId: string };
}

export class MetricsForwarder implements MetricsTap {
  private pending = new Map<string, Batch>();
  private bytes = 0;
  private bulk = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly flight = new SingleFlight(() => this.sendAll());
  /** Sent and accepted upstream, dropped (budget, or refused by the upstream), and failed sends. */
  readonly counts = { sentMetrics: 0, sentApplications: 0, droppedMetrics: 0, droppedApplications: 0, sentImpactSeries: 0, droppedImpactSeries: 0, failures: 0, requests: 0 };
  private droppedSinceLog = 0;

  constructor(private readonly opts: ForwarderOptions) {}

  /** Bytes waiting (an estimate, within maxBytes). */
  get waitingBytes(): number {
    return this.bytes;
  }

  registered(client: ClientScope, body: InstanceReport, now: string): void {
    this.addApp(this.batch(client), appOf(body, client.environment, 'backend', now));
  }

  recorded(client: ClientScope, body: MetricsBody, now: string, kind: MetricsKind): void {
    const environment = client.environment;
    const b = this.batch(client);
    // Browsers never register: their metrics announce them (as Unleash's frontend API does).
    if (kind === 'frontend') this.addApp(b, { appName: body.appName, instanceId: body.instanceId || 'browser', environment, sdkType: 'frontend', started: now });
    const start = body.bucket?.start ?? now;
    for (const [featureName, c] of Object.entries(body.bucket?.toggles ?? {})) {
      this.addMetric(b, { featureName, appName: body.appName, environment, timestamp: start, yes: c.yes ?? 0, no: c.no ?? 0, variants: { ...(c.variants ?? {}) } });
    }
    this.addImpact(b, (body as { impactMetrics?: unknown }).impactMetrics);
  }

  /**
   * A bulk body a downstream relay sent: forwarded within the scope of its token (the upstream
   * takes a bulk request's metrics for that token's environment only, so the others would be lost).
   */
  bulkReceived(client: ClientScope, body: BulkMetricsBody, now: string): void {
    const ofEnvironment = (environment: string | null | undefined) => environment == null || environment === client.environment;
    const b = this.batch(client);
    for (const a of body.applications) {
      if (!ofEnvironment(a.environment)) continue;
      const extra = a as { sdkType?: unknown; connectVia?: unknown };
      const app = appOf(a, client.environment, extra.sdkType === 'frontend' ? 'frontend' : 'backend', now);
      // The relays the application's metrics came through, so the upstream can show the chain.
      if (Array.isArray(extra.connectVia)) {
        app.connectVia = extra.connectVia.filter((c): c is { appName: string; instanceId: string } => typeof c?.appName === 'string' && typeof c?.instanceId === 'string').slice(0, 10);
      }
      this.addApp(b, app);
    }
    for (const m of body.metrics) {
      if (!ofEnvironment(m.environment)) continue;
      this.addMetric(b, {
        featureName: m.featureName, appName: m.appName, environment: client.environment, timestamp: (m as { timestamp?: string }).timestamp ?? now,
        yes: m.yes ?? 0, no: m.no ?? 0, variants: { ...(m.variants ?? {}) },
      });
    }
    this.addImpact(b, body.impactMetrics);
  }

  /** A body's impact metrics, each entry checked on its own (a malformed one is left out; the upstream would refuse it). */
  private addImpact(b: Batch, raw: unknown): void {
    for (const d of readImpactMetrics(raw).deltas) this.holdImpact(b, d.key, () => holdDelta(b.impact, d));
  }

  /** Holds a series' delta (through `hold`), within the budget when the series is new to the batch. */
  private holdImpact(b: Batch, key: string, hold: () => void): void {
    const had = b.impact.get(key);
    const before = had ? heldBytes(had) : 0;
    hold();
    const grow = heldBytes(b.impact.get(key)!) - before;
    if (!had && this.bytes + grow > this.opts.maxBytes) {
      b.impact.delete(key);
      this.counts.droppedImpactSeries++;
      this.droppedSinceLog++;
      return;
    }
    b.bytes += grow;
    this.bytes += grow;
  }

  /** The batch of the sender's scope. */
  private batch(client: ClientScope | RelayScope): Batch {
    const scope = 'key' in client ? normalizeScope(client.environment, client.projects) : client;
    const key = scopeKey(scope);
    let b = this.pending.get(key);
    if (!b) this.pending.set(key, (b = emptyBatch(scope)));
    return b;
  }

  /** Whether a count of `flag` may be kept for `scope`: not when the relay knows it is of another project. */
  private mayCount(scope: RelayScope, flag: string): boolean {
    const project = this.opts.projectOf(flag);
    return project === null || inScope(scope, project);
  }

  private addApp(b: Batch, app: ForwardedApp): void {
    const key = `${app.appName}\u0000${app.instanceId}`;
    const had = b.apps.get(key);
    const size = appBytes(app);
    const grow = size - (had ? appBytes(had) : 0);
    if (grow > 0 && this.bytes + grow > this.opts.maxBytes) return this.drop('application');
    b.apps.set(key, app);
    b.bytes += grow;
    this.bytes += grow;
  }

  private addMetric(b: Batch, m: ForwardedMetric): void {
    if (m.yes === 0 && m.no === 0) return;
    if (!this.mayCount(b.scope, m.featureName)) return;
    const key = `${m.appName}\u0000${m.featureName}`;
    const had = b.metrics.get(key);
    if (!had) {
      const size = metricBytes(m) + Object.keys(m.variants).reduce((n, v) => n + 60 + str(v), 0);
      if (this.bytes + size > this.opts.maxBytes) return this.drop('metric');
      b.metrics.set(key, m);
      b.bytes += size;
      this.bytes += size;
      return;
    }
    had.yes = add(had.yes, m.yes);
    had.no = add(had.no, m.no);
    if (m.timestamp < had.timestamp) had.timestamp = m.timestamp;
    for (const [v, n] of Object.entries(m.variants)) {
      if (!(v in had.variants)) {
        const size = 60 + str(v);
        if (this.bytes + size > this.opts.maxBytes) continue;
        b.bytes += size;
        this.bytes += size;
        had.variants[v] = 0;
      }
      had.variants[v] = add(had.variants[v], n);
    }
  }

  private drop(what: 'metric' | 'application'): void {
    if (what === 'metric') this.counts.droppedMetrics++;
    else this.counts.droppedApplications++;
    this.droppedSinceLog++;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Sends what waits; concurrent calls share one send. */
  flush(): Promise<void> {
    return this.flight.run();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flight.current;
  }

  private async sendAll(): Promise<void> {
    if (this.droppedSinceLog > 0) {
      this.opts.log.warn({ dropped: this.droppedSinceLog, budgetBytes: this.opts.maxBytes }, 'SDK metrics dropped: the upstream did not take them and the budget for waiting ones is full (UPSTREAM_METRICS_MAX_BYTES)');
      this.droppedSinceLog = 0;
    }
    for (const key of [...this.pending.keys()]) {
      const b = this.pending.get(key)!;
      const token = this.opts.tokenFor(b.scope);
      if (token === null) continue;
      this.pending.delete(key);
      this.bytes -= b.bytes;
      // A wider token would carry counts the sender may not give: only flags the relay knows to
      // be in the sender's projects go with it (it holds every flag of a scope it serves).
      if (!token.exact) this.keepKnown(b);
      if (b.apps.size === 0 && b.metrics.size === 0 && b.impact.size === 0) continue;
      try {
        await this.send(b.scope.environment, token.raw, b);
      } catch (err) {
        this.counts.failures++;
        this.opts.log.warn({ scope: key, err: (err as Error).message }, 'could not send SDK metrics upstream; they wait for the next try');
      }
    }
  }

  /** Leaves out of `b` the counts of flags the relay does not hold in the batch's scope (counted as dropped). */
  private keepKnown(b: Batch): void {
    for (const [key, m] of b.metrics) {
      const project = this.opts.projectOf(m.featureName);
      if (project !== null && inScope(b.scope, project)) continue;
      b.metrics.delete(key);
      this.counts.droppedMetrics++;
    }
  }

  private async send(environment: string, token: string, b: Batch): Promise<void> {
    const self = this.opts.self;
    const applications = [...b.apps.values()].map((a) => ({ ...a, connectVia: [...(a.connectVia ?? []), self] }));
    const metrics = [...b.metrics.values()];
    const impact = b.impact.size > 0 ? { impactMetrics: toEntries(b.impact.values()) } : {};
    if (this.bulk) {
      this.counts.requests++;
      const answer = await this.call(() => this.opts.upstream.post('/api/client/metrics/bulk', token, { applications, metrics, ...impact }), b);
      if (answer.status < 300) return this.sent(b);
      if (answer.status !== 404 && answer.status !== 405) return this.refusedBy(answer.status, b, environment, token);
      this.bulk = false;
      this.opts.log.info('the upstream has no POST /api/client/metrics/bulk: SDK metrics go per application');
    }
    await this.sendPerApplication(token, b);
  }

  /** Runs one upstream call; on a network error or an answer worth retrying (429, 5xx), puts `b` back and throws. */
  private async call(fn: () => Promise<{ status: number }>, b: Batch): Promise<{ status: number }> {
    let answer: { status: number };
    try {
      answer = await fn();
    } catch (err) {
      this.putBack(b);
      throw err;
    }
    if (answer.status === 429 || answer.status >= 500) {
      this.putBack(b);
      throw new UpstreamError(`the upstream answered ${answer.status}`, answer.status);
    }
    return answer;
  }

  private sent(b: Batch): void {
    this.counts.sentMetrics += b.metrics.size;
    this.counts.sentApplications += b.apps.size;
    this.counts.sentImpactSeries += b.impact.size;
  }

  /** The upstream refused the batch itself (400, 401, 403, 413): sending it again would not help. */
  private refusedBy(status: number, b: Pick<Batch, 'apps' | 'metrics'> & { impact?: Map<string, HeldSeries> }, environment: string, token: string): void {
    this.counts.droppedMetrics += b.metrics.size;
    this.counts.droppedApplications += b.apps.size;
    this.counts.droppedImpactSeries += b.impact?.size ?? 0;
    if (status === 401 || status === 403) this.opts.onTokenRefused?.(token);
    this.opts.log.warn({ environment, status, metrics: b.metrics.size }, 'the upstream refused a batch of SDK metrics; it is dropped');
  }

  private async sendPerApplication(token: string, b: Batch): Promise<void> {
    const upstream = this.opts.upstream;
    const byApp = new Map<string, Batch>();
    const of = (name: string) => {
      let one = byApp.get(name);
      if (!one) byApp.set(name, (one = emptyBatch(b.scope)));
      return one;
    };
    for (const [k, a] of b.apps) of(a.appName).apps.set(k, a);
    for (const [k, m] of b.metrics) of(m.appName).metrics.set(k, m);
    let failed: unknown = null;
    for (const [appName, one] of byApp) {
      if (failed) {
        this.putBack(one);
        continue;
      }
      try {
        for (const a of one.apps.values()) {
          this.counts.requests++;
          // A registration the upstream refuses (400) is not worth a retry; the counts still go.
          await this.call(() => upstream.post('/api/client/register', token, {
            appName, instanceId: a.instanceId, strategies: a.strategies ?? [], started: a.started ?? new Date().toISOString(), interval: a.interval ?? 0,
            ...(a.sdkVersion ? { sdkVersion: a.sdkVersion } : {}),
          }), { ...emptyBatch(b.scope), metrics: one.metrics });
        }
        this.counts.sentApplications += one.apps.size;
        if (one.metrics.size === 0) continue;
        const toggles: Record<string, { yes: number; no: number; variants: Record<string, number> }> = {};
        let start = new Date().toISOString();
        for (const m of one.metrics.values()) {
          toggles[m.featureName] = { yes: m.yes, no: m.no, variants: m.variants };
          if (m.timestamp < start) start = m.timestamp;
        }
        const instanceId = one.apps.values().next().value?.instanceId ?? this.opts.self.instanceId;
        this.counts.requests++;
        const answer = await this.call(() => upstream.post('/api/client/metrics', token, { appName, instanceId, bucket: { start, stop: new Date().toISOString(), toggles } }), { ...emptyBatch(b.scope), metrics: one.metrics });
        if (answer.status < 300) this.counts.sentMetrics += one.metrics.size;
        else this.refusedBy(answer.status, { apps: new Map(), metrics: one.metrics }, b.scope.environment, token);
      } catch (err) {
        failed = err;
      }
    }
    if (b.impact.size > 0) {
      // Without the bulk route, impact metrics go in a metrics post of their own, in the relay's name.
      const held = { ...emptyBatch(b.scope), impact: b.impact };
      if (failed) this.putBack(held);
      else {
        const now = new Date().toISOString();
        const body = { appName: this.opts.self.appName, instanceId: this.opts.self.instanceId, bucket: { start: now, stop: now, toggles: {} }, impactMetrics: toEntries(b.impact.values()) };
        this.counts.requests++;
        const answer = await this.call(() => upstream.post('/api/client/metrics', token, body), held);
        if (answer.status < 300) this.counts.sentImpactSeries += b.impact.size;
        else this.refusedBy(answer.status, held, b.scope.environment, token);
      }
    }
    if (failed) throw failed;
  }

  /** A batch the upstream did not take, back with what arrived meanwhile (within the budget). */
  private putBack(b: Batch): void {
    const into = this.batch(b.scope);
    for (const a of b.apps.values()) if (!into.apps.has(`${a.appName}\u0000${a.instanceId}`)) this.addApp(into, a);
    for (const m of b.metrics.values()) this.addMetric(into, { ...m, variants: { ...m.variants } });
    for (const [key, h] of b.impact) {
      this.holdImpact(into, key, () => {
        const now = into.impact.get(key);
        // What came meanwhile is newer: a gauge keeps its value, counts add up.
        into.impact.set(key, now ? { head: now.head, point: now.head.type === 'gauge' ? now.point : now.point.map((x, i) => x + (h.point[i] ?? 0)) } : h);
      });
    }
  }
}
