// The composition root: the one place that builds Fanion's parts and wires them together. The HTTP
// server (server.ts) mounts routes on what this returns; tests that need an engine over a real
// data folder open it here too, so every wiring is the production one.
//
//   data folder → storage (lock, checkpoint + WAL replay) → engine → checkpointer
//   or PostgreSQL → cluster (checkpoint + log replay)     → engine → follower, checkpointer
//                                                         → client snapshot (on every change)
//                                                         → SDK metrics store + flusher
//               → token hash key → seeded tokens → authenticator
// The engine appends to a log (wal/record-log.ts): the data folder's WAL by default, the cluster's
// table in PostgreSQL when DATABASE_URL or DATABASE_HOST is set. Nothing built on the engine
// knows which.
import fs from 'node:fs';
import type { WebhookDeliverer } from '../concepts/webhooks/deliverer.js';
import type { WebhookLeadership } from '../concepts/webhooks/leadership.js';
import { OpenAuthenticator, type Authenticator } from '../core/access/access.js';
import { ClientSnapshot } from '../concepts/client-api/snapshot.js';
import { FrontDoor } from '../concepts/client-api/front-door.js';
import { MetricsFlusher } from '../concepts/client-metrics/flusher.js';
import { ClientMetricsStore, type MetricsReport } from '../concepts/client-metrics/store.js';
import { UnknownFlags } from '../concepts/client-metrics/unknown-flags.js';
import { ImpactStore } from '../concepts/impact-metrics/store.js';
import type { Config } from '../core/config.js';
import { Engine } from '../core/engine/engine.js';
import { NOSNIFF } from '../http/respond.js';
import { PushHub } from '../concepts/push/hub.js';
import { FanionMetrics } from '../concepts/operations/metrics.js';
import { Readiness } from '../concepts/operations/readiness.js';
import { Evaluator, HOSTNAME } from '../concepts/evaluation/answers.js';
import { PreparedFlags } from '../concepts/evaluation/prepared.js';
import { Offline } from '../modes/relay/offline.js';
import { checkRelayFolder, Relay, RELAY_MAX_EVENTS } from '../modes/relay/relay.js';
import { Toucher } from '../core/state/touch.js';
import type { Logger } from '../core/logger.js';
import { Checkpointer, type Checkpoints } from '../core/storage/checkpointer.js';
import type { Follower } from '../core/storage/postgres/follower.js';
import type { PgLog } from '../core/log/postgres/pg-log.js';
import type { LogBarrier } from '../core/storage/postgres/barrier.js';
import type { ClusterKeys } from '../core/log/postgres/connect.js';
import { openStorage, type Storage } from '../core/storage/storage.js';
import type { State } from '../core/state/state.js';
import type { RecordLog } from '../core/log/record-log.js';
import { listSegments } from '../core/log/wal/scan.js';
import { TokenAuthenticator } from '../concepts/tokens/token-authenticator.js';
import { loadHashKey } from '../concepts/tokens/hash-key.js';
import { TokenHasher } from '../concepts/tokens/hasher.js';
import { seedTokens } from '../concepts/tokens/seed.js';
import type { OidcSignIn } from '../concepts/people/oidc.js';
import type { PasswordHasher } from '../concepts/people/password-hasher.js';
import type { PeopleAuthenticator } from '../concepts/people/people-authenticator.js';
import type { SignInGuard } from '../concepts/people/sign-in-guard.js';
import type { FileLayer } from '../core/log/wal/file-layer.js';

/** People's passwords and sign-in limits, and webhooks: built by a server, not by a relay. */
export interface AdminSide {
  /** Password hashes, a bounded number at once. */
  passwords: PasswordHasher;
  /** Sign-in attempts per address and per account. */
  guard: SignInGuard;
  /** Webhooks: every durable event to the addons that want it. */
  webhooks: WebhookDeliverer;
}

/** What Fanion takes from outside: settings, a logger, and the I/O edges tests replace. */
export interface FanionDeps {
  config: Config;
  log: Logger;
  /** The file operations under the WAL and checkpoints (fault injection in tests). */
  files?: FileLayer;
  clock?: () => Date;
  newId?: () => string;
  /** How long a failed checkpoint waits before the next try (tests retry at once). */
  checkpointRetryMs?: number;
  /** How often due release plan progressions are looked for (tests with an injected clock look often). */
  progressionCheckMs?: number;
  /**
   * What `GET /ready` waits for. The HTTP server makes it (it answers /ready while the data folder
   * is replayed) and passes it here, so a part built below can hold readiness too.
   */
  readiness?: Readiness;
  /**
   * Told when this node cannot go on serving and must be restarted (a cluster node whose next
   * records were pruned while it was away); main.ts exits. Logged only when not given.
   */
  onFatal?: (message: string) => void;
}

/** The parts of a cluster node a test or the metrics look at. */
export interface ClusterParts {
  nodeId: string;
  /** The schema the cluster's tables are in (PostgreSQL's current_schema for this role). */
  schema: string;
  log: PgLog;
  follower: Follower;
  /** Its advisory lock keys and NOTIFY channel. */
  keys: ClusterKeys;
  /** What an admin request waits for: the log applied up to its head (read-your-writes across nodes). */
  barrier: LogBarrier;
}

/** Fanion's parts, wired, with one close for all of them. */
export interface Fanion {
  engine: Engine;
  /** The data folder (null on a cluster node, whose state is the database's). */
  storage: Storage | null;
  /** Set on a cluster node. */
  cluster: ClusterParts | null;
  checkpointer: Checkpoints;
  hasher: TokenHasher;
  auth: Authenticator;
  /** API tokens by their secret, in both auth modes (see `auth` for who is calling). */
  tokens: TokenAuthenticator;
  /** Sessions and personal access tokens on top of API tokens (null with AUTH_TYPE=none). */
  people: PeopleAuthenticator | null;
  /** What only a server has, for its admin API (null on a relay, which has none). */
  admin: AdminSide | null;
  /** Single sign-on, when OIDC_ISSUER is set. */
  oidc: OidcSignIn | null;
  /** What `GET /api/client/features` serves, kept up to date by the engine's change feed. */
  snapshot: ClientSnapshot;
  /** Streams and delta answers, fed by the engine's change feed with durable changes only. */
  push: PushHub;
  /** Answers of the Frontend API and OFREP. */
  evaluator: Evaluator;
  metrics: ClientMetricsStore;
  /** What /internal-backstage/prometheus shows. */
  operations: FanionMetrics;
  /** Where SDK polls are decided, each connection's last poll kept, and a poll's answer written. */
  frontDoor: FrontDoor;
  flusher: MetricsFlusher;
  /** Impact metrics SDKs send, kept as series in the state (written every METRICS_FLUSH_MS). */
  impact: ImpactStore;
  /** Relay mode (UPSTREAM_URL): what follows the upstream and forwards SDK metrics; null otherwise. */
  relay: Relay | null;
  /** Offline mode (BOOTSTRAP_FILE): what reads the features file; null otherwise. */
  offline: Offline | null;
  /** The conditions `GET /ready` waits for. */
  readiness: Readiness;
  /** Writes pending metrics, abandons or finishes a checkpoint, closes the log (and releases the data folder's lock). */
  close(): Promise<void>;
  /** What close() is waiting for now, for a shutdown that takes too long to say so. */
  closingStep(): string;
}

/**
 * Opens the data folder (replaying it) and builds every part. Throws if the folder is locked by
 * another process or cannot be read; nothing is left open then.
 */
/** A webhook leader starts a send only this soon after its last fenced write began (leadership.ts). */
const WEBHOOK_LEASE_MS = 2_000;
/** How often due release plan progressions are looked for: they are counted in whole minutes. */
const PROGRESSION_CHECK_MS = 1_000;

/** Where the state comes from and where records go: the data folder, or the cluster's database. */
interface Opened {
  state: State;
  log: RecordLog;
  storage: Storage | null;
  replayed: { records: number; ms: number; checkpoint: unknown };
  /** The key that hashes API tokens. */
  hashKey(): Promise<Buffer>;
  /** Checkpointing (and, on a cluster, following) for this engine. */
  attach(engine: Engine): { checkpointer: Checkpoints; cluster: ClusterParts | null };
  close(): Promise<void>;
}

async function openEmbedded(deps: FanionDeps): Promise<Opened> {
  const { config, log } = deps;
  // People's password rules: not on a relay, which has no people (nor loads their code).
  if (!config.relay && !config.offline) (await import('../concepts/people/seed.js')).checkDefaultAdminPassword(config);
  const storage = await openStorage({ dataDir: config.dataDir, sync: config.walSync === 'always', log, files: deps.files, clock: deps.clock });
  return {
    state: storage.state,
    log: storage.wal,
    storage,
    replayed: storage.replayed,
    hashKey: () => loadHashKey(config.dataDir, config.tokenHashKey, log),
    attach: (engine) => ({
      checkpointer: new Checkpointer({
        engine, wal: storage.wal, dir: config.dataDir, files: storage.files, log, everyRecords: config.checkpoint.records, everyBytes: config.checkpoint.bytes,
        retryMs: deps.checkpointRetryMs,
      }),
      cluster: null,
    }),
    close: async () => {
      await storage.wal.close();
      storage.release();
    },
  };
}

async function openClusterNode(deps: FanionDeps): Promise<Opened> {
  const { config, log } = deps;
  if (fs.existsSync(config.dataDir) && listSegments(config.dataDir).length > 0) {
    // Nothing of it is read: a node's state is the database's. Say so rather than look like it was.
    log.warn({ dataDir: config.dataDir }, 'DATA_DIR holds a data folder that a cluster node does not use: its flags are not in the cluster');
  }
  // PostgreSQL's client is loaded only by a cluster node.
  const { openCluster } = await import('../core/storage/postgres/cluster.js');
  const node = await openCluster({ db: config.cluster!, log, tokenHashKey: config.tokenHashKey, clock: deps.clock });
  let follower: Follower | null = null;
  return {
    state: node.state,
    log: node.log,
    storage: null,
    replayed: node.replayed,
    hashKey: async () => node.hashKey,
    attach: (engine) => {
      const onFatal = deps.onFatal ?? ((message: string) => log.fatal(message));
      const parts = node.attach(engine, { checkpointRecords: config.checkpoint.records, onFellBehind: onFatal });
      follower = parts.follower;
      return { checkpointer: parts.checkpointer, cluster: { nodeId: node.nodeId, schema: node.schema, log: node.log, follower, keys: node.keys, barrier: parts.barrier } };
    },
    close: async () => {
      await follower?.close();
      await node.close();
    },
  };
}

/** The classes of people and webhooks, loaded by a server only. */
async function adminParts() {
  const [deliverer, leadership, logic, sender, passwords, people, guard, scheduler] = await Promise.all([
    import('../concepts/webhooks/deliverer.js'), import('../concepts/webhooks/leadership.js'), import('../concepts/webhooks/logic.js'), import('../concepts/webhooks/sender.js'),
    import('../concepts/people/password-hasher.js'), import('../concepts/people/people-authenticator.js'), import('../concepts/people/sign-in-guard.js'),
    import('../concepts/release-plans/scheduler.js'),
  ]);
  return {
    WebhookDeliverer: deliverer.WebhookDeliverer, WebhookLeadership: leadership.WebhookLeadership, webhookLimits: logic.webhookLimits, httpSender: sender.httpSender,
    PasswordHasher: passwords.PasswordHasher, PeopleAuthenticator: people.PeopleAuthenticator, SignInGuard: guard.SignInGuard,
    ProgressionScheduler: scheduler.ProgressionScheduler,
  };
}

/**
 * Opens the data folder (replaying it), or joins the cluster in PostgreSQL when one is configured,
 * and builds every part. Throws if the folder is locked by another process or cannot be read;
 * nothing is left open then.
 */
export async function openFanion(deps: FanionDeps): Promise<Fanion> {
  const { config, log } = deps;
  const opened = config.cluster ? await openClusterNode(deps) : await openEmbedded(deps);
  log.info(
    { records: opened.replayed.records, ms: Math.round(opened.replayed.ms), checkpoint: opened.replayed.checkpoint, dataDir: config.cluster ? undefined : config.dataDir },
    config.cluster ? 'replayed the database log' : 'replayed the write-ahead log',
  );
  // A relay keeps only its newest events: an upstream that never stops changing must not grow it without end.
  const engine = new Engine({ state: opened.state, log: opened.log, logger: log, clock: deps.clock, newId: deps.newId, keepEvents: config.relay || config.offline ? RELAY_MAX_EVENTS : undefined });
  const { checkpointer, cluster } = opened.attach(engine);
  engine.afterDurable = () => checkpointer.maybeCheckpoint();
  const closeStorage = async () => {
    await checkpointer.close();
    await opened.close();
  };
  try {
    // The key is loaded in both auth modes so tokens made while AUTH_TYPE=none still work after switching.
    const hasher = new TokenHasher(await opened.hashKey());
    const wrongFolder = config.relay || config.offline ? checkRelayFolder(engine.state) : null;
    if (wrongFolder) throw new Error(wrongFolder);
    await seedTokens({ engine, config, hasher, log });
    // Built in both modes: it also answers which tokens are valid (POST /edge/validate) and counts
    // the tokens a relay saw as used, which mean the same with AUTH_TYPE=none.
    const tokens = new TokenAuthenticator(() => engine.state, hasher);
    // A relay neither builds nor loads the code of people and webhooks: it has no admin API to
    // sign in to or to make addons with (its memory is measured: docs/performance.md).
    const adminCode = config.relay || config.offline ? null : await adminParts();
    // People sign in with a session cookie or act through personal tokens, beside API tokens.
    const people = adminCode && config.authType === 'api-token' ? new adminCode.PeopleAuthenticator(tokens, () => engine.state, hasher, config.signIn.sessionIdleMs) : null;
    const auth: Authenticator = people ?? (config.authType === 'api-token' ? tokens : new OpenAuthenticator());
    // openid-client is loaded only when single sign-on is configured.
    const oidc = config.signIn.oidc && config.publicUrl ? new (await import('../concepts/people/oidc.js')).OidcSignIn(config.signIn.oidc, config.publicUrl, log) : null;
    // With CLIENT_STREAMING_UPGRADE, every poll answer tells SDKs to switch to streaming.
    // Which flags each change touched, read once for the snapshot, the push hub and evaluation.
    const toucher = new Toucher(engine.state);
    const snapshot = new ClientSnapshot(engine.state, { extraHeaders: config.streaming.clientUpgrade ? [...NOSNIFF, 'fetch-mode', 'streaming'] : NOSNIFF, toucher });
    engine.onChange((change, kind) => snapshot.onChange(change, kind));
    engine.onLargeChange({ read: (rec, slicer) => toucher.readInSlices(rec, slicer), catchUp: (slicer) => snapshot.freshenInSlices(slicer) });
    const push = new PushHub(engine, (req) => auth.client(req), {
      maxStreams: config.streaming.maxConnections, maxStreamsPerToken: config.streaming.maxConnectionsPerToken, keepAliveMs: config.streaming.keepAliveMs, bufferBytes: config.streaming.bufferBytes,
      windowChanges: config.streaming.deltaWindowChanges,
    }, toucher);
    engine.onChange((change, kind) => push.onChange(change, kind));
    // Server-side evaluation (Frontend API, OFREP): flags prepared once per change.
    const prepared = new PreparedFlags(engine.state, HOSTNAME, toucher);
    engine.onChange((change, kind) => prepared.onChange(change, kind));
    const evaluator = new Evaluator(prepared, { maxEntries: config.frontend.cacheEntries, maxBytes: config.frontend.cacheMaxBytes });
    const metrics = new ClientMetricsStore(engine.state, config.metrics.clientMaxBytes, new UnknownFlags(config.metrics.unknownFlagsMaxBytes));
    // Webhooks read durable events from the log; they never hold up the change that made them.
    // On a cluster one node delivers: the one holding the webhook lock, fenced through the log.
    let leadership: WebhookLeadership | undefined;
    let admin: AdminSide | null = null;
    if (adminCode) {
      if (cluster) {
        const { SessionLock } = await import('../core/storage/postgres/session-lock.js');
        leadership = new adminCode.WebhookLeadership(engine, new SessionLock(config.cluster!, cluster.keys.locks.webhooks, log), {
          node: cluster.nodeId, leaseMs: WEBHOOK_LEASE_MS, sendTimeoutMs: config.webhooks.timeoutMs, checkMs: 1_000,
        }, log);
      }
      const limits = adminCode.webhookLimits(config);
      const webhooks = new adminCode.WebhookDeliverer({
        engine, log, send: adminCode.httpSender(config.webhooks.timeoutMs, limits.destinations), leadership,
        options: { retryBaseMs: config.webhooks.retryBaseMs, retryMaxDelayMs: config.webhooks.retryMaxDelayMs, retryForMs: config.webhooks.retryForMs, template: limits.template },
      });
      engine.onChange((change, kind) => webhooks.onChange(change, kind));
      admin = {
        webhooks,
        passwords: new adminCode.PasswordHasher({ logN: config.signIn.passwordScryptLogN, concurrency: config.signIn.passwordHashConcurrency, queue: config.signIn.passwordHashQueue }),
        guard: new adminCode.SignInGuard({ perAddress: config.signIn.perAddress, perAccount: config.signIn.perAccount, entries: config.signIn.limiterEntries }),
      };
    }
    leadership?.start();
    // Release plan progressions: time is a change source, acted on by one node (the webhook leader).
    const progressions = adminCode
      ? new adminCode.ProgressionScheduler(engine, {
        clock: deps.clock ?? (() => new Date()), checkMs: deps.progressionCheckMs ?? PROGRESSION_CHECK_MS, leads: () => !leadership || leadership.leading,
      }, log)
      : null;
    progressions?.start();
    // A relay forwards impact metrics with the rest (its tap); a server keeps them.
    const impact = new ImpactStore(engine, log, config.metrics.impactMaxBytes);
    const keepsImpact = !config.relay && !config.offline;
    if (keepsImpact) metrics.impact = impact;
    const operations = new FanionMetrics({ engine, store: metrics, impact: keepsImpact ? impact : null, push, checkpointer, webhooks: admin?.webhooks ?? null, replayMs: opened.replayed.ms, cluster: cluster && leadership ? { ...cluster, leadership } : null });
    const frontDoor = new FrontDoor(snapshot, operations.hot, () => engine.applying);
    engine.onChange(() => frontDoor.forget());
    const flusher = new MetricsFlusher(engine, metrics, log, tokens, people, cluster?.nodeId ?? null);
    if (cluster) {
      // What SDKs reported to the other nodes joins this node's views.
      engine.onChange((change, kind) => {
        if (kind !== 'durable') return;
        for (const op of change.ops) if (op.o === 'metrics.report' && op.node !== cluster.nodeId) metrics.mergeReport(op.report as MetricsReport);
      });
    }
    flusher.start(config.metrics.flushMs);
    if (keepsImpact) impact.start(config.metrics.flushMs);
    const readiness = deps.readiness ?? new Readiness();
    // A relay is a change source like the admin API: what it applies is served by all of the above.
    const relay = config.relay ? new Relay({ engine, config: config.relay, log, hasher, metrics, readiness, maxAnswerBytes: config.http.importBodyLimit }) : null;
    relay?.registerMetrics(operations.registry);
    relay?.start();
    // Offline mode is a change source too: the features file, read again every RELOAD_INTERVAL.
    const offline = config.offline ? new Offline({ engine, config: config.offline, log, hasher, readiness, maxAnswerBytes: config.http.importBodyLimit }) : null;
    offline?.start();
    let closing: Promise<void> | null = null;
    if (cluster) {
      const { follower } = cluster;
      readiness.warnWhen(() =>
        follower.up ? null : `the database cannot be reached (since ${new Date(follower.downSince ?? Date.now()).toISOString()}): serving from memory, writes answer 503`,
      );
      // Unlike an outage, this does not pass by itself: out of the load balancer until fixed.
      readiness.failWhen(() => follower.unreadable);
    }
    let closingStep = 'not closing';
    const close = () => {
      push.close();
      // The relay first (no change arrives after it), then webhooks: their last progress is
      // written before the log closes.
      const step = <T>(name: string, fn: () => T) => () => {
        closingStep = name;
        return fn();
      };
      closing ??= Promise.resolve()
        .then(step('the relay', () => relay?.close()))
        .then(step('the features file', () => offline?.close()))
        .then(step('release plan progressions', () => progressions?.close()))
        .then(step('webhook deliveries', () => admin?.webhooks.close()))
        .then(step('webhook leadership', () => leadership?.close()))
        .then(step('the last SDK metrics', () => flusher.stop()))
        .then(step('the last impact metrics', () => impact.stop()))
        .then(step(cluster ? 'the database log' : 'the write-ahead log', closeStorage))
        .then(step('done', () => undefined));
      return closing;
    };
    return {
      engine, storage: opened.storage, cluster, checkpointer, hasher, auth, tokens, people, admin, oidc, snapshot, push, evaluator, metrics, operations, frontDoor,
      flusher, impact, relay, offline, readiness, close, closingStep: () => closingStep,
    };
  } catch (err) {
    await closeStorage();
    throw err;
  }
}
