// Relay mode, put together: the tokens the relay knows (tokens.ts), one follower per scope worth
// following (follower.ts), each applying what the upstream sends through the engine as one diffed
// command (sync.ts), and the SDK metrics going upstream (forwarder.ts). The relay is a change
// source like the admin API: the client snapshot, the push hub, the evaluator and the data folder
// serve what it applies, unchanged. Readiness: every configured token held, which happens only
// once its flags are (from the upstream now, or from the data folder).
import type { IncomingMessage } from 'node:http';
import client from 'prom-client';
import type { ClientMetricsStore } from '../../concepts/client-metrics/store.js';
import type { RelayConfig } from '../../core/config.js';
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { Readiness } from '../../concepts/operations/readiness.js';
import type { State } from '../../core/state/state.js';
import type { Actor } from '../../core/state/types.js';
import type { TokenHasher } from '../../concepts/tokens/hasher.js';
import { UpstreamFollower } from './upstream-follower.js';
import { MetricsForwarder } from './forwarder.js';
import { dropTokens, holdToken, PRETRUSTED_TOKEN_NAME, RELAY_TOKEN_NAME } from './grants.js';
import { covers, normalizeScope, scopeKey, widest, type RelayScope } from './scope.js';
import { flagsInScope, largeUpdate, syncScope, syncScopeInSlices, type ScopeUpdate } from './sync.js';
import { RelayTokens, type KnownToken, type TokenHost } from './tokens.js';
import { Upstream } from './upstream.js';
import { TokenValidator } from './validator.js';

export interface RelayDeps {
  engine: Engine;
  config: RelayConfig;
  log: Logger;
  hasher: TokenHasher;
  /** Where SDK metrics arrive; the relay taps it to forward them. */
  metrics: ClientMetricsStore;
  /** GET /ready: held until every configured token has its flags. */
  readiness: Readiness;
  /** The largest upstream answer read (IMPORT_BODY_LIMIT_BYTES: the largest state this server takes). */
  maxAnswerBytes: number;
}

/** Events a relay keeps in memory (and so in its checkpoints), at least; the oldest go past twice this. */
export const RELAY_MAX_EVENTS = 10_000;

/** The non-secret part of a token, for logs and readiness: `project:environment.`. */
export const tokenLabel = (raw: string) => raw.slice(0, raw.indexOf('.') + 1) || '(not a token)';

/**
 * Refuses a data folder that is not a relay's: one with tokens made by a Fanion server (or its
 * webhooks) would let those tokens in without the upstream granting them.
 */
export function checkRelayFolder(state: State): string | null {
  for (const t of state.apiTokens.values()) {
    if (t.tokenName !== RELAY_TOKEN_NAME && t.tokenName !== PRETRUSTED_TOKEN_NAME) return 'DATA_DIR holds a Fanion server\'s data (tokens it made): a relay needs a data folder of its own';
  }
  if (state.addons.size > 0) return 'DATA_DIR holds a Fanion server\'s data (webhooks): a relay needs a data folder of its own';
  return null;
}

/** Brings `scope` to `update` through the engine (relay and offline mode): a large change a slice at a time, as an import is. */
export async function applyScopeUpdate(engine: Engine, actor: Actor, scope: RelayScope, update: ScopeUpdate, source: string): Promise<void> {
  if (largeUpdate(update, engine.state)) await engine.runInSlices(actor, syncScopeInSlices(scope, update, source));
  else await engine.run(actor, syncScope(scope, update, source));
}

export class Relay implements TokenHost {
  readonly upstream: Upstream;
  readonly validator: TokenValidator;
  readonly tokens: RelayTokens;
  readonly forwarder: MetricsForwarder;
  private readonly followers = new Map<string, UpstreamFollower>();
  private readonly actor: Actor;
  private readonly warned = new Set<string>();
  /** Configured tokens not held yet, by hash: what readiness waits for. */
  private readonly unready = new Map<string, () => void>();
  private closed = false;
  /** Until PRETRUSTED_TOKENS are held, requests wait: one asked upstream first would be refused and remembered so. */
  private pretrustedHeld: Promise<void> | null = null;

  constructor(private readonly deps: RelayDeps) {
    const { config, log } = deps;
    this.upstream = new Upstream({
      baseUrl: config.upstreamUrl, timeoutMs: config.upstreamTimeoutMs, customHeaders: config.customHeaders, authHeader: config.upstreamAuthHeader,
      appName: config.appName, instanceId: config.instanceId, maxBytes: deps.maxAnswerBytes,
    });
    // Events of what came from upstream say so: createdBy `relay:<upstream URL>`.
    this.actor = { name: `relay:${config.upstreamUrl}`, userId: null };
    this.validator = new TokenValidator(this.upstream, log);
    this.tokens = new RelayTokens(() => deps.engine.state, deps.hasher, this.validator, this, log, {
      // A new scope's first sync comes after the check: both within the wait.
      waitMs: 2 * config.upstreamTimeoutMs, refusedForMs: config.unknownTokenCacheMs, revalidateMs: config.tokenRevalidationMs,
    });
    this.forwarder = new MetricsForwarder({
      upstream: this.upstream, log, maxBytes: config.metricsMaxBytes, tokenFor: (scope) => this.metricsToken(scope),
      projectOf: (flag) => deps.engine.state.features.get(flag)?.project ?? null,
      onTokenRefused: () => void this.tokens.revalidate(),
      self: { appName: config.appName, instanceId: config.instanceId },
    });
    deps.metrics.tap = this.forwarder;
  }

  /** Starts following: configured tokens held from before are followed at once, then checked upstream. */
  start(): void {
    this.pretrustedHeld = this.holdPretrusted()
      .catch((err) => this.deps.log.error({ err: (err as Error).message }, 'could not hold PRETRUSTED_TOKENS'))
      .finally(() => {
        this.pretrustedHeld = null;
      });
    this.tokens.configure(this.deps.config.tokens);
    this.tokens.configured().forEach((k, i) => {
      if (this.deps.engine.state.apiTokens.has(k.hash) || this.unready.has(k.hash)) return;
      this.unready.set(k.hash, this.deps.readiness.require(`TOKENS entry ${i + 1} (${tokenLabel(k.raw)}) has its flags`));
    });
    this.reconcile();
    this.tokens.start();
    this.forwarder.start(this.deps.config.metricsIntervalMs);
  }

  /**
   * PRETRUSTED_TOKENS become frontend tokens of the state, named apart from the upstream's: the
   * token checks (tokens.ts) never see them, so the upstream is never asked about them and cannot
   * revoke them. Those of an earlier run's settings go.
   */
  private async holdPretrusted(): Promise<void> {
    const { engine, hasher, config } = this.deps;
    const wanted = new Set<string>();
    for (const p of config.pretrusted) {
      const hash = hasher.hash(p.credential);
      wanted.add(hash);
      const grant = { type: 'frontend' as const, scope: normalizeScope(p.environment, [p.project]), expiresAt: null };
      await engine.run(this.actor, holdToken(hash, grant, 'PRETRUSTED_TOKENS', PRETRUSTED_TOKEN_NAME));
    }
    const stale = [...engine.state.apiTokens.values()].filter((t) => t.tokenName === PRETRUSTED_TOKEN_NAME && !wanted.has(t.hash)).map((t) => t.hash);
    if (stale.length > 0) await engine.run(this.actor, dropTokens(stale, 'PRETRUSTED_TOKENS'));
  }

  /** POST /edge/validate on a relay: tokens it does not hold are first checked with its own upstream. */
  admitAll(raws: readonly string[]): Promise<void> {
    return this.tokens.admitAll(raws);
  }

  /** The async step before authentication: see RelayTokens.admit. */
  admit(req: IncomingMessage): Promise<void> | null {
    const held = this.pretrustedHeld;
    if (held) return held.then(() => this.tokens.admit(req) ?? undefined);
    return this.tokens.admit(req);
  }

  /** TOKENS entries not held (not granted yet, or refused), by label: for /internal-backstage/tokens. */
  pendingTokens(): string[] {
    const held = this.deps.engine.state.apiTokens;
    return this.tokens.configured().filter((k) => !held.has(k.hash)).map((k) => tokenLabel(k.raw));
  }

  /** The TOKENS entry `req` presents, when the relay cannot serve it yet (see RelayTokens.waitingFor); its label, or null. */
  notReadyFor(req: IncomingMessage): string | null {
    const k = this.tokens.waitingFor(req);
    return k ? tokenLabel(k.raw) : null;
  }

  /** The follower whose scope covers `scope`, if any. */
  private followerCovering(scope: RelayScope): UpstreamFollower | null {
    for (const f of this.followers.values()) if (covers(f.scope, scope)) return f;
    return null;
  }

  /** Whether the state holds the flags of `scope`: a client token covering it is held (held only once its flags were). */
  private heldCovering(scope: RelayScope): boolean {
    for (const t of this.deps.engine.state.apiTokens.values()) {
      if (t.type === 'client' && covers(normalizeScope(t.environment, t.projects), scope)) return true;
    }
    return false;
  }

  private servable(scope: RelayScope): boolean {
    const f = this.followerCovering(scope);
    return (f !== null && f.status.syncs > 0) || this.heldCovering(scope);
  }

  async granted(k: KnownToken): Promise<boolean> {
    const grant = k.grant!;
    if (grant.type === 'client') {
      this.reconcile();
      const f = this.followerCovering(grant.scope);
      if (f && f.status.syncs === 0 && !this.heldCovering(grant.scope)) {
        await Promise.race([f.firstSync, new Promise((resolve) => setTimeout(resolve, this.deps.config.upstreamTimeoutMs).unref())]);
      }
    }
    if (!this.servable(grant.scope)) {
      const key = `${grant.type} ${scopeKey(grant.scope)}`;
      if (grant.type === 'frontend' && !this.warned.has(key)) {
        this.warned.add(key);
        this.deps.log.warn({ scope: grant.scope }, 'a frontend token whose environment and projects no client token covers: the relay cannot fetch its flags (add a client token of that scope to TOKENS)');
      }
      return false;
    }
    if (this.closed) return false;
    await this.deps.engine.run(this.actor, holdToken(k.hash, grant, this.deps.config.upstreamUrl));
    this.unready.get(k.hash)?.();
    this.unready.delete(k.hash);
    return true;
  }

  seen(): void {
    this.reconcile();
  }

  async revoked(list: KnownToken[]): Promise<void> {
    this.reconcile();
    if (this.closed) return;
    await this.deps.engine.run(this.actor, dropTokens(list.map((k) => k.hash), this.deps.config.upstreamUrl));
  }

  /**
   * Follows exactly the widest scopes of the client tokens known: a new one gets a follower, one
   * now covered by a wider one (or without tokens) is left, and a follower whose token is gone
   * takes another of its scope.
   */
  private reconcile(): void {
    if (this.closed) return;
    const scopes = new Map<string, RelayScope>();
    for (const k of this.tokens.known.values()) if (k.grant?.type === 'client') scopes.set(scopeKey(k.grant.scope), k.grant.scope);
    const wanted = widest([...scopes.values()]);
    const keys = new Set(wanted.map(scopeKey));
    for (const scope of wanted) {
      const key = scopeKey(scope);
      const token = this.tokens.tokenFor(scope)!;
      const f = this.followers.get(key);
      if (!f) {
        const follower = new UpstreamFollower(scope, token, {
          upstream: this.upstream, log: this.deps.log, refreshMs: this.deps.config.featuresRefreshMs, protocol: this.deps.config.protocol,
          apply: (update) => applyScopeUpdate(this.deps.engine, this.actor, scope, update, this.deps.config.upstreamUrl),
          // A refusal may be a revocation: ask about the token now rather than at the next interval.
          onTokenRefused: () => void this.tokens.revalidate(),
        });
        this.followers.set(key, follower);
        follower.start();
        // Frontend tokens this scope covers could not be held before its flags were there.
        void follower.firstSync.then(() => this.holdWaitingFrontendTokens(scope));
      } else if (!this.stillGranted(f.currentToken, scope)) {
        f.useToken(token);
      }
    }
    for (const [key, f] of this.followers) {
      if (keys.has(key)) continue;
      this.followers.delete(key);
      void f.stop();
    }
  }

  private async holdWaitingFrontendTokens(scope: RelayScope): Promise<void> {
    const held = this.deps.engine.state.apiTokens;
    for (const k of [...this.tokens.known.values()]) {
      if (k.grant?.type !== 'frontend' || held.has(k.hash) || !covers(scope, k.grant.scope)) continue;
      await this.granted(k).catch((err) => this.deps.log.warn({ err: (err as Error).message }, 'could not hold a frontend token'));
    }
  }

  private stillGranted(raw: string, scope: RelayScope): boolean {
    const k = this.tokens.known.get(this.deps.hasher.hash(raw));
    return k?.grant?.type === 'client' && scopeKey(k.grant.scope) === scopeKey(scope);
  }

  /**
   * A client token to send a scope's SDK metrics with: one of exactly that scope (the upstream
   * then takes what the sender's own token would), else a configured or known one covering it.
   */
  private metricsToken(scope: RelayScope): { raw: string; exact: boolean } | null {
    const exact = this.tokens.tokenFor(scope);
    if (exact !== null) return { raw: exact, exact: true };
    let found: string | null = null;
    for (const k of this.tokens.known.values()) {
      if (k.grant?.type !== 'client' || !covers(k.grant.scope, scope)) continue;
      if (k.configured) return { raw: k.raw, exact: false };
      found ??= k.raw;
    }
    return found === null ? null : { raw: found, exact: false };
  }

  /** Upstream state per scope, flags per scope, tokens and forwarded metrics, for /internal-backstage/prometheus. */
  registerMetrics(registry: client.Registry): void {
    const followers = () => [...this.followers.values()];
    const labelled = (name: string, help: string, labelNames: string[], fill: (set: (labels: Record<string, string>, v: number) => void) => void, kind: 'gauge' | 'counter' = 'gauge') => {
      const Ctor = kind === 'gauge' ? client.Gauge : client.Counter;
      new Ctor({
        name, help, labelNames, registers: [registry],
        collect(this: client.Gauge | client.Counter) {
          this.reset();
          fill((labels, v) => (kind === 'gauge' ? (this as client.Gauge).set(labels, v) : (this as client.Counter).inc(labels, v)));
        },
      });
    };
    labelled('relay_upstream_connected', 'Whether the scope\'s last upstream request (or its stream) worked, by the protocol in use', ['scope', 'protocol'], (set) => {
      for (const f of followers()) set({ scope: scopeKey(f.scope), protocol: f.status.protocol }, f.status.connected ? 1 : 0);
    });
    labelled('relay_upstream_last_sync_timestamp_seconds', 'When the scope last matched the upstream', ['scope'], (set) => {
      for (const f of followers()) if (f.status.lastSyncAt !== null) set({ scope: scopeKey(f.scope) }, f.status.lastSyncAt / 1000);
    });
    labelled('relay_upstream_syncs_total', 'Upstream answers that brought (or confirmed) the scope', ['scope'], (set) => {
      for (const f of followers()) set({ scope: scopeKey(f.scope) }, f.status.syncs);
    }, 'counter');
    labelled('relay_upstream_failures_total', 'Upstream requests or streams of the scope that failed (not counting a protocol the upstream does not offer, found out once)', ['scope'], (set) => {
      for (const f of followers()) set({ scope: scopeKey(f.scope) }, f.status.failures);
    }, 'counter');
    labelled('relay_scope_flags', 'Flags held per followed scope', ['scope'], (set) => {
      for (const f of followers()) set({ scope: scopeKey(f.scope) }, flagsInScope(this.deps.engine.state, f.scope));
    });
    labelled('relay_tokens', 'Tokens the relay holds, by type', ['type'], (set) => {
      const n = { client: 0, frontend: 0 };
      for (const t of this.deps.engine.state.apiTokens.values()) if (t.type !== 'admin') n[t.type]++;
      set({ type: 'client' }, n.client);
      set({ type: 'frontend' }, n.frontend);
    });
    labelled('relay_token_checks_total', 'Tokens checked with the upstream, by outcome (overflow: refused unasked, the queue being full)', ['result'], (set) => {
      const c = this.tokens.counts;
      set({ result: 'granted' }, c.granted);
      set({ result: 'refused' }, c.refused);
      set({ result: 'overflow' }, c.overflow);
      set({ result: 'timed_out' }, c.timedOut);
      set({ result: 'revoked' }, c.revoked);
    }, 'counter');
    labelled('relay_token_check_requests_total', 'Requests sent upstream to check tokens', [], (set) => set({}, this.validator.requests), 'counter');
    labelled('relay_metrics_forwarded_total', 'SDK metrics entries and applications the upstream took', ['kind'], (set) => {
      set({ kind: 'metrics' }, this.forwarder.counts.sentMetrics);
      set({ kind: 'applications' }, this.forwarder.counts.sentApplications);
      set({ kind: 'impact_series' }, this.forwarder.counts.sentImpactSeries);
    }, 'counter');
    labelled('relay_metrics_dropped_total', 'SDK metrics entries and applications dropped (budget full, or refused by the upstream)', ['kind'], (set) => {
      set({ kind: 'metrics' }, this.forwarder.counts.droppedMetrics);
      set({ kind: 'applications' }, this.forwarder.counts.droppedApplications);
      set({ kind: 'impact_series' }, this.forwarder.counts.droppedImpactSeries);
    }, 'counter');
    labelled('relay_metrics_forward_failures_total', 'Sends of SDK metrics that failed (kept for the next try)', [], (set) => set({}, this.forwarder.counts.failures), 'counter');
    labelled('relay_metrics_waiting_bytes', 'SDK metrics waiting to go upstream (estimated bytes)', [], (set) => set({}, this.forwarder.waitingBytes));
  }

  /** Stops following; a last send of SDK metrics, bounded by the upstream timeout. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tokens.close();
    await Promise.all([...this.followers.values()].map((f) => f.stop()));
    this.followers.clear();
    await Promise.race([this.forwarder.flush().catch(() => {}), new Promise((resolve) => setTimeout(resolve, this.deps.config.upstreamTimeoutMs).unref())]);
    await this.forwarder.close();
  }
}
