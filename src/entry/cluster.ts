// A cluster node, composed top to bottom: a server whose log is the cluster's table in PostgreSQL.
//
//   PostgreSQL (checkpoint + log replay) → engine → follower (changes from other nodes), checkpointer
//   → token hash key (the cluster's) → seeded tokens
//   → webhook leadership (one node delivers) → people, sign-in limits, webhooks (admin.ts)
//   → the core (core.ts), its metrics with the node's log, follower and leadership
//   → other nodes' SDK metrics merged into this node's views
//   → the port (server.ts): the same routes as a server, each admin request first waiting for the
//     log applied up to its head (read-your-writes across nodes)
//   → the first admin token and first Admin person, unless another node made them → ready
import fs from 'node:fs';
import type { MetricsReport } from '../concepts/client-metrics/store.js';
import type { DatabaseConfig } from '../core/config.js';
import type { ClusterKeys } from '../core/log/postgres/connect.js';
import type { PgLog } from '../core/log/postgres/pg-log.js';
import { listSegments } from '../core/log/wal/scan.js';
import type { Checkpoints } from '../core/storage/checkpointer.js';
import type { LogBarrier } from '../core/storage/postgres/barrier.js';
import type { Follower } from '../core/storage/postgres/follower.js';
import { checkAdminSettings, ensureFirstAdmins, openAdminSide, type AdminSide } from './admin.js';
import type { Composition } from './compositions.js';
import { assembleCore, closer, closingOnFailure, openTokens, startEngine, type Core, type FanionDeps, type Source, type Tokens } from './core.js';
import { openPort, type Parts, type RunningServer } from './server.js';
import { serverRoutes } from './routes.js';

/** A webhook leader starts a send only this soon after its last fenced write began (leadership.ts). */
const WEBHOOK_LEASE_MS = 2_000;

export function clusterNode(db: DatabaseConfig): Composition {
  return { mode: 'cluster node', check: checkAdminSettings, start: (deps) => startClusterNode(deps, db) };
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

/** A cluster node's parts, wired, with one close for all of them. */
export interface ClusterNodeParts extends Core, Tokens, Parts {
  cluster: ClusterParts;
  admin: AdminSide;
}

/**
 * Joins the cluster in PostgreSQL (waiting for the database, replaying its log) and builds a
 * node's parts. Nothing is left open if it throws.
 */
export async function openClusterNode(deps: FanionDeps, db: DatabaseConfig): Promise<ClusterNodeParts> {
  const { config, log } = deps;
  if (fs.existsSync(config.dataDir) && listSegments(config.dataDir).length > 0) {
    // Nothing of it is read: a node's state is the database's. Say so rather than look like it was.
    log.warn({ dataDir: config.dataDir }, 'DATA_DIR holds a data folder that a cluster node does not use: its flags are not in the cluster');
  }
  // PostgreSQL's client is loaded only by a cluster node.
  const { openCluster } = await import('../core/storage/postgres/cluster.js');
  const node = await openCluster({ db, log, tokenHashKey: config.tokenHashKey, clock: deps.clock });
  log.info({ records: node.replayed.records, ms: Math.round(node.replayed.ms), checkpoint: node.replayed.checkpoint }, 'replayed the database log');
  // What attaching the engine starts: following the other nodes' records, and the barrier on them.
  const attached: { follower?: Follower; barrier?: LogBarrier } = {};
  const source: Source = {
    state: node.state,
    log: node.log,
    replayed: node.replayed,
    hashKey: async () => node.hashKey,
    attach: (engine): Checkpoints => {
      const parts = node.attach(engine, { checkpointRecords: config.checkpoint.records, onFellBehind: deps.onFatal ?? ((message: string) => log.fatal(message)) });
      attached.follower = parts.follower;
      attached.barrier = parts.barrier;
      return parts.checkpointer;
    },
    close: async () => {
      await attached.follower?.close();
      await node.close();
    },
  };
  const { engine, checkpointer, closeSource } = startEngine(deps, source);
  const follower = attached.follower!;
  const barrier = attached.barrier!;
  return closingOnFailure(closeSource, async () => {
    const tokens = await openTokens(deps, engine, source);
    // One node delivers webhooks: the one holding the webhook lock, fenced through the log.
    const [{ SessionLock }, { WebhookLeadership }] = await Promise.all([import('../core/storage/postgres/session-lock.js'), import('../concepts/webhooks/leadership.js')]);
    const leadership = new WebhookLeadership(engine, new SessionLock(db, node.keys.locks.webhooks, log), {
      node: node.nodeId, leaseMs: WEBHOOK_LEASE_MS, sendTimeoutMs: config.webhooks.timeoutMs, checkMs: 1_000,
    }, log);
    const admin = await openAdminSide(deps, engine, tokens, leadership);
    leadership.start();
    const cluster: ClusterParts = { nodeId: node.nodeId, schema: node.schema, log: node.log, follower, keys: node.keys, barrier };
    const core = assembleCore({
      deps, engine, checkpointer, replayMs: node.replayed.ms, auth: admin.auth, tokens: tokens.tokens, people: admin.people, webhooks: admin.webhooks,
      cluster: { ...cluster, leadership }, nodeId: node.nodeId, keepsImpact: true,
    });
    // What SDKs reported to the other nodes joins this node's views.
    engine.onChange((change, kind) => {
      if (kind !== 'durable') return;
      for (const op of change.ops) if (op.o === 'metrics.report' && op.node !== node.nodeId) core.metrics.mergeReport(op.report as MetricsReport);
    });
    core.readiness.warnWhen(() =>
      follower.up ? null : `the database cannot be reached (since ${new Date(follower.downSince ?? Date.now()).toISOString()}): serving from memory, writes answer 503`,
    );
    // Unlike an outage, this does not pass by itself: out of the load balancer until fixed.
    core.readiness.failWhen(() => follower.unreadable);
    // Webhooks write their last progress before the log closes.
    const { close, closingStep } = closer(core.push, [
      ['release plan progressions', () => admin.progressions.close()],
      ['safeguards', () => admin.safeguards.close()],
      ['scheduled change requests', () => admin.schedules.close()],
      ['webhook deliveries', () => admin.webhooks.close()],
      ['webhook leadership', () => leadership.close()],
      ['the last SDK metrics', () => core.flusher.stop()],
      ['the last impact metrics', () => core.impact?.stop()],
      ['the database log', closeSource],
    ]);
    return { ...core, ...tokens, engine, checkpointer, cluster, admin, close, closingStep };
  });
}

/** Opens the port, then joins the cluster, and serves (until then /ready and every path answer 503). */
export async function startClusterNode(deps: FanionDeps, db: DatabaseConfig): Promise<RunningServer> {
  const port = await openPort(deps, {
    mode: 'cluster node', fields: { database: db.label }, doing: `reaching the database ${db.label} and applying its log`,
    // It waits for the database too, and for the log to be applied to its end.
    waitingFor: 'the database reached, its log applied, and every route mounted',
    startingMessage: 'Fanion is starting: it is waiting for its database or applying its log. Try again in a moment.',
  });
  const parts = await port.opening(() => openClusterNode({ ...deps, readiness: port.readiness }, db));
  const { barrier, log } = parts.cluster;
  const ctx = port.context({ engine: parts.engine, auth: parts.admin.auth, operations: parts.operations, barrier: { wait: () => barrier.wait(), position: () => log.durableLsn } });
  await port.serve({ ctx, frontDoor: parts.frontDoor, routes: await serverRoutes(ctx, parts) });
  await ensureFirstAdmins(deps, parts.engine, parts, parts.admin);
  // The schema is known once connected: the one PostgreSQL put the tables in.
  const { schema } = parts.cluster;
  return port.running(parts, { summary: `a cluster node on the database ${db.label}, schema ${schema}`, fields: { database: db.label, schema } });
}
