// What SDKs report, kept in memory: applications with their instances, and yes/no counts per
// (application, environment, flag). Only `lastSeenAt` of flag environments is made durable, in
// batches (see flusher.ts); the counts and the instance list start empty after a restart.
import type { ClientScope } from '../auth/authenticator.js';
import type { State } from '../state/state.js';
import type { MetricsBody, RegisterBody } from './schema.js';

export interface InstanceInfo {
  instanceId: string;
  connectionId: string | null;
  sdkVersion: string | null;
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
}

interface Application {
  appName: string;
  strategies: Set<string>;
  instances: Map<string, InstanceInfo>;
  /** `${environment}\0${flag}` → counts */
  counts: Map<string, FlagCounts>;
  createdAt: string;
  lastSeen: string;
}

export interface LastSeen {
  feature: string;
  environment: string;
  at: string;
}

/** Bounds against a misbehaving or hostile client inventing names. */
const MAX_APPLICATIONS = 1000;
const MAX_INSTANCES_PER_APP = 1000;
const MAX_VARIANTS_PER_FLAG = 100;

function dropOldest<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as K);
}

export class ClientMetricsStore {
  private readonly apps = new Map<string, Application>();
  /** `${feature}\0${environment}` → latest time seen, waiting for the next flush. */
  private pending = new Map<string, LastSeen>();

  constructor(private readonly state: State) {}

  register(scope: ClientScope, body: RegisterBody, now: string): void {
    const app = this.app(body.appName, now);
    for (const s of body.strategies) app.strategies.add(s);
    const inst = this.instance(app, scope, body.instanceId, now);
    inst.connectionId = body.connectionId ?? inst.connectionId;
    inst.sdkVersion = body.sdkVersion ?? inst.sdkVersion;
    inst.started = typeof body.started === 'number' ? new Date(body.started).toISOString() : body.started;
    inst.interval = body.interval;
    inst.platformName = body.platformName ?? inst.platformName;
    inst.platformVersion = body.platformVersion ?? inst.platformVersion;
  }

  /** Counts a metrics bucket. Flags the server does not know are ignored, as Unleash does. */
  record(scope: ClientScope, body: MetricsBody, now: string): void {
    const app = this.app(body.appName, now);
    const inst = this.instance(app, scope, body.instanceId, now);
    if (body.connectionId) inst.connectionId = body.connectionId;
    const toggles = body.bucket?.toggles ?? {};
    const env = scope.environment;
    for (const [name, c] of Object.entries(toggles)) {
      const yes = c.yes ?? 0;
      const no = c.no ?? 0;
      if (yes === 0 && no === 0) continue;
      const f = this.state.features.get(name);
      if (!f) continue;
      const key = `${env}\u0000${name}`;
      let counts = app.counts.get(key);
      if (!counts) {
        counts = { environment: env, featureName: name, yes: 0, no: 0, variants: {}, lastSeen: now };
        app.counts.set(key, counts);
      }
      counts.yes += yes;
      counts.no += no;
      counts.lastSeen = now;
      for (const [variant, n] of Object.entries(c.variants ?? {})) {
        if (!(variant in counts.variants) && Object.keys(counts.variants).length >= MAX_VARIANTS_PER_FLAG) continue;
        counts.variants[variant] = (counts.variants[variant] ?? 0) + n;
      }
      this.pending.set(`${name}\u0000${env}`, { feature: name, environment: env, at: now });
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

  applications() {
    return [...this.apps.values()].map((a) => this.view(a));
  }

  application(name: string) {
    const a = this.apps.get(name);
    return a ? this.view(a) : null;
  }

  private view(a: Application) {
    return {
      appName: a.appName,
      createdAt: a.createdAt,
      lastSeen: a.lastSeen,
      strategies: [...a.strategies].sort(),
      instances: [...a.instances.values()],
      environments: [...new Set([...a.instances.values()].map((i) => i.environment))].sort(),
      toggles: [...a.counts.values()].sort((x, y) => (x.featureName < y.featureName ? -1 : x.featureName > y.featureName ? 1 : x.environment < y.environment ? -1 : 1)),
    };
  }

  private app(name: string, now: string): Application {
    let app = this.apps.get(name);
    if (!app) {
      app = { appName: name, strategies: new Set(), instances: new Map(), counts: new Map(), createdAt: now, lastSeen: now };
      this.apps.set(name, app);
      dropOldest(this.apps, MAX_APPLICATIONS);
    }
    app.lastSeen = now;
    return app;
  }

  private instance(app: Application, scope: ClientScope, id: string | undefined, now: string): InstanceInfo {
    // Unleash files instances without an id under "default".
    const instanceId = id || 'default';
    let inst = app.instances.get(instanceId);
    if (!inst) {
      inst = {
        instanceId, connectionId: null, sdkVersion: null, environment: scope.environment, started: null, interval: null,
        platformName: null, platformVersion: null, firstSeen: now, lastSeen: now,
      };
      app.instances.set(instanceId, inst);
      dropOldest(app.instances, MAX_INSTANCES_PER_APP);
    }
    inst.environment = scope.environment;
    inst.lastSeen = now;
    return inst;
  }
}
