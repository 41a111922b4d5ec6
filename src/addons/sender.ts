// The edge where webhooks leave the process: one POST, with a time limit, no redirects followed,
// the answer's body never read (a receiver cannot make Fanion hold its bytes).
import type { WebhookRequest } from './logic.js';

/** How a send ended: `ok`, or why not, in words an operator reads in GET /api/admin/addons/:id. */
export type SendResult = { ok: true; status: number } | { ok: false; error: string };

/** Sends one webhook request; never throws. */
export type Send = (req: WebhookRequest, signal: AbortSignal) => Promise<SendResult>;

/** `fetch`-based sender: a 2xx within `timeoutMs` is a delivery, anything else a failure to retry. */
export function httpSender(timeoutMs: number): Send {
  return async (req, signal) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(req.url, {
        method: 'POST', headers: req.headers, body: req.body, redirect: 'manual', signal: AbortSignal.any([signal, timeout]),
      });
      await res.body?.cancel().catch(() => {});
      if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
      return { ok: false, error: res.status >= 300 && res.status < 400 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}` };
    } catch (err) {
      if (timeout.aborted) return { ok: false, error: `no answer within ${timeoutMs} ms` };
      if (signal.aborted) return { ok: false, error: 'stopped: Fanion is shutting down' };
      const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
      return { ok: false, error: cause?.code ? `${cause.code}${cause.message ? `: ${cause.message}` : ''}` : (err as Error).message };
    }
  };
}
