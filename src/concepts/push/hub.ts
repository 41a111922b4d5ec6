// Pushing changes to SDKs: the streams of GET /api/client/streaming and the answers of
// GET /api/client/delta. Only durable changes leave the server, in commit order:
//  - a change's frames are built when it is applied, from the state exactly after it, once per
//    view that has streams (environment + projects + filters), and written to that view's
//    streams when the engine says the change is durable; a rolled-back change's are dropped;
//  - a first frame or a delta answer is built from the state now, and sent only once every
//    change applied so far is durable (built again if one is rolled back instead).
// A stream subscribes before its first frame is built and queues what arrives meanwhile, so no
// change falls between the first frame and the live ones.
// Nothing is copied per connection: a change's frame is one Buffer per distinct text, and first
// frames and delta answers share one Buffer per body (bodies.ts). A socket that does not read
// holds references to those, and is dropped once it holds more than its allowance.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientScope } from '../../core/access/access.js';
import { filterKey, type ClientFilter } from '../client-api/query.js';
import type { Engine } from '../../core/engine/engine.js';
import { ServiceUnavailableError, TooManyStreamsError } from '../../core/errors.js';
import type { StateChange } from '../../core/state/change.js';
import { SharedBodies } from './bodies.js';
import { changes, hydration, type DeltaEvent } from './delta.js';
import { RecentChanges } from './recent.js';
import { isEmpty, Toucher } from '../../core/state/touch.js';

export interface PushOptions {
  /** STREAMING_MAX_CONNECTIONS. */
  maxStreams: number;
  /** STREAMING_MAX_CONNECTIONS_PER_TOKEN: one leaked token cannot take every slot. */
  maxStreamsPerToken: number;
  /** STREAMING_KEEPALIVE_MS: a comment line this often keeps proxies and the SDK's 60 s watchdog happy. */
  keepAliveMs: number;
  /**
   * STREAMING_BUFFER_BYTES: unsent bytes a stream may hold before it is dropped, beyond its first
   * frame for as long as FIRST_FRAME_KEEP_ALIVES say.
   */
  bufferBytes: number;
  /** DELTA_WINDOW_CHANGES: recent changes a delta or a reconnect can be answered from. */
  windowChanges: number;
}

interface View {
  key: string;
  filter: ClientFilter;
  streams: Set<Stream>;
}

interface Stream {
  req: IncomingMessage;
  res: ServerResponse;
  scope: ClientScope;
  view: View;
  /** The last event id this stream has been sent. */
  since: number;
  live: boolean;
  /** Frames that became durable before the first frame was sent. */
  queue: { eventId: number; bytes: Buffer }[];
  queued: number;
  /** Unsent bytes allowed before the stream is dropped. */
  allowance: number;
  /** Keep-alives still to come before the first frame counts against the allowance. */
  firstTicks: number;
  closed: boolean;
}

interface Pending {
  eventId: number;
  frames: Map<View, Buffer>;
  tokens: boolean;
  /** End every stream: see `applied`. */
  restart?: boolean;
}

const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');
const FRAME_END = Buffer.from('\n\n');
const NO_EVENTS = Buffer.from(JSON.stringify({ events: [] }));
/**
 * A first frame (a hydration can be megabytes) is not counted against the allowance until this
 * many keep-alives have passed, so a slow reader has at least one keep-alive interval to take it.
 * After that it counts: a stalled stream is let go instead of pinning a body of an older
 * revision, which no later stream shares.
 */
const FIRST_FRAME_KEEP_ALIVES = 2;

/** The start of an SSE frame, up to its data: `data` is a JSON object, whose text has no line breaks. */
const frameHead = (event: string, id: number) => Buffer.from(`event: ${event}\nid: ${id}\ndata: `);

/** One SSE frame, whole. */
const sseFrame = (event: string, id: number, data: string) => Buffer.from(`event: ${event}\nid: ${id}\ndata: ${data}\n\n`);

const eventsJson = (events: DeltaEvent[]) => JSON.stringify({ events });

export interface DeltaAnswer {
  status: 200 | 304;
  etag: string;
  body: Buffer | null;
}

/** Streams, views and the recent-changes window, fed by the engine's change listener. */
export class PushHub {
  private readonly toucher: Toucher;
  private readonly recent: RecentChanges;
  private readonly views = new Map<string, View>();
  private readonly pending = new Map<number, Pending>();
  private count = 0;
  /** Open streams by token (its hash), for STREAMING_MAX_CONNECTIONS_PER_TOKEN. */
  private readonly byToken = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  /** First frames and delta answers of the newest revision, one Buffer per distinct body. */
  private readonly bodies = new SharedBodies();
  /** Frames built and written, for tests and the benchmark: one build per change per view. */
  framesBuilt = 0;
  framesWritten = 0;
  dropped = 0;
  private closing = false;

  constructor(
    private readonly engine: Engine,
    /** Re-authenticates a stream's request: the scope now, or a throw when the token is gone. */
    private readonly reauth: (req: IncomingMessage) => ClientScope,
    private readonly opts: PushOptions,
    /** Shared with the other readers of changes (entry/core.ts); its own when none is given. */
    toucher?: Toucher,
  ) {
    this.toucher = toucher ?? new Toucher(engine.state);
    this.recent = new RecentChanges(engine.state.events.lastId, opts.windowChanges);
    this.timer = setInterval(() => this.keepAlive(), opts.keepAliveMs);
    this.timer.unref();
  }

  get streams(): number {
    return this.count;
  }

  /** The engine's change listener. */
  onChange(rec: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    if (kind === 'applied') this.applied(rec);
    else if (kind === 'durable') this.durable(rec);
    else {
      this.recent.dropFrom(rec.lsn);
      for (const lsn of [...this.pending.keys()]) if (lsn >= rec.lsn) this.pending.delete(lsn);
      this.toucher.rolledBack(rec);
      this.bodies.clear();
    }
  }

  private applied(rec: StateChange): void {
    const touch = this.toucher.touchOf(rec);
    const eventId = rec.events.length > 0 ? rec.events[rec.events.length - 1][0] : this.engine.state.events.lastId;
    if (touch.everything) {
      // A change this reader cannot tell apart: nothing before it can be resumed from, and every
      // stream is ended once it is durable, so its SDK reconnects and gets a hydration.
      this.recent.restart(eventId);
      this.bodies.clear();
      this.pending.set(rec.lsn, { eventId, frames: new Map(), tokens: false, restart: true });
      return;
    }
    this.recent.add(rec.lsn, eventId, touch);
    if (isEmpty(touch) && !touch.tokens) return;
    // Keyed by event id, a kept body must not outlive a change to what it holds (a change may
    // bring no event, and so no new id).
    if (!isEmpty(touch)) this.bodies.clear();
    const frames = new Map<View, Buffer>();
    if (!isEmpty(touch)) {
      // Views whose events read alike (filters that select the same flags) share one Buffer.
      const built = new Map<string, Buffer>();
      for (const view of this.views.values()) {
        const events = changes(this.engine.state, view.filter, touch, eventId);
        if (events.length === 0) continue;
        const json = eventsJson(events);
        let frame = built.get(json);
        if (!frame) built.set(json, (frame = sseFrame('unleash-updated', eventId, json)));
        frames.set(view, frame);
        this.framesBuilt++;
      }
    }
    this.pending.set(rec.lsn, { eventId, frames, tokens: touch.tokens });
  }

  private durable(rec: StateChange): void {
    const p = this.pending.get(rec.lsn);
    if (!p) return;
    this.pending.delete(rec.lsn);
    if (p.restart) {
      for (const view of [...this.views.values()]) for (const s of [...view.streams]) this.end(s);
      return;
    }
    for (const [view, bytes] of p.frames) for (const s of view.streams) this.deliver(s, p.eventId, bytes);
    if (p.tokens) this.recheckTokens();
  }

  private deliver(s: Stream, eventId: number, bytes: Buffer): void {
    if (s.closed) return;
    if (!s.live) {
      s.queue.push({ eventId, bytes });
      s.queued += bytes.length;
      if (s.queued > this.opts.bufferBytes) this.drop(s);
      return;
    }
    if (eventId <= s.since) return;
    this.write(s, bytes);
    s.since = eventId;
  }

  /** Writes one frame (in parts: a shared body is written as it is, never copied). */
  private write(s: Stream, ...parts: Buffer[]): void {
    if (parts.length > 1) s.res.cork();
    for (const part of parts) s.res.write(part);
    if (parts.length > 1) s.res.uncork();
    this.framesWritten++;
    // A reader that does not keep up is let go: the SDK reconnects and resumes from its last id.
    // What it holds is what its socket has not sent yet, references to shared Buffers included.
    if (s.res.writableLength > s.allowance) this.drop(s);
  }

  /**
   * Serves one stream until the client goes away: subscribes, sends the first frame (the changes
   * since `lastEventId` when the window has them, else a hydration), then every durable change.
   */
  async open(req: IncomingMessage, res: ServerResponse, scope: ClientScope, filter: ClientFilter, lastEventId: number | undefined, headers: readonly string[]): Promise<void> {
    // A stream opened during shutdown (a request on a kept-alive connection) would hold it open.
    if (this.closing) throw new ServiceUnavailableError('This server is shutting down: connect again (to another one, or to this one once it is back).');
    if (this.count >= this.opts.maxStreams) {
      throw new TooManyStreamsError(`This server already serves ${this.opts.maxStreams} streams (STREAMING_MAX_CONNECTIONS); poll instead.`);
    }
    if (scope.token !== undefined && (this.byToken.get(scope.token) ?? 0) >= this.opts.maxStreamsPerToken) {
      throw new TooManyStreamsError(`This token already has ${this.opts.maxStreamsPerToken} streams open (STREAMING_MAX_CONNECTIONS_PER_TOKEN); poll instead.`);
    }
    const key = filterKey(filter);
    let view = this.views.get(key);
    if (!view) this.views.set(key, (view = { key, filter, streams: new Set() }));
    const s: Stream = {
      req, res, scope, view, since: 0, live: false, queue: [], queued: 0, allowance: this.opts.bufferBytes, firstTicks: 0, closed: false,
    };
    view.streams.add(s);
    this.count++;
    if (scope.token !== undefined) this.byToken.set(scope.token, (this.byToken.get(scope.token) ?? 0) + 1);
    res.on('close', () => this.remove(s));
    res.writeHead(200, ['Content-Type', 'text/event-stream', 'Cache-Control', 'no-cache', 'Connection', 'keep-alive', 'X-Accel-Buffering', 'no', ...headers]);
    res.flushHeaders();
    const first = await this.firstBody(filter, lastEventId);
    if (s.closed) return;
    const head = frameHead('unleash-connected', first.eventId);
    s.allowance = head.length + first.body.length + FRAME_END.length + this.opts.bufferBytes;
    s.firstTicks = FIRST_FRAME_KEEP_ALIVES;
    s.since = first.eventId;
    s.live = true;
    this.write(s, head, first.body, FRAME_END);
    for (const q of s.queue) if (!s.closed && q.eventId > s.since) {
      this.write(s, q.bytes);
      s.since = q.eventId;
    }
    s.queue = [];
    s.queued = 0;
  }

  /** GET /api/client/delta: 304 when nothing the view holds changed since `since`. */
  async delta(filter: ClientFilter, since: number | undefined): Promise<DeltaAnswer> {
    for (;;) {
      const last = this.engine.state.events.lastId;
      const body = this.eventsBody(filter, since, last);
      if (await this.engine.whenDurable()) return { status: body ? 200 : 304, etag: `"${last}"`, body };
    }
  }

  /** The first frame's body, built from a durable state. */
  private async firstBody(filter: ClientFilter, since: number | undefined): Promise<{ eventId: number; body: Buffer }> {
    for (;;) {
      const last = this.engine.state.events.lastId;
      const body = this.eventsBody(filter, since, last) ?? NO_EVENTS;
      if (await this.engine.whenDurable()) return { eventId: last, body };
    }
  }

  /**
   * The events that bring the view from `since` to `last` (null: none), or a hydration when the
   * window cannot say: a shared Buffer, built once per revision, filter and id.
   */
  private eventsBody(filter: ClientFilter, since: number | undefined, last: number): Buffer | null {
    const touch = since === undefined ? null : this.recent.since(since, last);
    const state = this.engine.state;
    if (!touch) return this.bodies.get(last, `h${filterKey(filter)}`, () => eventsJson([hydration(state, filter, last)]));
    return this.bodies.get(last, `c${since}${filterKey(filter)}`, () => {
      const events = changes(state, filter, touch, last);
      return events.length > 0 ? eventsJson(events) : null;
    });
  }

  private remove(s: Stream): void {
    if (s.closed) return;
    s.closed = true;
    this.count--;
    const token = s.scope.token;
    if (token !== undefined) {
      const left = (this.byToken.get(token) ?? 1) - 1;
      if (left > 0) this.byToken.set(token, left);
      else this.byToken.delete(token);
    }
    s.view.streams.delete(s);
    if (s.view.streams.size === 0) this.views.delete(s.view.key);
    s.queue = [];
  }

  private drop(s: Stream): void {
    this.dropped++;
    s.res.destroy();
    this.remove(s);
  }

  /** Ends a stream cleanly: the SDK reconnects (and is refused if its token is gone). */
  private end(s: Stream): void {
    if (s.closed) return;
    s.res.end();
    this.remove(s);
  }

  /**
   * After a token change: streams whose token is gone (revoked, deleted, expired) or now sees
   * other things are closed. The scope is compared by its key, not by identity: the
   * authenticator builds a new scope object whenever the token's record is rewritten, as it is
   * when its last use is recorded, and that must not end the streams that use it.
   */
  private recheckTokens(): void {
    for (const view of [...this.views.values()]) {
      for (const s of [...view.streams]) {
        let scope: ClientScope | null = null;
        try {
          scope = this.reauth(s.req);
        } catch {
          scope = null;
        }
        if (scope?.key !== s.scope.key) this.end(s);
      }
    }
  }

  private keepAlive(): void {
    this.recheckTokens();
    for (const view of [...this.views.values()]) {
      for (const s of [...view.streams]) {
        if (!s.live || s.closed) continue;
        if (s.firstTicks > 0 && --s.firstTicks === 0) s.allowance = this.opts.bufferBytes;
        this.write(s, KEEP_ALIVE);
      }
    }
  }

  /** Graceful shutdown: every stream ends, so SDKs reconnect (to another server, or this one when back). */
  close(): void {
    this.closing = true;
    clearInterval(this.timer);
    for (const view of [...this.views.values()]) for (const s of [...view.streams]) this.end(s);
  }
}
