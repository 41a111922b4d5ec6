// Limits on connections and on requests still arriving, so that no client, slow or many, can
// hold the server's descriptors or sockets for long (issue #19).
//
// - headersTimeout: a request's headers must arrive within it (Node's default is 60 s, and it is
//   only checked every connectionsCheckingInterval, 30 s by default: a trickle lasted 90 s). Node
//   counts it from the request's first byte, so a client that connects and waits before its
//   first byte, then trickles, had the wait on top: the first request of a connection is timed
//   here from the connection instead (firstHeadersWithin), to the millisecond; later requests on
//   a keep-alive connection by Node, checked four times a second.
// - requestTimeout: the whole request (headers and body) must arrive within it. Both are about
//   requests still arriving: once a request is in, a long answer (a stream of server-sent events)
//   is not limited by either.
// - an error answer that closes the connection (a 408 for slow headers, a parser error, a refusal
//   with Connection: close) is followed by the socket's destruction after ERROR_CLOSE_GRACE_MS,
//   whether or not the client read the answer or closed its side. A 408 is sent without a FIN
//   and followed by a reset TIMEOUT_CLOSE_GRACE_MS later: a client that never closes its side
//   learns of it at once, not at its next write.
// - maxConnections: below the process's descriptor limit, with room for Fanion's own files (WAL
//   segments, checkpoints, the lock): past it Node closes a new connection as soon as it is
//   accepted. Refusals are counted, and logged once each time the cap is reached.
import fs from 'node:fs';
import type http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../core/logger.js';

/** How long a connection may stay once its error answer is written and its end sent. */
export const ERROR_CLOSE_GRACE_MS = 2_000;
/**
 * The same after a 408: short, so that a request whose headers trickle is gone within its
 * timeout and half a second, whether or not the client closes its side.
 */
export const TIMEOUT_CLOSE_GRACE_MS = 500;
/** How often Node looks for requests past their timeouts (its default, 30 s, let a trickle live 30 s longer). */
export const TIMEOUT_CHECK_MS = 250;

/**
 * After an error answer that ends the connection: the socket is destroyed if it has not closed
 * within `ms`. Ending it only sends a FIN once the answer is written; the server's sockets are
 * half-open, so a client that never reads (the answer, then the FIN, stay in the buffers) or never
 * closes its side kept the socket and its descriptor for good. It is reset rather than closed
 * when its end was not sent: a client that never closes its side only learns of a plain close at
 * its next write, or the one after.
 */
export function closeWithin(socket: Duplex | null, ms = ERROR_CLOSE_GRACE_MS): void {
  if (!socket || socket.destroyed) return;
  const timer = setTimeout(() => {
    // A reset is only possible before the socket's end was sent (libuv refuses it after a
    // shutdown, and the descriptor would stay open): after end(), a plain close.
    const tcp = socket as Partial<net.Socket>;
    if (!socket.writableEnded && typeof tcp.resetAndDestroy === 'function') tcp.resetAndDestroy();
    else socket.destroy();
  }, ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

const HEADERS_IN = Symbol('fanion.headersIn');
type Marked = net.Socket & { [HEADERS_IN]?: boolean };

/**
 * Called with each request as its headers are in: its connection's first headers have arrived.
 * On the poll path: the mark is made `false` when the connection opens, so this is a store into a
 * property every socket already has, never a change of the socket's shape on a request.
 */
export function headersArrived(req: http.IncomingMessage): void {
  (req.socket as Marked)[HEADERS_IN] = true;
}

/**
 * The first request of each connection must have its headers in `ms` after the connection
 * opened, however it trickles them and however long it waits before its first byte; else
 * `expire` answers it (a 408) and closes it. The server's request handler calls `headersArrived`.
 */
export function firstHeadersWithin(server: http.Server, ms: number, expire: (socket: net.Socket) => void): void {
  server.on('connection', (socket: Marked) => {
    socket[HEADERS_IN] = false;
    const timer = setTimeout(() => {
      if (socket[HEADERS_IN] !== true && !socket.destroyed) expire(socket);
    }, ms);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

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
