// Limits on connections and on requests still arriving, so that no client, slow or many, can
// hold the server's descriptors or sockets for long (issue #19).
//
// - headersTimeout: a request's headers must arrive within it (Node's default is 60 s, and it is
//   only checked every connectionsCheckingInterval, 30 s by default: a trickle lasted 90 s).
// - requestTimeout: the whole request (headers and body) must arrive within it. Both are about
//   requests still arriving: once a request is in, a long answer (a stream of server-sent events)
//   is not limited by either.
// - maxConnections: below the process's descriptor limit, with room for Fanion's own files (WAL
//   segments, checkpoints, the lock): past it Node closes a new connection as soon as it is
//   accepted. Refusals are counted, and logged once each time the cap is reached.
import fs from 'node:fs';
import type http from 'node:http';
import type { Logger } from '../log.js';

/** Descriptors left for Fanion itself: stdio, epoll and libuv's own, the WAL, checkpoints being written, the lock, backups. */
export const OWN_DESCRIPTORS = 128;

/** The soft limit on open files ("Max open files" in /proc/self/limits), or null where it cannot be read. */
export function openFilesLimit(limitsFile = '/proc/self/limits'): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync(limitsFile, 'utf8'));
    if (!m || m[1] === 'unlimited') return null;
    return Number(m[1]);
  } catch {
    return null;
  }
}

/** The connection cap: MAX_CONNECTIONS when set, else the descriptor limit less Fanion's own share. */
export function connectionCap(configured: number | undefined, limit: number | null): number {
  if (configured !== undefined) return configured;
  if (limit === null) return 10_000;
  return Math.max(16, limit - OWN_DESCRIPTORS);
}

export interface ConnectionGuard {
  readonly cap: number;
  /** Connections refused at the cap since start (for the metrics endpoint). */
  refused(): number;
}

/** Applies the cap to `server`; logs once when it is reached and once when it has room again. */
export function guardConnections(server: http.Server, cap: number, log: Logger): ConnectionGuard {
  server.maxConnections = cap;
  let refused = 0;
  let atCap = false;
  let sinceCap = 0;
  server.on('drop', () => {
    refused++;
    sinceCap++;
    if (atCap) return;
    atCap = true;
    sinceCap = 1;
    log.warn({ maxConnections: cap }, 'connection limit reached: new connections are closed at once until some end (MAX_CONNECTIONS)');
    const check = setInterval(() => {
      server.getConnections((err, open) => {
        if (err || open >= cap * 0.9) return;
        clearInterval(check);
        atCap = false;
        log.info({ maxConnections: cap, open, refused: sinceCap, refusedSinceStart: refused }, 'connection limit: room again');
      });
    }, 1000);
    check.unref();
  });
  return { cap, refused: () => refused };
}
