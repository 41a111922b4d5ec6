// Following the shared log: every node applies every record, in sequence order, whoever wrote it.
// LISTEN/NOTIFY only wakes a node (a notification is lost while its connection is down, and it is
// delivered at commit, so it cannot carry the records): after every notification, every
// (re)connection of the listening session and every second, the node reads seq > what it applied.
// Records are applied at a quiet point of the engine (nothing of this node in flight, new commands
// waiting), as applied and durable at once: the client snapshot, streams, evaluation and webhooks
// update exactly as on the node that wrote them.
// Sequence numbers have no gaps: a writer appends last + 1 and must have applied last, which was
// committed, so what a reader sees is always a prefix of the log.
import pg from 'pg';
import type { DatabaseConfig } from '../../config.js';
import type { Engine } from '../../engine/engine.js';
import type { Logger } from '../../logger.js';
import { clientConfig, describe, destroyClient, pause, READ_PAGE, withClient, type ClusterKeys } from '../../log/postgres/connect.js';
import type { LogRow, PgLog } from '../../log/postgres/pg-log.js';
import { readLogRecord, UnreadableRecordError } from '../../log/postgres/records.js';


export interface FollowerOptions {
  pool: pg.Pool;
  db: DatabaseConfig;
  engine: Engine;
  log: PgLog;
  nodeId: string;
  logger: Logger;
  /** How often a node reads the log without being woken (ms). */
  intervalMs: number;
  /** The records this node needs next were pruned: it must start again from the newest checkpoint. */
  onFellBehind: (message: string) => void;
  /** The cluster's NOTIFY channel and the log's name for messages. */
  keys: ClusterKeys;
}

export class Follower {
  /** Whether the last read of the log succeeded. */
  up = true;
  /** When the database stopped answering (ms since epoch), while it does not. */
  downSince: number | null = null;
  /** The newest seq any notification or read announced: lag = newestSeen - applied. */
  newestSeen: number;
  /** When this node last read the log to its end (ms since epoch). */
  lastCaughtUp = Date.now();
  /** Records applied that other nodes wrote. */
  followedRecords = 0;
  /**
   * Set when the next record cannot be read or applied (not Fanion's, or a newer Fanion's): what
   * is wrong and where. Nothing after it is applied; the log takes no writes (PgLog.blocked) and
   * /ready answers 503 with this. A restart meets the same record and stops, status 2.
   */
  unreadable: string | null = null;
  /** Told once when `unreadable` is set. */
  onUnreadable: ((message: string) => void) | null = null;
  private running: Promise<boolean> | null = null;
  private again = false;
  private closed = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private listener: pg.Client | null = null;
  private listening: Promise<void> | null = null;

  constructor(private readonly opts: FollowerOptions) {
    this.newestSeen = opts.log.durableLsn;
    opts.log.catchUp = (rows) => this.poll(rows);
  }

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.opts.intervalMs);
    this.timer.unref();
    this.listening = this.listen();
  }

  /**
   * Reads and applies what other nodes wrote, to the end of the log. Calls made while a read runs
   * share it, and it reads once more after, so none misses a record committed before it was made.
   * Resolves true once at the end, false if the database could not be read.
   */
  poll(rows?: LogRow[]): Promise<boolean> {
    if (this.closed || this.stopped) return Promise.resolve(false);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop(rows).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** The read in progress (a notification's, often), without asking for one more; null if none. */
  get reading(): Promise<boolean> | null {
    return this.running;
  }

  private async loop(given?: LogRow[]): Promise<boolean> {
    let ok: boolean;
    do {
      this.again = false;
      ok = await this.once(given);
      given = undefined;
    } while (this.again && ok && !this.closed);
    return ok;
  }

  /** Reads (or takes the `given` records, read by a refused append) and applies what is new. */
  private async once(given?: LogRow[]): Promise<boolean> {
    const { engine, log } = this.opts;
    try {
      // Read outside the quiet point: most reads find nothing, and must not hold writes up.
      let rows = given ?? (await this.read(log.durableLsn, READ_PAGE));
      if (rows.length > 0) {
        await engine.atQuietPoint(async () => {
          for (;;) {
            // Rows read before the quiet point may include this node's own records, settled
            // since (apply skips them); the rest follow on from what it applied.
            for (const row of rows) await this.apply(Number(row.seq), row.rec);
            if (rows.length < READ_PAGE || this.stopped) break;
            // Let requests in between pages of a long catch-up (writes keep waiting).
            await new Promise((r) => setImmediate(r));
            rows = await this.read(log.durableLsn, READ_PAGE);
          }
        });
      }
      this.reachable();
      this.lastCaughtUp = Date.now();
      return !this.stopped;
    } catch (err) {
      if (this.stopped) return false;
      if (err instanceof FollowError) {
        this.stopped = true;
        this.opts.onFellBehind(err.message);
        return false;
      }
      if (err instanceof UnreadableRecordError) {
        this.block(err);
        return false;
      }
      this.unreachable(err);
      return false;
    }
  }

  private async read(after: number, limit: number): Promise<LogRow[]> {
    const { pool, db } = this.opts;
    const res = await withClient(pool, db.timeoutMs, (query) => query('SELECT seq, rec FROM fanion_log WHERE seq > $1 ORDER BY seq LIMIT $2', [after, limit]));
    const rows = res.rows as LogRow[];
    if (rows.length > 0) this.newestSeen = Math.max(this.newestSeen, Number(rows[rows.length - 1].seq));
    return rows;
  }

  private async apply(seq: number, bytes: Buffer): Promise<void> {
    const { engine, log } = this.opts;
    if (seq <= log.durableLsn) return;
    if (seq !== log.durableLsn + 1) {
      throw new FollowError(
        `this node applied the log up to record ${log.durableLsn}, but the database keeps it only from record ${seq} on (older records were pruned ` +
          'after a checkpoint): restart this node, and it will start from the newest checkpoint',
      );
    }
    const table = this.opts.keys.logTable;
    const rec = readLogRecord(table, seq, bytes);
    try {
      await engine.applyFollowed(rec);
    } catch (err) {
      // Known ops that do not fit this state: the record is as unusable as garbage.
      throw new UnreadableRecordError(seq, `record ${seq} in ${table} is not a Fanion record this version can apply: ${(err as Error).message}`);
    }
    log.followed(seq, bytes);
    this.followedRecords++;
  }

  private block(err: UnreadableRecordError): void {
    this.stopped = true;
    const { log, logger } = this.opts;
    this.unreadable =
      `The database log holds an unreadable record: ${err.message}. This node applies nothing after record ${err.seq - 1} and takes no changes ` +
      'until that record is removed or replaced and the node restarted.';
    log.blocked = this.unreadable;
    logger.error({ seq: err.seq, table: this.opts.keys.logTable }, err.message);
    this.onUnreadable?.(this.unreadable);
  }

  private reachable(): void {
    if (this.up) return;
    this.up = true;
    this.opts.logger.warn({ downForMs: this.downSince ? Date.now() - this.downSince : null, applied: this.opts.log.durableLsn }, 'the database answers again; caught up with the log');
    this.downSince = null;
  }

  private unreachable(err: unknown): void {
    if (this.up) {
      this.up = false;
      this.downSince = Date.now();
      this.opts.logger.error({ err: describe(err) }, 'cannot read the database log: serving from memory, writes answer 503 until it answers again');
    }
    // Its notifications may be lost too: a new session, LISTENing again, is made once it answers.
    this.dropListener();
  }

  /** The LISTEN session: reconnected whenever it breaks, and the log read after each connection. */
  private async listen(): Promise<void> {
    const { db, logger, nodeId } = this.opts;
    while (!this.closed) {
      const client = new pg.Client(clientConfig(db, 'fanion-follow'));
      this.listener = client;
      const ended = new Promise<void>((resolve) => {
        client.once('end', () => resolve());
        client.on('error', (err) => {
          logger.debug({ err: describe(err) }, 'the listening database session broke; reconnecting');
          resolve();
        });
      });
      client.on('notification', (m) => {
        const [node, seq] = (m.payload ?? '').split(' ');
        const n = Number(seq);
        if (Number.isFinite(n)) this.newestSeen = Math.max(this.newestSeen, n);
        // Its own commits are settled by the append that made them.
        if (node !== nodeId) void this.poll();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${this.opts.keys.channel}`);
        void this.poll();
        await ended;
      } catch (err) {
        logger.debug({ err: describe(err) }, 'could not open the listening database session; retrying');
      }
      this.dropListener();
      await pause(1_000, () => this.closed);
    }
  }

  private dropListener(): void {
    const c = this.listener;
    if (!c) return;
    this.listener = null;
    destroyClient(c);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.dropListener();
    await this.running?.catch(() => {});
    await this.listening?.catch(() => {});
  }
}

/** A reason to stop following for good (the node must be restarted). */
class FollowError extends Error {}
