// A server-sent-events reader for tests: opens GET /api/client/streaming with node:http and
// parses frames as they arrive, so a test can wait for the next one, see comments (keep-alives)
// and tell when the server ended the stream.
import http from 'node:http';

export interface SseFrame {
  event: string | null;
  id: number | null;
  data: any;
  /** A comment line (": keep-alive"). */
  comment: string | null;
}

export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Error body when the status is not 200. */
  body: any;
  frames: SseFrame[];
  /** Resolves with the next frame (after those already taken) that passes `keep`. */
  next(keep?: (f: SseFrame) => boolean, ms?: number): Promise<SseFrame>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

function parse(block: string): SseFrame {
  const frame: SseFrame = { event: null, id: null, data: undefined, comment: null };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else if (line.startsWith('event: ')) frame.event = line.slice(7);
    else if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
    else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
  }
  return frame;
}

export function openStream(base: string, headers: Record<string, string> = {}, path = '/api/client/streaming'): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: { accept: 'text/event-stream', ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      const frames: SseFrame[] = [];
      let taken = 0;
      let waiters: (() => void)[] = [];
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      let buffer = '';
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += res.statusCode === 200 ? '' : chunk;
        if (res.statusCode !== 200) return;
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          frames.push(parse(buffer.slice(0, at)));
          buffer = buffer.slice(at + 2);
        }
        const w = waiters;
        waiters = [];
        for (const fn of w) fn();
      });
      res.on('close', () => {
        endedResolve();
        const w = waiters;
        waiters = [];
        for (const fn of w) fn();
      });
      let closed = false;
      res.on('close', () => (closed = true));
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        frames,
        ended,
        close: () => req.destroy(),
        next: (keep = (f) => f.comment === null, ms = 5000) =>
          new Promise((resolveFrame, rejectFrame) => {
            const timer = setTimeout(() => rejectFrame(new Error(`no frame within ${ms} ms (got ${frames.length})`)), ms);
            const look = () => {
              while (taken < frames.length) {
                const f = frames[taken++];
                if (keep(f)) {
                  clearTimeout(timer);
                  return resolveFrame(f);
                }
              }
              if (closed) {
                clearTimeout(timer);
                return rejectFrame(new Error('the stream ended'));
              }
              waiters.push(look);
            };
            look();
          }),
      };
      if (res.statusCode !== 200) {
        res.on('end', () => {
          try {
            stream.body = JSON.parse(raw);
          } catch {
            stream.body = raw;
          }
          resolve(stream);
        });
        return;
      }
      resolve(stream);
    });
  });
}
