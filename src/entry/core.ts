// The core every runtime mode shares, assembled from what the mode hands it (never from the mode's
// name): the engine over the mode's log, and on the engine the SDK-facing views (client snapshot,
// push hub, prepared flags and evaluator), the SDK metrics store and flusher, and the Prometheus
// metrics. The compositions (embedded.ts, cluster.ts, relay.ts, offline.ts) call these in order with
// their own parts; nothing here asks which mode runs.
import { ClientSnapshot } from '../concepts/client-api/snapshot.js';
import { FrontDoor } from '../concepts/client-api/front-door.js';
import { ImpactStore } from '../concepts/impact-metrics/store.js';
import { MetricsFlusher } from '../concepts/client-metrics/flusher.js';
import { ClientMetricsStore } from '../concepts/client-metrics/store.js';
import { UnknownFlags } from '../concepts/client-metrics/unknown-flags.js';
import { Evaluator, HOSTNAME } from '../concepts/evaluation/answers.js';
import { PreparedFlags } from '../concepts/evaluation/prepared.js';
import { FanionMetrics, type MetricsDeps } from '../concepts/operations/metrics.js';
import { Readiness } from '../concepts/operations/readiness.js';
import type { PeopleAuthenticator } from '../concepts/people/people-authenticator.js';
import { PushHub } from '../concepts/push/hub.js';
import { loadHashKey } from '../concepts/tokens/hash-key.js';
import { TokenHasher } from '../concepts/tokens/hasher.js';
import { seedTokens } from '../concepts/tokens/seed.js';
import { TokenAuthenticator } from '../concepts/tokens/token-authenticator.js';
import type { WebhookDeliverer } from '../concepts/webhooks/deliverer.js';
import type { Authenticator } from '../core/access/access.js';
import type { Config } from '../core/config.js';
import { Engine } from '../core/engine/engine.js';
import type { Logger } from '../core/logger.js';
import type { RecordLog } from '../core/log/record-log.js';
import type { FileLayer } from '../core/log/wal/file-layer.js';
import type { State } from '../core/state/state.js';
import { Toucher } from '../core/state/touch.js';
import { Checkpointer, type Checkpoints } from '../core/storage/checkpointer.js';
import { openStorage, type Storage } from '../core/storage/storage.js';
import { NOSNIFF } from '../http/respond.js';

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
  /**
   * What `GET /ready` waits for. The HTTP side makes it (it answers /ready while the data folder
   * is replayed) and passes it here, so a part built below can hold readiness too.
   */
  readiness?: Readiness;
  /**
   * Told when this node cannot go on serving and must be restarted (a cluster node whose next
   * records were pruned while it was away); main.ts exits. Logged only when not given.
   */
  onFatal?: (message: string) => void;
  /** How often due release plan progressions are looked for (tests with an injected clock look often). */
  progressionCheckMs?: number;
}

/** Where a mode's state comes from and where its records go: a data folder, or the cluster's database. */
export interface Source {
  state: State;
  log: RecordLog;
  replayed: { records: number; ms: number; checkpoint: unknown };
  /** The key that hashes API tokens. */
  hashKey(): Promise<Buffer>;
  /** Checkpointing (and, on a cluster, following the log) for this engine. */
  attach(engine: Engine): Checkpoints;
  close(): Promise<void>;
}

/** A data folder opened: where a server, a relay and offline mode keep their state. */
export interface DataFolder extends Source {
  storage: Storage;
  attach(engine: Engine): Checkpointer;
}

/** Opens the data folder (its lock, the newest checkpoint and the WAL after it, replayed). */
export async function openDataFolder(deps: FanionDeps): Promise<DataFolder> {
  const { config, log } = deps;
  const storage = await openStorage({ dataDir: config.dataDir, sync: config.walSync === 'always', log, files: deps.files, clock: deps.clock });
  log.info(
    { records: storage.replayed.records, ms: Math.round(storage.replayed.ms), checkpoint: storage.replayed.checkpoint, dataDir: config.dataDir },
    'replayed the write-ahead log',
  );
  return {
    state: storage.state,
    log: storage.wal,
    storage,
    replayed: storage.replayed,
    hashKey: () => loadHashKey(config.dataDir, config.tokenHashKey, log),
    attach: (engine) => new Checkpointer({
      engine, wal: storage.wal, dir: config.dataDir, files: storage.files, log, everyRecords: config.checkpoint.records, everyBytes: config.checkpoint.bytes,
      retryMs: deps.checkpointRetryMs,
    }),
    close: async () => {
      await storage.wal.close();
      storage.release();
    },
  };
}

/** The engine over a source, its checkpoints, and one close for both. */
export interface Started<C extends Checkpoints> {
  engine: Engine;
  checkpointer: C;
  /** Finishes or abandons a checkpoint, then closes the source (its log, its lock or pool). */
  closeSource(): Promise<void>;
}

/**
 * The engine over what `source` replayed, appending to its log, checkpointed after every durable
 * change. `keepEvents` bounds the event log (a relay keeps only its newest: an upstream that never
 * stops changing must not grow it without end).
 */
export function startEngine<S extends Source>(deps: FanionDeps, source: S, keepEvents?: number): Started<ReturnType<S['attach']>> {
  const engine = new Engine({ state: source.state, log: source.log, logger: deps.log, clock: deps.clock, newId: deps.newId, keepEvents });
  const checkpointer = source.attach(engine) as ReturnType<S['attach']>;
  engine.afterDurable = () => checkpointer.maybeCheckpoint();
  return {
    engine,
    checkpointer,
    closeSource: async () => {
      await checkpointer.close();
      await source.close();
    },
  };
}

/** Runs `build`; if it throws, `close` runs before the error goes on (nothing is left open). */
export async function closingOnFailure<T>(close: () => Promise<void>, build: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (err) {
    await close();
    throw err;
  }
}

/** API tokens: the key that hashes them, the tokens the settings seed, and who holds which. */
export interface Tokens {
  hasher: TokenHasher;
  /** API tokens by their secret, in both auth modes (the authenticator says who is calling). */
  tokens: TokenAuthenticator;
}

/**
 * Loads the hash key (in both auth modes, so tokens made while AUTH_TYPE=none still work after
 * switching), seeds the tokens the settings list, and answers which tokens are valid.
 */
export async function openTokens(deps: FanionDeps, engine: Engine, source: Source): Promise<Tokens> {
  const hasher = new TokenHasher(await source.hashKey());
  await seedTokens({ engine, config: deps.config, hasher, log: deps.log });
  // Built in every mode: it also answers which tokens are valid (POST /edge/validate) and counts
  // the tokens a relay saw as used, which mean the same with AUTH_TYPE=none.
  return { hasher, tokens: new TokenAuthenticator(() => engine.state, hasher) };
}

/** What differs between modes in the core: who calls, and what else the metrics count. */
export interface CoreInputs {
  deps: FanionDeps;
  engine: Engine;
  checkpointer: Checkpoints;
  replayMs: number;
  /** Who is calling (API tokens, or people on top of them). */
  auth: Authenticator;
  tokens: TokenAuthenticator;
  /** People who sign in, whose last use the flusher records beside tokens' (null where there are none). */
  people: PeopleAuthenticator | null;
  /** Webhooks, counted in the metrics (null where there are none). */
  webhooks: WebhookDeliverer | null;
  /** A cluster node's log, follower and leadership, for the metrics (null elsewhere). */
  cluster: MetricsDeps['cluster'];
  /** The node whose SDK metrics reports the flusher writes (null off a cluster). */
  nodeId: string | null;
  /** Whether impact metrics are kept here as series (a server, a cluster node) or only forwarded with the rest (a relay's tap). */
  keepsImpact: boolean;
}

/** What every mode serves SDKs from, fed by the engine's change feed. */
export interface Core {
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
  /** Impact metrics SDKs send, kept as series in the state and written every METRICS_FLUSH_MS (null where they are only forwarded). */
  impact: ImpactStore | null;
  flusher: MetricsFlusher;
  /** The conditions `GET /ready` waits for. */
  readiness: Readiness;
}

/** Builds the SDK-facing views and the metrics on the engine, and starts flushing SDK metrics. */
export function assembleCore(inputs: CoreInputs): Core {
  const { deps, engine, auth } = inputs;
  const { config, log } = deps;
  // Which flags each change touched, read once for the snapshot, the push hub and evaluation.
  const toucher = new Toucher(engine.state);
  // With CLIENT_STREAMING_UPGRADE, every poll answer tells SDKs to switch to streaming.
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
  const impact = inputs.keepsImpact ? new ImpactStore(engine, log, config.metrics.impactMaxBytes) : null;
  if (impact) metrics.impact = impact;
  const operations = new FanionMetrics({ engine, store: metrics, impact, push, checkpointer: inputs.checkpointer, webhooks: inputs.webhooks, replayMs: inputs.replayMs, cluster: inputs.cluster });
  const frontDoor = new FrontDoor(snapshot, operations.hot, () => engine.applying);
  engine.onChange((change) => frontDoor.onChange(change));
  const flusher = new MetricsFlusher(engine, metrics, log, inputs.tokens, inputs.people, inputs.nodeId);
  flusher.start(config.metrics.flushMs);
  impact?.start(config.metrics.flushMs);
  return { snapshot, push, evaluator, metrics, operations, frontDoor, impact, flusher, readiness: deps.readiness ?? new Readiness() };
}

/** One step of a close, named for a shutdown that takes too long to say what it waits for. */
export type CloseStep = [name: string, run: () => unknown];

/**
 * Closes a mode's parts: its SDK streams at once, then `steps` in order (what feeds changes in
 * first, then what writes to the log, then the log), saying which step it is at.
 */
export function closer(push: PushHub, steps: CloseStep[]): { close(): Promise<void>; closingStep(): string } {
  let closing: Promise<void> | null = null;
  let step = 'not closing';
  const run = async () => {
    for (const [name, fn] of steps) {
      step = name;
      await fn();
    }
    step = 'done';
  };
  return {
    close: () => {
      push.close();
      closing ??= run();
      return closing;
    },
    closingStep: () => step,
  };
}
