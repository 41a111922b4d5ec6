// Requests refused for their credentials (401) or their reach (403), counted for the metrics
// endpoint wherever a route's error is answered: the pipeline and the SDK fast path.
import { AuthenticationRequired, NoAccessError } from '../core/errors.js';
import type { AppContext } from './route.js';

export function countRefusal(ctx: AppContext, err: unknown): void {
  if (!ctx.metrics) return;
  if (err instanceof AuthenticationRequired) ctx.metrics.hot.refused[401]++;
  else if (err instanceof NoAccessError) ctx.metrics.hot.refused[403]++;
}
