// The one place the relay talks to its upstream over HTTP (Node's fetch): every request with the
// relay's identity headers, the operator's CUSTOM_CLIENT_HEADERS and a timeout; answers read
// within a byte limit (counted after gzip is undone, so a small compressed body cannot blow up);
// conditional GETs with If-None-Match.
import { randomUUID } from 'node:crypto';

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
  headers: Headers;
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

  /** A GET of JSON; `etag` goes as If-None-Match. Throws UpstreamError on a network error or timeout. */
  get(path: string, token: string, etag: string | null = null): Promise<UpstreamAnswer> {
    return this.request('GET', path, token, undefined, etag ? { 'if-none-match': etag } : {});
  }

  post(path: string, token: string | null, body: unknown): Promise<UpstreamAnswer> {
    return this.request('POST', path, token, JSON.stringify(body), { 'content-type': 'application/json' });
  }

  private async request(method: string, path: string, token: string | null, body: string | undefined, extra: Record<string, string>): Promise<UpstreamAnswer> {
    const signal = AbortSignal.timeout(this.opts.timeoutMs);
    let res: Response;
    try {
      res = await fetch(this.url(path), { method, headers: this.headers(token, extra), body, signal, redirect: 'error' });
    } catch (err) {
      throw new UpstreamError(`${method} ${path}: ${describe(err, this.opts.timeoutMs)}`);
    }
    let parsed: unknown = null;
    try {
      const bytes = await readLimited(res, this.opts.maxBytes);
      if (bytes.length > 0 && /json/i.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new UpstreamError(`${method} ${path}: ${describe(err, this.opts.timeoutMs)}`, res.status);
    }
    return { status: res.status, etag: res.headers.get('etag'), headers: res.headers, body: parsed };
  }

  /**
   * Opens GET /api/client/streaming. Resolves with the response once its headers are in (the
   * caller reads the body); throws UpstreamError when it cannot connect within the timeout.
   */
  async openStream(token: string, lastEventId: string | null, abort: AbortSignal): Promise<Response> {
    const connect = AbortSignal.any([abort, AbortSignal.timeout(this.opts.timeoutMs)]);
    const extra: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (lastEventId) extra['last-event-id'] = lastEventId;
    // The connect timeout must not end the stream later: the body is tied to `abort` only.
    const both = new AbortController();
    const onAbort = () => both.abort();
    abort.addEventListener('abort', onAbort, { once: true });
    connect.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await fetch(this.url('/api/client/streaming'), { headers: this.headers(token, extra), signal: both.signal, redirect: 'error' });
      connect.removeEventListener('abort', onAbort);
      return res;
    } catch (err) {
      throw new UpstreamError(`GET /api/client/streaming: ${describe(err, this.opts.timeoutMs)}`);
    }
  }
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (e.name === 'AbortError') return 'aborted';
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

/** The whole body, refusing (and cancelling) one larger than `max` bytes. */
export async function readLimited(res: Response, max: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw new Error(`the answer is larger than ${max} bytes`);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, size);
}
