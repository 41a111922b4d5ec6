// The one place the relay talks to its upstream over HTTP (node:http and node:https): every request with the
// relay's identity headers, the operator's CUSTOM_CLIENT_HEADERS and a timeout; answers read
// within a byte limit (counted after gzip is undone, so a small compressed body cannot blow up);
// conditional GETs with If-None-Match.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { parseChunked } from '@discoveryjs/json-ext';

export interface UpstreamOptions {
  /** Base URL without a trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  customHeaders: [string, string][];
  authHeader: string;
  appName: string;
  instanceId: string;
  /** The largest answer body read, in bytes. */
  maxBytes: number;
}

/** What went wrong with one request: `status` when the upstream answered (with that status). */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(message: string, readonly status: number | null = null) {
    super(message);
  }
}

export interface UpstreamAnswer {
  status: number;
  etag: string | null;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body, or null when there is none (304, 202…). */
  body: unknown;
}

/** The client specification the relay understands: segments apart (4.2.0), delta (5.2.0). */
export const CLIENT_SPEC = '5.2.0';
const SDK = 'fanion-relay:1.0.0';

export class Upstream {
  /** One per process, as SDKs send one per instance. */
  readonly connectionId = randomUUID();

  constructor(readonly opts: UpstreamOptions) {}

  url(path: string): string {
    return this.opts.baseUrl + path;
  }

  headers(token: string | null, extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = {
      'unleash-appname': this.opts.appName,
      'unleash-instanceid': this.opts.instanceId,
      'unleash-connection-id': this.connectionId,
      'unleash-sdk': SDK,
      'unleash-client-spec': CLIENT_SPEC,
      'user-agent': SDK,
    };
    for (const [name, value] of this.opts.customHeaders) h[name.toLowerCase()] = value;
    if (token !== null) h[this.opts.authHeader.toLowerCase()] = token;
    return { ...h, ...extra };
  }

  /**
   * A GET of JSON; `etag` goes as If-None-Match. Throws UpstreamError on a network error or timeout,
   * or when `stop` aborts it (a follower stopping must not wait for an upstream that hangs).
   */
  get(path: string, token: string, etag: string | null = null, stop?: AbortSignal): Promise<UpstreamAnswer> {
    return this.request('GET', path, token, undefined, etag ? { 'if-none-match': etag } : {}, stop);
  }

  post(path: string, token: string | null, body: unknown): Promise<UpstreamAnswer> {
    return this.request('POST', path, token, JSON.stringify(body), { 'content-type': 'application/json' });
  }

  private async request(method: string, path: string, token: string | null, body: string | undefined, extra: Record<string, string>, stop?: AbortSignal): Promise<UpstreamAnswer> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = stop ? AbortSignal.any([stop, timeout]) : timeout;
    let res: http.IncomingMessage;
    try {
      res = await send(this.url(path), { method, headers: { ...this.headers(token, extra), 'accept-encoding': 'gzip' }, signal }, body);
    } catch (err) {
      throw new UpstreamError(`${method} ${path}: ${describe(err, timeout, this.opts.timeoutMs)}`);
    }
    let parsed: unknown = null;
    try {
      const json = /json/i.test(res.headers['content-type'] ?? '');
      // Nesting is checked as the bytes come: an answer too deep is dropped at once, unread.
      const depth = new DepthGuard(MAX_JSON_DEPTH);
      const chunks = await readChunks(res, this.opts.maxBytes, json ? (c) => depth.feed(c) : undefined);
      if (json && chunks.length > 0) parsed = await parseJsonInSlices(chunks);
    } catch (err) {
      throw new UpstreamError(`${method} ${path}: ${describe(err, timeout, this.opts.timeoutMs)}`, res.statusCode);
    }
    return { status: res.statusCode!, etag: header(res, 'etag'), headers: res.headers, body: parsed };
  }

  /**
   * Opens GET /api/client/streaming. Resolves with the response once its headers are in (the
   * caller reads the body, uncompressed); throws UpstreamError when it cannot connect within the
   * timeout. `abort` ends it at any time.
   */
  async openStream(token: string, lastEventId: string | null, abort: AbortSignal): Promise<http.IncomingMessage> {
    const extra: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (lastEventId) extra['last-event-id'] = lastEventId;
    // The connect timeout must not end the stream later: the request is tied to `abort` only,
    // and the timer is cleared once the headers are in.
    const connect = new AbortController();
    const timer = setTimeout(() => connect.abort(new DOMException(`no answer within ${this.opts.timeoutMs} ms`, 'TimeoutError')), this.opts.timeoutMs);
    try {
      return await send(this.url('/api/client/streaming'), { method: 'GET', headers: this.headers(token, extra), signal: AbortSignal.any([abort, connect.signal]) });
    } catch (err) {
      throw new UpstreamError(`GET /api/client/streaming: ${describe(err, connect.signal, this.opts.timeoutMs)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * One request with node:http (or https), resolving once the answer's headers are in. Not fetch:
 * undici and its WebAssembly parser cost a relay ~16 MB of resident memory for the few requests
 * it makes (measured: three fetches grow a bare node process by 19 MB, three http.get by 3 MB).
 * No redirect is followed (a 3xx is an answer like any other status).
 */
function send(url: string, opts: { method: string; headers: Record<string, string>; signal: AbortSignal }, body?: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? https : http).request(u, { method: opts.method, headers: opts.headers, signal: opts.signal }, resolve);
    req.once('error', reject);
    req.end(body);
  });
}

function header(res: http.IncomingMessage, name: string): string | null {
  const v = res.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

function describe(err: unknown, timeout: AbortSignal, timeoutMs: number): string {
  if (timeout.aborted) return `no answer within ${timeoutMs} ms`;
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'AbortError') return 'aborted';
  return e.code ?? e.cause?.code ?? e.cause?.message ?? e.message;
}

/**
 * The whole body as it came, in chunks, gzip undone, refusing (and dropping) one larger than `max`
 * bytes: the limit counts what is unpacked, so a small compressed body cannot blow up. `inspect`
 * sees each chunk as it arrives and may refuse the body by throwing.
 */
export async function readChunks(res: http.IncomingMessage, max: number, inspect?: (chunk: Buffer) => void): Promise<Buffer[]> {
  const encoding = (res.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding !== '' && encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') {
    res.destroy();
    throw new Error(`an answer encoded as ${encoding}, which was not asked for`);
  }
  const source: Readable = encoding === '' || encoding === 'identity' ? res : res.pipe(zlib.createGunzip());
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw new Error(`the answer is larger than ${max} bytes`);
      inspect?.(chunk);
      if (chunk.length > 0) chunks.push(chunk);
    }
  } finally {
    if (size > max || !res.complete) res.destroy();
    if (source !== res) source.destroy();
  }
  return chunks;
}

/**
 * How deep an upstream's JSON may nest. A features answer nests about eight levels (answer,
 * features, flag, strategies, strategy, constraints, constraint, values); 60 MB of nested arrays
 * held the event loop for 15 s and took 2 GB to parse.
 */
export const MAX_JSON_DEPTH = 64;

/** Follows the nesting of JSON text fed in pieces (strings and escapes included); throws past `max`. */
export class DepthGuard {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly max: number) {}

  /** Whether the text fed so far closes every array, object and string it opened. */
  get balanced(): boolean {
    return this.depth === 0 && !this.inString;
  }

  feed(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string';
    let { depth, inString, escaped } = this;
    for (let i = 0; i < chunk.length; i++) {
      const c = bytes ? (chunk as string).charCodeAt(i) : (chunk as Buffer)[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) {
        inString = true;
      } else if (c === 0x5b || c === 0x7b) {
        if (++depth > this.max) throw new Error(`the answer is nested deeper than ${this.max} levels: refused (a features answer nests about 8)`);
      } else if (c === 0x5d || c === 0x7d) {
        depth--;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
  }
}

/** Pieces of a long string, for parseJsonInSlices. */
const PIECE = 64 * 1024;

/**
 * JSON.parse of pieces (the chunks of an answer, or a long string cut up), one piece per turn of
 * the event loop (@discoveryjs/json-ext): a 20 MB answer parsed at once held the relay for a
 * quarter of a second and more. Nesting is checked as the pieces go, and a text that ends before
 * it closes what it opened is refused.
 */
export async function parseJsonInSlices(source: readonly Buffer[] | string): Promise<unknown> {
  // Also fed chunks: the parser takes a document cut off after a whole element (`{"features":[{…}`)
  // as if it were closed there, so a truncated answer would read as one with fewer flags.
  const depth = new DepthGuard(MAX_JSON_DEPTH);
  const parsed = await parseChunked(async function* pieces() {
    if (typeof source === 'string') {
      for (let at = 0; at < source.length; at += PIECE) {
        const piece = source.slice(at, at + PIECE);
        depth.feed(piece);
        yield piece;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      return;
    }
    for (const chunk of source) {
      depth.feed(chunk);
      yield chunk;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  });
  if (!depth.balanced) throw new Error('the JSON ends before it closes what it opened: a truncated answer, refused');
  return parsed;
}
