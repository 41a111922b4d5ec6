// Follows one scope upstream with the best protocol the upstream offers: streaming (server-sent
// events), then delta polling, then polling GET /api/client/features with If-None-Match (all an
// open-source Unleash offers). A protocol the upstream answers 404, 405 or 501 for (or tells to
// poll) is left for the next one; one that keeps failing while the upstream answers is left too,
// and tried again a while later. A network error is the upstream being away, not a reason to
// change protocol: the follower waits (backoff with jitter) and keeps what it has.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { UpstreamProtocol } from '../../core/config.js';
import type { Logger } from '../../core/logger.js';
import { readEvents, readFullAnswer, readStreamData, UpstreamFormatError } from './remote.js';
import type { RelayScope } from './scope.js';
import { foldEvents, fullUpdate, type ScopeUpdate } from './sync.js';
import { parseJsonInSlices, UpstreamError, type Upstream } from './upstream.js';
import { Slicer } from '../../core/slices.js';

export type Protocol = 'streaming' | 'delta' | 'polling';

export interface FollowerStatus {
  protocol: Protocol;
  /** The last request or stream worked (a stream is connected while it stays open). */
  connected: boolean;
  /** When the scope last matched the upstream (ms since epoch), or null. */
  lastSyncAt: number | null;
  syncs: number;
  failures: number;
  lastError: string | null;
}

export interface FollowerOptions {
  upstream: Upstream;
  /** Makes the state's scope match an update (through the engine); throws when it could not. */
  apply: (update: ScopeUpdate) => Promise<void>;
  log: Logger;
  refreshMs: number;
  protocol: UpstreamProtocol;
  /** The upstream refused the token this follower uses (401/403): it may have been revoked. */
  onTokenRefused?: (token: string) => void;
  /** A stream silent this long is taken for dead (the SDK's own watchdog is 60 s). */
  idleMs?: number;
  /** How long a protocol left after repeated failures rests before it is tried again. */
  retryHigherMs?: number;
}

/** The upstream does not offer this protocol: move to the next one. */
class Unsupported extends Error {}

const LADDER: Protocol[] = ['streaming', 'delta', 'polling'];
/** Failures in a row, with the upstream answering, before a protocol is left for a while. */
const FAILURES_BEFORE_FALLBACK = 5;

export class UpstreamFollower {
  readonly status: FollowerStatus;
  private readonly ladder: Protocol[];
  private level = 0;
  /** When to try the protocols above the current one again (after leaving them for failing). */
  private retryHigherAt: number | null = null;
  private stopped = false;
  private inRow = 0;
  /** Failures since the last sync that worked, and when the first of them came: for the line saying it is over. */
  private failedSinceSync = 0;
  private failingSince: number | null = null;
  private answeredInRow = 0;
  private etag: string | null = null;
  private deltaEtag: string | null = null;
  private lastEventId: string | null = null;
  private abort: AbortController | null = null;
  private wake: (() => void) | null = null;
  private resolveFirst!: () => void;
  /** Settles at the first sync that worked. */
  readonly firstSync: Promise<void>;
  private running: Promise<void> | null = null;

  constructor(
    readonly scope: RelayScope,
    private token: string,
    private readonly opts: FollowerOptions,
  ) {
    this.ladder = opts.protocol === 'auto' ? LADDER : [opts.protocol];
    this.status = { protocol: this.ladder[0], connected: false, lastSyncAt: null, syncs: 0, failures: 0, lastError: null };
    this.firstSync = new Promise((resolve) => (this.resolveFirst = resolve));
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Follows with another token of the same scope from now on (the old one was revoked). */
  useToken(token: string): void {
    if (token === this.token) return;
    this.token = token;
    this.abort?.abort();
    this.wake?.();
  }

  get currentToken(): string {
    return this.token;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    this.wake?.();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.retryHigherAt !== null && Date.now() >= this.retryHigherAt) {
        this.retryHigherAt = null;
        this.opts.log.info({ scope: this.scope }, `trying ${this.ladder[0]} again`);
        this.switchTo(0, null);
      }
      const protocol = this.ladder[this.level];
      this.status.protocol = protocol;
      try {
        if (protocol === 'streaming') await this.streamOnce();
        else await this.pollOnce(protocol);
        this.inRow = 0;
        this.answeredInRow = 0;
        // A stream that ended cleanly is reopened after a short pause; a poll waits its interval.
        await this.sleep(protocol === 'streaming' ? jitter(1000) : this.opts.refreshMs);
      } catch (err) {
        if (this.stopped) break;
        this.status.connected = false;
        // Finding out which protocols the upstream offers is not a failure: an open-source Unleash
        // answers 404 to streaming and delta at every start, and an alert on the failures counter
        // must not fire for that.
        if (err instanceof Unsupported && this.level < this.ladder.length - 1) {
          this.opts.log.info({ scope: this.scope, protocol, reason: (err as Error).message }, `the upstream does not offer ${protocol}: using ${this.ladder[this.level + 1]}`);
          this.switchTo(this.level + 1, null);
          continue;
        }
        this.status.failures++;
        this.status.lastError = (err as Error).message;
        this.inRow++;
        this.failingSince ??= Date.now();
        this.failedSinceSync++;
        const answered = err instanceof UpstreamError && err.status !== null;
        if (answered || err instanceof UpstreamFormatError) this.answeredInRow++;
        if ((err as UpstreamError).status === 401 || (err as UpstreamError).status === 403) this.opts.onTokenRefused?.(this.token);
        if (this.answeredInRow >= FAILURES_BEFORE_FALLBACK && this.level < this.ladder.length - 1) {
          this.opts.log.warn({ scope: this.scope, protocol, err: (err as Error).message }, `${protocol} keeps failing: using ${this.ladder[this.level + 1]} for a while`);
          this.switchTo(this.level + 1, Date.now() + (this.opts.retryHigherMs ?? 5 * 60_000));
          continue;
        }
        this.opts.log.warn({ scope: this.scope, protocol, failures: this.inRow, err: (err as Error).message }, 'could not sync with the upstream; serving what the relay has');
        await this.sleep(backoff(protocol === 'streaming' ? 1000 : this.opts.refreshMs, this.inRow));
      }
    }
    this.status.connected = false;
  }

  private switchTo(level: number, retryHigherAt: number | null): void {
    this.level = level;
    if (retryHigherAt !== null) this.retryHigherAt = retryHigherAt;
    this.answeredInRow = 0;
    // Revisions of one protocol mean nothing to another.
    this.etag = null;
    this.deltaEtag = null;
    this.lastEventId = null;
  }

  private synced(): void {
    if (this.failedSinceSync > 0) {
      // The warnings said it failed; this says it is over, so an operator need not guess from silence.
      this.opts.log.info({ scope: this.scope, protocol: this.status.protocol, failures: this.failedSinceSync, downMs: Date.now() - (this.failingSince ?? Date.now()) }, 'the upstream answers again: following it');
      this.failedSinceSync = 0;
      this.failingSince = null;
    }
    this.status.connected = true;
    this.status.lastSyncAt = Date.now();
    this.status.syncs++;
    this.status.lastError = null;
    this.resolveFirst();
  }

  private async pollOnce(protocol: 'delta' | 'polling'): Promise<void> {
    const path = protocol === 'delta' ? '/api/client/delta' : '/api/client/features';
    const abort = new AbortController();
    this.abort = abort;
    let answer;
    try {
      answer = await this.opts.upstream.get(path, this.token, protocol === 'delta' ? this.deltaEtag : this.etag, abort.signal);
    } finally {
      if (this.abort === abort) this.abort = null;
    }
    if (answer.status === 304) return this.synced();
    if (answer.status !== 200) {
      if (protocol === 'delta' && (answer.status === 404 || answer.status === 405 || answer.status === 501)) throw new Unsupported(`GET ${path} answered ${answer.status}`);
      throw new UpstreamError(`GET ${path} answered ${answer.status}`, answer.status);
    }
    // Read a slice at a time: an answer of tens of thousands of flags must not hold the event loop.
    if (protocol === 'delta') {
      await this.opts.apply(foldEvents(await readEvents(answer.body, new Slicer())));
      this.deltaEtag = answer.etag;
    } else {
      await this.opts.apply(fullUpdate(await readFullAnswer(answer.body, new Slicer())));
      this.etag = answer.etag;
    }
    this.synced();
  }

  /** One stream, from connect to its end: returns when the upstream ends it, throws on errors. */
  private async streamOnce(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    const res = await this.opts.upstream.openStream(this.token, this.lastEventId, abort.signal);
    try {
      const status = res.statusCode!;
      if (status !== 200) {
        if (status === 404 || status === 405 || status === 501) throw new Unsupported(`GET /api/client/streaming answered ${status}`);
        throw new UpstreamError(`GET /api/client/streaming answered ${status}`, status);
      }
      if (!/^text\/event-stream/i.test(res.headers['content-type'] ?? '')) throw new Unsupported('GET /api/client/streaming did not answer with an event stream');
      const idleMs = this.opts.idleMs ?? 60_000;
      let idle = setTimeout(() => abort.abort(), idleMs);
      const received: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (e) => void received.push(e), maxBufferSize: this.opts.upstream.opts.maxBytes });
      const decoder = new TextDecoder();
      this.status.connected = true;
      try {
        for await (const value of res as AsyncIterable<Buffer>) {
          clearTimeout(idle);
          idle = setTimeout(() => abort.abort(), idleMs);
          parser.feed(decoder.decode(value, { stream: true }));
          while (received.length > 0) await this.onStreamEvent(received.shift()!);
        }
      } catch (err) {
        if (abort.signal.aborted && !this.stopped) throw new UpstreamError(`the stream was silent for ${idleMs} ms, or its token changed`);
        throw err instanceof UpstreamError || err instanceof Unsupported || err instanceof UpstreamFormatError ? err : new UpstreamError(`the stream broke: ${(err as Error).message}`);
      } finally {
        clearTimeout(idle);
      }
      this.status.connected = false;
    } finally {
      res.destroy();
      if (this.abort === abort) this.abort = null;
      if (!abort.signal.aborted) abort.abort();
    }
  }

  private async onStreamEvent(e: EventSourceMessage): Promise<void> {
    if (e.event === 'fetch-mode' && e.data.trim() === 'polling') throw new Unsupported('the upstream asked for polling (fetch-mode)');
    if (e.event !== 'unleash-connected' && e.event !== 'unleash-updated') return;
    let body: unknown;
    try {
      body = await parseJsonInSlices(e.data);
    } catch (err) {
      throw new UpstreamFormatError(`an ${e.event} event is not JSON we take: ${(err as Error).message}`);
    }
    await this.opts.apply(foldEvents(await readStreamData(body, new Slicer())));
    if (e.id) this.lastEventId = e.id;
    this.synced();
  }

  /** Waits `ms`, or less when stopped or given another token. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/** Between half and all of `ms`, so that relays restarted together do not ask together. */
export function jitter(ms: number): number {
  return ms * (0.5 + Math.random() * 0.5);
}

/** Doubling from `base` with each failure in a row, at most a minute (or `base`, when longer), jittered. */
export function backoff(base: number, failures: number): number {
  const cap = Math.max(60_000, base);
  return jitter(Math.min(cap, base * 2 ** Math.min(failures - 1, 16)));
}
