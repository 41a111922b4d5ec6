// What GET /internal-backstage/prometheus shows, with prom-client (the maintained Prometheus client
// for Node): process and GC metrics, HTTP requests by route template, SDK polls per environment,
// flags, SDK applications, streams, the WAL's group commit, the event log, authentication refusals.
// The hot paths count with plain numbers (read when Prometheus scrapes); only the admin routes,
// which are not hot, observe a histogram per request.
import client from 'prom-client';
import type { ClientMetricsStore } from '../client-metrics/store.js';
import { HotCounters } from '../../http/counters.js';
import type { Engine } from '../../core/engine/engine.js';
import type { PushHub } from '../push/hub.js';
import type { Checkpoints } from '../../core/storage/checkpointer.js';
import type { Follower } from '../../core/storage/postgres/follower.js';
import type { PgLog } from '../../core/log/postgres/pg-log.js';
import type { LogBarrier } from '../../core/storage/postgres/barrier.js';
import type { WebhookDeliverer } from '../webhooks/deliverer.js';
import type { WebhookLeadership } from '../webhooks/leadership.js';
import type { ImpactStore } from '../impact-metrics/store.js';

export interface MetricsDeps {
  engine: Engine;
  store: ClientMetricsStore;
  push: PushHub;
  checkpointer: Checkpoints;
  /** Null on a relay, which has no webhooks. */
  webhooks: WebhookDeliverer | null;
  /** Impact metrics a server keeps (absent on a relay, which forwards them). */
  impact?: ImpactStore | null;
  /** How long replaying the data folder took at start-up. */
  replayMs: number;
  /** A cluster node's log and follower: replication lag and the log's state. */
  cluster?: { log: PgLog; follower: Follower; leadership: WebhookLeadership; barrier: LogBarrier } | null;
}

export class FanionMetrics {
  readonly registry = new client.Registry();
  readonly hot = new HotCounters();
  private readonly http: client.Histogram<'method' | 'path' | 'status'>;

  constructor(deps: MetricsDeps) {
    const r = this.registry;
    client.collectDefaultMetrics({ register: r });
    const { engine, store, push, checkpointer, webhooks, replayMs, cluster } = deps;
    const hot = this.hot;
    this.http = new client.Histogram({
      name: 'http_request_duration_milliseconds', help: 'Admin and other non-SDK HTTP requests, by route template, method and status',
      labelNames: ['method', 'path', 'status'], buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000], registers: [r],
    });
    new client.Counter({
      name: 'client_api_requests_total', help: 'SDK polls of /api/client/features by environment and status (200, 304)', labelNames: ['environment', 'status'], registers: [r],
      collect() {
        this.reset();
        for (const [env, [ok, nm]] of hot.polls) {
          this.inc({ environment: env, status: '200' }, ok);
          this.inc({ environment: env, status: '304' }, nm);
        }
      },
    });
    new client.Counter({
      name: 'http_auth_refused_total', help: 'Requests refused for their credentials (401) or their reach (403)', labelNames: ['status'], registers: [r],
      collect() {
        this.reset();
        this.inc({ status: '401' }, hot.refused[401]);
        this.inc({ status: '403' }, hot.refused[403]);
      },
    });
    const gauge = (name: string, help: string, read: () => number) => new client.Gauge({ name, help, registers: [r], collect() { this.set(read()); } });
    gauge('feature_toggles_total', 'Live (not archived) flags', () => {
      let n = 0;
      for (const f of engine.state.features.values()) if (!f.archived) n++;
      return n;
    });
    gauge('client_apps_total', 'SDK applications seen since start', () => store.applications(0, 0).total);
    gauge('client_instances_total', 'SDK instances seen since start (kept within the metrics budget)', () => store.instanceCount());
    gauge('client_metrics_bytes', 'Estimated bytes the SDK metrics store holds: applications, instances, counts and their hourly history (at most CLIENT_METRICS_MAX_BYTES)', () => store.size().bytes);
    gauge('unknown_flag_reports', 'Reports of flag names SDKs use that the server does not have (name, application, environment), kept within UNKNOWN_FLAGS_MAX_BYTES', () => store.unknown.size().reports);
    gauge('unknown_flags_bytes', 'Estimated bytes those reports hold (at most UNKNOWN_FLAGS_MAX_BYTES)', () => store.unknown.size().bytes);
    const impact = deps.impact;
    if (impact) {
      gauge('impact_metrics_series', 'Series of impact metrics kept (every node\'s, on a cluster)', () => engine.state.impactSeries.size);
      gauge('impact_metrics_bytes', 'Bytes the impact metrics\' series hold, each counted with its history full (at most IMPACT_METRICS_MAX_BYTES)', () => impact.bytes);
      gauge('impact_metrics_refused_total', 'Impact metrics entries refused as malformed, and new series refused for the budget, since start', () => impact.counts.rejected + impact.counts.refused);
    }
    gauge('streaming_connections', 'Open SDK streams (GET /api/client/streaming)', () => push.streams);
    gauge('event_log_events', 'Events in the log (the newest id)', () => engine.state.events.lastId);
    gauge('event_log_events_kept', 'Events held in memory (fewer than the newest id on a relay, which keeps only the newest)', () => engine.state.events.size);
    gauge('replay_duration_milliseconds', 'How long replaying the data folder took at start-up', () => replayMs);
    const wal = engine.log;
    new client.Counter({ name: 'wal_records_total', help: 'Records made durable in the write-ahead log (on a cluster node: appended by this node to the database log)', registers: [r], collect() { this.reset(); this.inc(wal.stats.records); } });
    new client.Counter({ name: 'wal_bytes_total', help: 'Bytes made durable in the write-ahead log', registers: [r], collect() { this.reset(); this.inc(wal.stats.bytes); } });
    const fsync = new client.Histogram({ name: 'wal_fsync_duration_milliseconds', help: 'fdatasync of a group commit', buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100], registers: [r] });
    const perCommit = new client.Histogram({ name: 'wal_records_per_commit', help: 'Records written by one group commit', buckets: [1, 2, 4, 8, 16, 32, 64, 128], registers: [r] });
    // A relay has no webhooks, so no such counter.
    if (webhooks) {
      new client.Counter({
        name: 'webhook_deliveries_total', help: 'Webhook sends since start: delivered, failed (each failed attempt), dropped (given up after retrying)', labelNames: ['result'], registers: [r],
        collect() {
          this.reset();
          const t = webhooks.totals();
          this.inc({ result: 'delivered' }, t.delivered);
          this.inc({ result: 'failed' }, t.failed);
          this.inc({ result: 'dropped' }, t.dropped);
        },
      });
    }
    const ckptMs = new client.Histogram({
      name: 'checkpoint_duration_milliseconds', help: 'Writing a checkpoint, from the pause to the file being durable',
      buckets: [10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000], registers: [r],
    });
    const ckptPause = new client.Histogram({
      name: 'checkpoint_pause_milliseconds', help: 'How long writes waited while a checkpoint took its snapshot', buckets: [0.5, 1, 2, 5, 10, 25, 50, 100], registers: [r],
    });
    const ckptBytes = new client.Gauge({ name: 'checkpoint_size_bytes', help: 'Size of the newest checkpoint file', registers: [r] });
    new client.Counter({ name: 'checkpoint_failures_total', help: 'Checkpoints that failed (the WAL keeps everything; retried)', registers: [r], collect() { this.reset(); this.inc(checkpointer.failed); } });
    checkpointer.onWritten = (report) => {
      ckptMs.observe(report.totalMs);
      ckptPause.observe(report.pauseMs);
      ckptBytes.set(report.bytes);
    };
    if (cluster) clusterMetrics(r, cluster);
    wal.onBatch = (records, _bytes, syncMs) => {
      perCommit.observe(records);
      if (syncMs > 0) fsync.observe(syncMs);
    };
  }

  /** An answered request of a route (not the SDK hot paths): its template, method, status, time. */
  observe(method: string, path: string, status: number, ms: number): void {
    this.http.observe({ method, path, status: String(status) }, ms);
  }
}

/** Replication lag and the state of a cluster node's log. */
function clusterMetrics(r: client.Registry, { log, follower, leadership, barrier }: { log: PgLog; follower: Follower; leadership: WebhookLeadership; barrier: LogBarrier }): void {
  const gauge = (name: string, help: string, read: () => number) => new client.Gauge({ name, help, registers: [r], collect() { this.set(read()); } });
  gauge('cluster_log_applied_seq', 'The last record of the database log this node applied', () => log.durableLsn);
  gauge('cluster_log_newest_seq', 'The newest record of the database log this node has heard of', () => Math.max(follower.newestSeen, log.durableLsn));
  gauge('cluster_replication_lag_records', 'Records of the database log this node has heard of and not applied yet', () => Math.max(0, follower.newestSeen - log.durableLsn));
  gauge('cluster_replication_lag_seconds', 'Seconds since this node last read the database log to its end', () => (Date.now() - follower.lastCaughtUp) / 1000);
  gauge('cluster_database_up', '1 while this node reads the database log, 0 while it cannot (it serves from memory, writes answer 503)', () => (follower.up ? 1 : 0));
  gauge('cluster_webhook_leader', '1 while this node is the one that delivers webhooks', () => (leadership.leading ? 1 : 0));
  gauge('cluster_followed_records_total', 'Records written by other nodes and applied here', () => follower.followedRecords);
  gauge('cluster_log_waits_total', 'Admin requests that waited for this node to apply the log up to its head (read-your-writes)', () => barrier.counts.waits);
  gauge('cluster_log_head_lookups_total', 'Lookups of the log\'s head those requests shared', () => barrier.counts.lookups);
  new client.Counter({
    name: 'cluster_append_failures_total', help: 'Appends to the database log that failed: overtaken (another node wrote first; the commands ran again), unreachable, unknown (connection lost mid-commit)',
    labelNames: ['reason'], registers: [r],
    collect() {
      this.reset();
      this.inc({ reason: 'overtaken' }, log.counts.overtaken);
      this.inc({ reason: 'unreachable' }, log.counts.unreachable);
      this.inc({ reason: 'unknown' }, log.counts.unknown);
    },
  });
}
