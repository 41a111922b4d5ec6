// Pushing changes to SDKs: the streams of GET /api/client/streaming and the answers of
// GET /api/client/delta. Only durable changes leave the server, in commit order:
//  - a change's frames are built when it is applied, from the state exactly after it, once per
//    view that has streams (environment + projects + filters), and written to that view's
//    streams when the engine says the change is durable; a rolled-back change's are dropped;
//  - a first frame or a delta answer is built from the state now, and sent only once every
//    change applied so far is durable (built again if one is rolled back instead).
// A stream subscribes before its first frame is built and queues what arrives meanwhile, so no
// change falls between the first frame and the live ones.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientScope } from '../auth/access.js';
import { filterKey, type ClientFilter } from '../client-api/query.js';
import type { Engine } from '../engine/engine.js';
import { ServiceUnavailableError, TooManyStreamsError } from '../errors.js';
import type { StateChange } from '../state/change.js';
import { changes, hydration, type DeltaEvent } from './delta.js';
import { RecentChanges } from './recent.js';
import { isEmpty, Toucher } from '../state/touch.js';

export interface PushOptions {
  /** STREAMING_MAX_CONNECTIONS. */
  maxStreams: number;
  /** STREAMING_KEEPALIVE_MS: a comment line this often keeps proxies and the SDK's 60 s watchdog happy. */
  keepAliveMs: number;
  /** STREAMING_BUFFER_BYTES: unsent bytes a stream may hold beyond its first frame before it is dropped. */
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

/** One SSE frame: `data` is a JSON object, whose text has no line breaks. */
export function sseFrame(event: string, id: number, data: string): Buffer {
  return Buffer.from(`event: ${event}\nid: ${id}\ndata: ${data}\n\n`);
}

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
  private readonly timer: NodeJS.Timeout;
  /** The last hydration built, by view key and event id: streams connecting together share it. */
  private hydrations = new Map<string, string>();
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
    /** Shared with the other readers of changes (app.ts); its own when none is given. */
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
      this.hydrations.clear();
    }
  }

  private applied(rec: StateChange): void {
    const touch = this.toucher.touchOf(rec);
    const eventId = rec.events.length > 0 ? rec.events[rec.events.length - 1][0] : this.engine.state.events.lastId;
    if (touch.everything) {
      // A change this reader cannot tell apart: nothing before it can be resumed from, and every
      // stream is ended once it is durable, so its SDK reconnects and gets a hydration.
      this.recent.restart(eventId);
      this.hydrations.clear();
      this.pending.set(rec.lsn, { eventId, frames: new Map(), tokens: false, restart: true });
      return;
    }
    this.recent.add(rec.lsn, eventId, touch);
    if (isEmpty(touch) && !touch.tokens) return;
    // Keyed by event id, a cached hydration must not outlive a change to what it holds.
    if (!isEmpty(touch)) this.hydrations.clear();
    const frames = new Map<View, Buffer>();
    if (!isEmpty(touch)) {
      for (const view of this.views.values()) {
        const events = changes(this.engine.state, view.filter, touch, eventId);
        if (events.length === 0) continue;
        frames.set(view, sseFrame('unleash-updated', eventId, eventsJson(events)));
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

  private write(s: Stream, bytes: Buffer): void {
    s.res.write(bytes);
    this.framesWritten++;
    // A reader that does not keep up is let go: the SDK reconnects and resumes from its last id.
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
    const key = filterKey(filter);
    let view = this.views.get(key);
    if (!view) this.views.set(key, (view = { key, filter, streams: new Set() }));
    const s: Stream = { req, res, scope, view, since: 0, live: false, queue: [], queued: 0, allowance: this.opts.bufferBytes, closed: false };
    view.streams.add(s);
    this.count++;
    res.on('close', () => this.remove(s));
    res.writeHead(200, ['Content-Type', 'text/event-stream', 'Cache-Control', 'no-cache', 'Connection', 'keep-alive', 'X-Accel-Buffering', 'no', ...headers]);
    res.flushHeaders();
    const first = await this.firstEvents(filter, lastEventId);
    if (s.closed) return;
    const bytes = sseFrame('unleash-connected', first.eventId, first.json);
    s.allowance = bytes.length + this.opts.bufferBytes;
    s.since = first.eventId;
    s.live = true;
    this.write(s, bytes);
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
      const touch = since === undefined ? null : this.recent.since(since, last);
      let body: Buffer | null = null;
      if (touch) {
        const events = changes(this.engine.state, filter, touch, last);
        if (events.length > 0) body = Buffer.from(eventsJson(events));
      } else {
        body = Buffer.from(this.hydrationJson(filter, last));
      }
      if (await this.engine.whenDurable()) return { status: body ? 200 : 304, etag: `"${last}"`, body };
    }
  }

  /** The first frame's events, built from a durable state. */
  private async firstEvents(filter: ClientFilter, since: number | undefined): Promise<{ eventId: number; json: string }> {
    for (;;) {
      const last = this.engine.state.events.lastId;
      const touch = since === undefined ? null : this.recent.since(since, last);
      const json = touch ? eventsJson(changes(this.engine.state, filter, touch, last)) : this.hydrationJson(filter, last);
      if (await this.engine.whenDurable()) return { eventId: last, json };
    }
  }

  private hydrationJson(filter: ClientFilter, last: number): string {
    const key = `${last}\u0000${filterKey(filter)}`;
    let json = this.hydrations.get(key);
    if (json === undefined) {
      json = eventsJson([hydration(this.engine.state, filter, last)]);
      // Only the newest state's hydrations are worth keeping; a few views at a time.
      if (this.hydrations.size >= 16) this.hydrations.clear();
      this.hydrations.set(key, json);
    }
    return json;
  }

  private remove(s: Stream): void {
    if (s.closed) return;
    s.closed = true;
    this.count--;
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

  /** After a token change: streams whose token is gone, or now sees other things, are closed. */
  private recheckTokens(): void {
    for (const view of [...this.views.values()]) {
      for (const s of [...view.streams]) {
        let scope: ClientScope | null = null;
        try {
          scope = this.reauth(s.req);
        } catch {
          scope = null;
        }
        if (scope !== s.scope) this.end(s);
      }
    }
  }

  private keepAlive(): void {
    this.recheckTokens();
    for (const view of this.views.values()) for (const s of view.streams) if (s.live && !s.closed) this.write(s, KEEP_ALIVE);
  }

  /** Graceful shutdown: every stream ends, so SDKs reconnect (to another server, or this one when back). */
  close(): void {
    this.closing = true;
    clearInterval(this.timer);
    for (const view of [...this.views.values()]) for (const s of [...view.streams]) this.end(s);
  }
}
