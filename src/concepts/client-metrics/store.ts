// What SDKs report, kept in memory: applications with their instances, and yes/no counts per
// (application, environment, flag), whether an SDK sent them itself or a relay (Unleash Edge) sent
// them in bulk. Only `lastSeenAt` of flag environments is made durable, in batches (see
// flusher.ts); the counts and the instance list start empty after a restart. Names the server
// does not have go to the unknown flags (unknown-flags.ts). Each count is also kept by the hour it
// arrived in, for USAGE_HOURS (the usage over time of a flag's page, and Unleash's
// /api/admin/client-metrics/features/:name/raw), inside the same byte budget.
import type { ImpactSink } from '../impact-metrics/store.js';
import { inClientScope, type ClientScope } from '../../core/access/access.js';
import type { State } from '../../core/state/state.js';
import type { BulkMetricsBody, InstanceReport, MetricsBody, ToggleCounts } from './schema.js';
import type { SdkDetails } from './sdk-headers.js';
import { ENTRY_BYTES as ENTRY, objectBytes, strBytes as str } from './sizes.js';
import { UnknownFlags } from './unknown-flags.js';

export interface InstanceInfo {
  instanceId: string;
  connectionId: string | null;
  sdkVersion: string | null;
  /** An integration built on the SDK (an OpenFeature provider, say), and its version. */
  sdkFlavor: string | null;
  sdkFlavorVersion: string | null;
  environment: string;
  started: string | null;
  interval: number | null;
  platformName: string | null;
  platformVersion: string | null;
  firstSeen: string;
  lastSeen: string;
}

export interface FlagCounts {
  environment: string;
  featureName: string;
  yes: number;
  no: number;
  variants: Record<string, number>;
  lastSeen: string;
  /** The same counts by the hour they arrived in, oldest first, none older than USAGE_HOURS. */
  hours: HourCounts[];
}

/** One hour of one flag's counts in one environment for one application. */
export interface HourCounts {
  /** The hour's start, epoch ms. */
  hour: number;
  yes: number;
  no: number;
  variants: Record<string, number>;
}

/** One hour of usage as the admin API shows it (Unleash's raw metrics entry). */
export interface UsageEntry {
  featureName: string;
  appName: string;
  environment: string;
  timestamp: string;
  yes: number;
  no: number;
  variants: Record<string, number>;
}

interface Application {
  appName: string;
  strategies: Set<string>;
  /** Least recently seen first (an instance is moved to the end each time it is seen). */
  instances: Map<string, InstanceInfo>;
  /** `${environment}\0${flag}` → counts */
  counts: Map<string, FlagCounts>;
  createdAt: string;
  lastSeen: string;
  /** Estimated bytes held for this application, its instances included (see sizes below). */
  bytes: number;
}

export interface LastSeen {
  feature: string;
  environment: string;
  at: string;
}

/** A flag's counts from one application in one environment, added up since the last report. */
export interface ReportedCounts extends Omit<FlagCounts, 'hours'> {
  appName: string;
}

/**
 * What a cluster node tells the others of what SDKs reported to it (written to the log by the
 * flusher, merged by every other node): so each node's views are the cluster's.
 */
export interface MetricsReport {
  apps: { appName: string; createdAt: string; strategies: string[] }[];
  /** [appName, instance] as the reporting node holds it now. */
  instances: [string, InstanceInfo][];
  counts: ReportedCounts[];
  /** [name, appName, environment, seenAt] of names the server does not have. */
  unknown: [string, string, string, string][];
}

/** The first `max` keys of a set or map (their order is insertion order). */
function take(from: Set<string> | Map<string, unknown>, max: number): string[] {
  const out: string[] = [];
  for (const k of from.keys()) {
    if (out.length >= max) break;
    out.push(k);
  }
  if (from instanceof Set) for (const k of out) from.delete(k);
  return out;
}

/** Which API a metrics bucket came in through: back-end SDKs, or browsers (the Frontend API). */
export type MetricsKind = 'client' | 'frontend';

/**
 * Sees every registration and metrics bucket accepted, as sent (a relay forwards them upstream).
 * Called before the store's own filtering: the store keeps what this server knows, the upstream
 * decides for itself.
 */
export interface MetricsTap {
  registered(scope: ClientScope, body: InstanceReport, now: string): void;
  recorded(scope: ClientScope, body: MetricsBody, now: string, kind: MetricsKind): void;
  /** What a relay downstream sent for the SDKs behind it. */
  bulkReceived(scope: ClientScope, body: BulkMetricsBody, now: string): void;
}

/** Bounds against a misbehaving or hostile client inventing names. */
export const MAX_APPLICATIONS = 1000;
export const MAX_INSTANCES_PER_APP = 1000;
export const MAX_VARIANTS_PER_FLAG = 100;
export const MAX_STRATEGIES_PER_APP = 100;
/** The admin views list at most this many instances per application (the newest), and say so. */
export const MAX_LISTED_INSTANCES = 100;
/** How long hourly counts are kept: Unleash's raw metrics reach 48 hours back. */
export const USAGE_HOURS = 48;
export const HOUR_MS = 3_600_000;

const OBJECT = objectBytes(14);
const instanceBytes = (i: InstanceInfo) =>
  ENTRY + OBJECT + str(i.instanceId) * 2 + str(i.connectionId) + str(i.sdkVersion) + str(i.sdkFlavor) + str(i.sdkFlavorVersion) +
  str(i.environment) + str(i.started) + str(i.platformName) + str(i.platformVersion) + str(i.firstSeen) + str(i.lastSeen);

/** An hour bucket: the object and its slot in the array; each variant name adds an entry. */
const HOUR_BYTES = objectBytes(4) + 8;
const hourBytes = (h: HourCounts) => {
  let n = HOUR_BYTES;
  for (const v of Object.keys(h.variants)) n += ENTRY + str(v);
  return n;
};

/** What a body says of the instance, its headers filling in what it leaves out (sdk-headers.ts). */
function describe(inst: InstanceInfo, body: Partial<InstanceReport>, headers: SdkDetails): void {
  inst.connectionId = body.connectionId ?? headers.connectionId ?? inst.connectionId;
  inst.sdkVersion = body.sdkVersion ?? headers.sdkVersion ?? inst.sdkVersion;
  inst.sdkFlavor = body.sdkFlavor ?? headers.sdkFlavor ?? inst.sdkFlavor;
  inst.sdkFlavorVersion = body.sdkFlavorVersion ?? headers.sdkFlavorVersion ?? inst.sdkFlavorVersion;
  inst.interval = body.interval ?? headers.interval ?? inst.interval;
  if (body.started !== undefined) inst.started = typeof body.started === 'number' ? new Date(body.started).toISOString() : body.started;
  inst.platformName = body.platformName ?? inst.platformName;
  inst.platformVersion = body.platformVersion ?? inst.platformVersion;
}

/** A sum of counts, held at the largest integer a double holds exactly rather than drifting or overflowing. */
const add = (a: number, b: number) => Math.min(a + b, Number.MAX_SAFE_INTEGER);

/**
 * Applications, instances and counts reported by SDKs, within a byte budget: past it, the least
 * recently seen instances go first, and an application goes with its last instance.
 */
export class ClientMetricsStore {
  /** Least recently seen first. */
  private readonly apps = new Map<string, Application>();
  /** Every instance of every application, least recently seen first: the eviction order. */
  private readonly lru = new Map<string, { app: Application; instanceId: string }>();
  private bytes = 0;
  /** `${feature}\0${environment}` → latest time seen, waiting for the next flush. */
  private pending = new Map<string, LastSeen>();
  /** On a cluster node: what was reported here since the last report to the other nodes (share()). */
  private sharing: { instances: Set<string>; counts: Map<string, ReportedCounts>; unknown: Map<string, MetricsReport['unknown'][number]> } | null = null;
  /** Set in relay mode (entry/relay.ts). */
  tap: MetricsTap | null = null;
  /** Where a body's `impactMetrics` go (a server's impact-metrics store, set by entry/core.ts). */
  impact: ImpactSink | null = null;

  constructor(
    private readonly state: State,
    /** CLIENT_METRICS_MAX_BYTES. */
    private readonly maxBytes = 32 * 1024 * 1024,
    /** Where names the server does not have are reported (its own budget, UNKNOWN_FLAGS_MAX_BYTES). */
    readonly unknown = new UnknownFlags(4 * 1024 * 1024),
  ) {}

  /** An SDK instance announces itself (in the token's environment, whatever its body says). */
  register(scope: ClientScope, body: InstanceReport, now: string, headers: SdkDetails = {}): void {
    this.tap?.registered(scope, body, now);
    this.registerOne(scope, body, now, headers);
    this.enforceBudget();
  }

  private registerOne(scope: ClientScope, body: InstanceReport, now: string, headers: SdkDetails): void {
    const app = this.app(body.appName, now);
    for (const s of body.strategies ?? []) {
      if (app.strategies.size >= MAX_STRATEGIES_PER_APP) break;
      if (app.strategies.has(s)) continue;
      app.strategies.add(s);
      this.grow(app, ENTRY + str(s));
    }
    this.instance(app, scope.environment, body.instanceId, now, (inst) => describe(inst, body, headers));
  }

  /**
   * Counts a metrics bucket, in the token's environment only. Flags outside the token's projects
   * are ignored: a public token must not mark another project's flags as used (their counts, their
   * lastSeenAt). Names the server does not have at all are reported as unknown flags.
   */
  record(scope: ClientScope, body: MetricsBody, now: string, headers: SdkDetails = {}, kind: MetricsKind = 'client'): void {
    this.tap?.recorded(scope, body, now, kind);
    const app = this.app(body.appName, now);
    // Only the fields the metrics schema checks: the body may carry anything else.
    const { connectionId, sdkVersion, sdkFlavor, sdkFlavorVersion, platformName, platformVersion } = body;
    this.instance(app, scope.environment, body.instanceId, now, (inst) => describe(inst, { connectionId, sdkVersion, sdkFlavor, sdkFlavorVersion, platformName, platformVersion }, headers));
    for (const [name, c] of Object.entries(body.bucket?.toggles ?? {})) this.count(scope, app, name, c, now);
    this.enforceBudget();
    this.impact?.received((body as { impactMetrics?: unknown }).impactMetrics, Date.parse(now));
  }

  /**
   * What a relay (Unleash Edge) sends for the SDKs behind it: their registrations and their counts,
   * each naming its application. Only those of the token's environment count (an entry without one
   * is in the token's), and only flags of the token's projects, as for an SDK's own metrics.
   */
  recordBulk(scope: ClientScope, body: BulkMetricsBody, now: string): void {
    this.tap?.bulkReceived(scope, body, now);
    const inScope = (environment: string | null | undefined) => environment == null || environment === scope.environment;
    for (const a of body.applications) {
      if (!inScope(a.environment)) continue;
      this.registerOne(scope, a, now, {});
    }
    // Looked up for each entry, not kept: with more applications than MAX_APPLICATIONS in one
    // body, one met earlier may have been evicted since (and a new one made under its name).
    const touched = new Set<Application>();
    for (const m of body.metrics) {
      if (!inScope(m.environment)) continue;
      const app = this.app(m.appName, now);
      if (!touched.has(app)) {
        touched.add(app);
        this.seenThroughRelay(scope, app, now);
      }
      this.count(scope, app, m.featureName, m, now);
    }
    this.enforceBudget();
    this.impact?.received(body.impactMetrics, Date.parse(now));
  }

  private count(scope: ClientScope, app: Application, name: string, c: ToggleCounts, now: string): void {
    const yes = c.yes ?? 0;
    const no = c.no ?? 0;
    if (yes === 0 && no === 0) return;
    const env = scope.environment;
    const f = this.state.features.get(name);
    if (!f) {
      this.unknown.report(name, app.appName, env, now);
      this.sharing?.unknown.set(JSON.stringify([name, app.appName, env]), [name, app.appName, env, now]);
      return;
    }
    if (!inClientScope(scope, f.project)) return;
    this.addCounts(app, env, name, yes, no, c.variants ?? {}, now);
    this.pending.set(`${name}\u0000${env}`, { feature: name, environment: env, at: now });
    if (this.sharing) {
      const key = JSON.stringify([app.appName, env, name]);
      const d = this.sharing.counts.get(key);
      if (!d) {
        this.sharing.counts.set(key, { appName: app.appName, environment: env, featureName: name, yes, no, variants: { ...c.variants }, lastSeen: now });
      } else {
        d.yes = add(d.yes, yes);
        d.no = add(d.no, no);
        for (const [v, n] of Object.entries(c.variants ?? {})) d.variants[v] = add(d.variants[v] ?? 0, n);
        d.lastSeen = now;
      }
    }
  }

  /** Adds to an application's counts of a flag in an environment (within MAX_VARIANTS_PER_FLAG variants). */
  private addCounts(app: Application, env: string, name: string, yes: number, no: number, variants: Record<string, number>, now: string): void {
    const key = `${env}\u0000${name}`;
    let counts = app.counts.get(key);
    if (!counts) {
      // Null prototype: a variant named "constructor" or "__proto__" is a name like any other.
      counts = { environment: env, featureName: name, yes: 0, no: 0, variants: Object.create(null) as Record<string, number>, lastSeen: now, hours: [] };
      app.counts.set(key, counts);
      this.grow(app, ENTRY + OBJECT + str(key) + str(name) + str(env) + str(now));
    }
    counts.yes = add(counts.yes, yes);
    counts.no = add(counts.no, no);
    if (counts.lastSeen < now) counts.lastSeen = now;
    this.addVariants(app, counts.variants, variants);
    const hour = this.hourOf(app, counts, Date.parse(now));
    hour.yes = add(hour.yes, yes);
    hour.no = add(hour.no, no);
    this.addVariants(app, hour.variants, variants);
  }

  /** Adds variant counts to `into`, which holds at most MAX_VARIANTS_PER_FLAG names. */
  private addVariants(app: Application, into: Record<string, number>, from: Record<string, number> | null | undefined): void {
    let known = Object.keys(into).length;
    for (const [variant, n] of Object.entries(from ?? {})) {
      if (!(variant in into)) {
        if (known >= MAX_VARIANTS_PER_FLAG) continue;
        known++;
        into[variant] = 0;
        this.grow(app, ENTRY + str(variant));
      }
      into[variant] = add(into[variant], n);
    }
  }

  /**
   * The bucket of the hour `at` falls in, made when missing; hours past USAGE_HOURS go first. The
   * hour is the server's, when the report arrived: an SDK's own clock (or a hostile one) cannot
   * file counts years away. A clock set back adds to the newest bucket, keeping the order.
   */
  private hourOf(app: Application, counts: FlagCounts, at: number): HourCounts {
    const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
    const hours = counts.hours;
    while (hours.length > 0 && hours[0].hour < hour - USAGE_HOURS * HOUR_MS) this.grow(app, -hourBytes(hours.shift()!));
    const last = hours.at(-1);
    if (last && last.hour >= hour) return last;
    const made: HourCounts = { hour, yes: 0, no: 0, variants: Object.create(null) as Record<string, number> };
    hours.push(made);
    this.grow(app, HOUR_BYTES);
    return made;
  }

  /**
   * Counts sent by a relay name an application, not an instance. The budget evicts instances, so
   * an application without one gets "default" (where Unleash files reports without an instance
   * id); one with instances keeps its newest from eviction while its counts keep coming.
   */
  private seenThroughRelay(scope: ClientScope, app: Application, now: string): void {
    const newest = [...app.instances.keys()].at(-1);
    if (newest === undefined) {
      this.instance(app, scope.environment, undefined, now, () => {});
      return;
    }
    const key = `${app.appName}\u0000${newest}`;
    const entry = this.lru.get(key)!;
    this.lru.delete(key);
    this.lru.set(key, entry);
  }

  /**
   * On a cluster node: from now on, gather what SDKs report here for the other nodes (takeReport),
   * so that every node's applications, counts and unknown flags are the cluster's.
   */
  share(): void {
    this.sharing ??= { instances: new Set(), counts: new Map(), unknown: new Map() };
  }

  /**
   * What SDKs reported here since the last call (instances as they are now, counts added up), at
   * most `max` entries of each kind (the rest waits for the next call); null when nothing.
   */
  takeReport(max = 10_000): MetricsReport | null {
    const s = this.sharing;
    if (!s || (s.instances.size === 0 && s.counts.size === 0 && s.unknown.size === 0)) return null;
    const report: MetricsReport = { apps: [], instances: [], counts: [], unknown: [] };
    const apps = new Set<Application>();
    for (const key of take(s.instances, max)) {
      const at = this.lru.get(key);
      if (!at) continue; // evicted since
      apps.add(at.app);
      report.instances.push([at.app.appName, { ...at.app.instances.get(at.instanceId)! }]);
    }
    for (const app of apps) report.apps.push({ appName: app.appName, createdAt: app.createdAt, strategies: [...app.strategies] });
    for (const key of take(s.counts, max)) {
      report.counts.push(s.counts.get(key)!);
      s.counts.delete(key);
    }
    for (const key of take(s.unknown, max)) {
      report.unknown.push(s.unknown.get(key)!);
      s.unknown.delete(key);
    }
    return report;
  }

  /** Puts back a report that could not be sent, added to what was gathered since. */
  restoreReport(r: MetricsReport): void {
    const s = this.sharing;
    if (!s) return;
    for (const [appName, inst] of r.instances) s.instances.add(`${appName}\u0000${inst.instanceId}`);
    for (const c of r.counts) {
      const key = JSON.stringify([c.appName, c.environment, c.featureName]);
      const d = s.counts.get(key);
      if (!d) {
        s.counts.set(key, c);
        continue;
      }
      d.yes = add(d.yes, c.yes);
      d.no = add(d.no, c.no);
      for (const [v, n] of Object.entries(c.variants)) d.variants[v] = add(d.variants[v] ?? 0, n);
    }
    for (const u of r.unknown) {
      const key = JSON.stringify(u.slice(0, 3));
      if (!s.unknown.has(key)) s.unknown.set(key, u);
    }
  }

  /** Another node's report: its instances and counts join this node's, as if reported here. */
  mergeReport(r: MetricsReport): void {
    const s = this.sharing;
    this.sharing = null; // what another node saw is not this node's to report again
    try {
      const strategies = new Map(r.apps.map((a) => [a.appName, a]));
      for (const [appName, inst] of r.instances) {
        const app = this.app(appName, inst.lastSeen);
        for (const st of strategies.get(appName)?.strategies ?? []) {
          if (app.strategies.size >= MAX_STRATEGIES_PER_APP) break;
          if (app.strategies.has(st)) continue;
          app.strategies.add(st);
          this.grow(app, ENTRY + str(st));
        }
        this.instance(app, inst.environment, inst.instanceId, inst.lastSeen, (mine) => {
          const firstSeen = mine.firstSeen < inst.firstSeen ? mine.firstSeen : inst.firstSeen;
          Object.assign(mine, inst, { firstSeen });
        });
      }
      for (const c of r.counts) this.addCounts(this.app(c.appName, c.lastSeen), c.environment, c.featureName, c.yes, c.no, c.variants, c.lastSeen);
      for (const [name, appName, environment, seenAt] of r.unknown) this.unknown.report(name, appName, environment, seenAt);
      this.enforceBudget();
    } finally {
      this.sharing = s;
    }
  }

  /** Takes the lastSeen updates gathered since the previous call. */
  takePending(): LastSeen[] {
    if (this.pending.size === 0) return [];
    const out = [...this.pending.values()];
    this.pending = new Map();
    return out;
  }

  /** Puts back updates whose write failed, unless newer ones arrived meanwhile. */
  restorePending(list: LastSeen[]): void {
    for (const e of list) {
      const key = `${e.feature}\u0000${e.environment}`;
      const cur = this.pending.get(key);
      if (!cur || cur.at < e.at) this.pending.set(key, e);
    }
  }

  pendingCount(): number {
    return this.pending.size;
  }

  /** Estimated bytes held, never above the budget for long (see enforceBudget). */
  size(): { bytes: number; applications: number; instances: number } {
    return { bytes: this.bytes, applications: this.apps.size, instances: this.lru.size };
  }

  /**
   * The most recently seen applications first, `limit` of them from `offset`, each with its
   * newest instances (at most MAX_LISTED_INSTANCES; `instanceCount` says how many there are).
   */
  applications(offset = 0, limit = 100) {
    const all = [...this.apps.values()].reverse();
    return { total: all.length, applications: all.slice(offset, offset + limit).map((a) => this.view(a)) };
  }

  /** SDK instances kept (across applications). */
  instanceCount(): number {
    return this.lru.size;
  }

  application(name: string) {
    const a = this.apps.get(name);
    return a ? this.view(a) : null;
  }

  private view(a: Application) {
    const instances = [...a.instances.values()].reverse();
    return {
      appName: a.appName,
      createdAt: a.createdAt,
      lastSeen: a.lastSeen,
      strategies: [...a.strategies].sort(),
      instanceCount: instances.length,
      instances: instances.slice(0, MAX_LISTED_INSTANCES),
      environments: [...new Set(instances.map((i) => i.environment))].sort(),
      toggles: [...a.counts.values()]
        .sort((x, y) => (x.featureName < y.featureName ? -1 : x.featureName > y.featureName ? 1 : x.environment < y.environment ? -1 : 1))
        .map(({ hours: _hours, ...c }) => ({ ...c, variants: { ...c.variants } })),
    };
  }

  /**
   * One flag's hourly counts from `since` (epoch ms) on, per application and environment, oldest
   * hour first. Hours without an evaluation are left out (Unleash writes them as zeros): the answer
   * is never larger than what the budget lets the store hold.
   */
  usage(featureName: string, since: number): UsageEntry[] {
    const from = Math.ceil(since / HOUR_MS) * HOUR_MS;
    const out: UsageEntry[] = [];
    for (const app of this.apps.values()) {
      for (const environment of this.state.environments.keys()) {
        const counts = app.counts.get(`${environment}\u0000${featureName}`);
        for (const h of counts?.hours ?? []) {
          if (h.hour < from) continue;
          out.push({ featureName, appName: app.appName, environment, timestamp: new Date(h.hour).toISOString(), yes: h.yes, no: h.no, variants: { ...h.variants } });
        }
      }
    }
    return out.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : a.appName < b.appName ? -1 : 1));
  }

  private grow(app: Application, n: number): void {
    app.bytes += n;
    this.bytes += n;
  }

  private app(name: string, now: string): Application {
    let app = this.apps.get(name);
    if (app) {
      this.apps.delete(name); // to the end: most recently seen
    } else {
      app = { appName: name, strategies: new Set(), instances: new Map(), counts: new Map(), createdAt: now, lastSeen: now, bytes: 0 };
      this.grow(app, ENTRY + OBJECT + 2 * str(name) + 2 * str(now));
      if (this.apps.size >= MAX_APPLICATIONS) this.dropApp(this.apps.values().next().value!);
    }
    this.apps.set(name, app);
    app.lastSeen = now;
    return app;
  }

  /** Finds or makes the instance, moves it to the end of both orders, and re-counts its bytes around `update`. */
  private instance(app: Application, environment: string, id: string | null | undefined, now: string, update: (inst: InstanceInfo) => void): void {
    // Unleash files instances without an id under "default".
    const instanceId = id || 'default';
    const key = `${app.appName}\u0000${instanceId}`;
    let inst = app.instances.get(instanceId);
    if (inst) {
      app.instances.delete(instanceId);
      this.lru.delete(key);
      this.grow(app, -(instanceBytes(inst) + ENTRY + str(key)));
    } else {
      inst = {
        instanceId, connectionId: null, sdkVersion: null, sdkFlavor: null, sdkFlavorVersion: null, environment, started: null,
        interval: null, platformName: null, platformVersion: null, firstSeen: now, lastSeen: now,
      };
      if (app.instances.size >= MAX_INSTANCES_PER_APP) this.dropInstance(app, app.instances.keys().next().value!);
    }
    inst.environment = environment;
    inst.lastSeen = now;
    update(inst);
    app.instances.set(instanceId, inst);
    this.lru.set(key, { app, instanceId });
    this.sharing?.instances.add(key);
    this.grow(app, instanceBytes(inst) + ENTRY + str(key));
  }

  private dropInstance(app: Application, instanceId: string): void {
    const inst = app.instances.get(instanceId)!;
    const key = `${app.appName}\u0000${instanceId}`;
    app.instances.delete(instanceId);
    this.lru.delete(key);
    this.grow(app, -(instanceBytes(inst) + ENTRY + str(key)));
  }

  private dropApp(app: Application): void {
    for (const id of app.instances.keys()) this.lru.delete(`${app.appName}\u0000${id}`);
    this.apps.delete(app.appName);
    this.bytes -= app.bytes;
  }

  /**
   * Past the budget, the least recently seen instance goes, and its application with its last one.
   * An application over the budget on its own (a client inventing variant names across many flags
   * and hours) goes too, counts and history with it: the budget holds whoever sends what.
   */
  private enforceBudget(): void {
    while (this.bytes > this.maxBytes && this.lru.size > 0) {
      const { app, instanceId } = this.lru.values().next().value!;
      if (app.instances.size === 1) this.dropApp(app);
      else this.dropInstance(app, instanceId);
    }
  }
}
