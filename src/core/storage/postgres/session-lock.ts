// A session-level advisory lock on a connection of its own: held for as long as that session lives.
// It says who should act (one node at a time tries to), never that acting is safe: PostgreSQL
// releases the lock when it reaps the session, which can be long after the holder lost touch (a
// half-open connection), so the holder may still believe it holds it. Safety comes from fenced
// appends to the log (see addons/leadership.ts).
import pg from 'pg';
import type { DatabaseConfig } from '../../config.js';
import type { Logger } from '../../logger.js';
import { clientConfig, describe, destroyClient } from '../../log/postgres/connect.js';

export class SessionLock {
  private client: pg.Client | null = null;
  private held = false;

  constructor(
    private readonly db: DatabaseConfig,
    /** The advisory lock key (a signed 64-bit integer, as text: ClusterKeys). */
    private readonly key: string,
    private readonly log: Logger,
  ) {}

  /** Takes the lock if no other session holds it; true if this session holds it now. */
  async tryAcquire(): Promise<boolean> {
    try {
      const c = await this.session();
      const res = await c.query({ text: 'SELECT pg_try_advisory_lock($1) AS got', values: [this.key], query_timeout: this.db.timeoutMs } as pg.QueryConfig);
      this.held = res.rows[0].got === true;
      return this.held;
    } catch (err) {
      this.log.debug({ err: describe(err) }, 'could not try the advisory lock');
      this.drop();
      return false;
    }
  }

  /** Whether the session holding the lock still answers; false (and the session dropped) if not. */
  async stillHeld(): Promise<boolean> {
    if (!this.held || !this.client) return false;
    try {
      await this.client.query({ text: 'SELECT 1', query_timeout: this.db.timeoutMs } as pg.QueryConfig);
      return this.held;
    } catch {
      this.drop();
      return false;
    }
  }

  private async session(): Promise<pg.Client> {
    if (this.client) return this.client;
    const c = new pg.Client(clientConfig(this.db, 'fanion-lock'));
    c.on('error', () => this.drop());
    c.on('end', () => {
      if (this.client === c) this.drop();
    });
    await c.connect();
    // The server's side of the lock: a holder cut off without a goodbye (a partition, a machine
    // lost) keeps its session, and so the lock, until PostgreSQL notices. Keepalives on this session
    // make that about 11 s instead of the system's default (often two hours). Not every managed
    // service lets a session set them: then the default stays.
    for (const [name, value] of [['tcp_keepalives_idle', 5], ['tcp_keepalives_interval', 2], ['tcp_keepalives_count', 3]] as const) {
      await c.query(`SET ${name} = ${value}`).catch(() => {});
    }
    this.client = c;
    return c;
  }

  /** Ends the session, which releases the lock (at once, or when the server notices). */
  drop(): void {
    const c = this.client;
    this.client = null;
    this.held = false;
    if (!c) return;
    destroyClient(c);
  }
}
