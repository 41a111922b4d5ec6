// The edge where webhooks leave the process: one POST, with a time limit, no redirects followed,
// the answer's body dropped as it comes (at most 64 KiB, then the connection is closed: a receiver
// cannot make Fanion hold its bytes), and only to destinations the policy allows (destination.ts),
// checked on the address actually connected to.
//
// What an admin reads back says whether it was refused by policy, which HTTP status came back, or
// only that the connection failed: a refused connection, a reset, a timeout and a name that does
// not resolve read the same, so an addon cannot be used to tell open ports from closed ones. The
// cause itself goes to the log, for the operator.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { guardedLookup, hostOf, refusedBySend, RefusedDestination, refusal, type DestinationPolicy } from './destination.js';
import type { WebhookRequest } from './logic.js';

/**
 * How a send ended: `ok`, or why not, in words an operator reads in GET /api/admin/addons/:id
 * (`error`), with what only the log shows (`detail`).
 */
export type SendResult = { ok: true; status: number } | { ok: false; error: string; detail?: string };

/** Sends one webhook request; never throws. */
export type Send = (req: WebhookRequest, signal: AbortSignal) => Promise<SendResult>;

/** What is read of an answer's body (and dropped) so its connection can carry the next request; past it, the connection is closed. */
const DISCARD_MAX = 64 * 1024;

/** A 2xx within `timeoutMs` is a delivery, anything else a failure to retry. */
export function httpSender(timeoutMs: number, policy: DestinationPolicy): Send {
  // Keep-alive: a backlog goes over one connection, not one handshake per event. A kept socket
  // was connected to an address the lookup checked.
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  const lookup = guardedLookup(policy);
  const failed = `connection failed or no answer within ${timeoutMs} ms`;
  const done = (result: SendResult) => Promise.resolve(result);
  return (req, signal) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return done({ ok: false, error: 'the URL does not parse' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return done({ ok: false, error: 'not an http or https URL' });
    // Addons saved before the policy existed: what a save refuses now is refused here too.
    if (url.username !== '' || url.password !== '') return done({ ok: false, error: 'refused by policy: the URL carries credentials (user:password@)' });
    const host = hostOf(url);
    const trusted = policy.allowHosts.has(host);
    if (net.isIP(host) && !trusted && refusal(host, policy)) return done({ ok: false, error: refusedBySend(host) });
    const timeout = AbortSignal.timeout(timeoutMs);
    return new Promise<SendResult>((resolve) => {
      const body = Buffer.from(req.body);
      let answered = false;
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'POST',
        headers: { ...req.headers, 'Content-Length': String(body.length) },
        agent: agents[url.protocol as 'http:' | 'https:'],
        // Trusted names resolve as usual; every other name only to addresses the policy allows.
        ...(trusted ? {} : { lookup }),
        signal: AbortSignal.any([signal, timeout]),
      });
      request.on('response', (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        const result: SendResult = status >= 200 && status < 300
          ? { ok: true, status }
          : { ok: false, error: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}` };
        // The status is all we want. The body is dropped as it comes (so the connection can carry
        // the next request), a long one closes the connection, and the time limit still ends it.
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > DISCARD_MAX) res.destroy();
        });
        res.on('error', () => {});
        resolve(result);
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (answered) return;
        if (err instanceof RefusedDestination || err.cause instanceof RefusedDestination) {
          resolve({ ok: false, error: refusedBySend(host), detail: err.message });
        } else if (signal.aborted) {
          resolve({ ok: false, error: 'stopped: Fanion is shutting down' });
        } else {
          resolve({ ok: false, error: failed, detail: timeout.aborted ? `no answer within ${timeoutMs} ms` : `${err.code ?? ''} ${err.message}`.trim() });
        }
      });
      request.end(body);
    });
  };
}
