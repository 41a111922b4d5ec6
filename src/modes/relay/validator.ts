// Asks the upstream what it grants each token: `POST /edge/validate {tokens}` (Unleash since 4.15,
// Fanion), which answers with the valid ones only. An upstream without that route (404) is asked
// the way an SDK would be: the token string names its environment and projects, and
// GET /api/client/features (a client token) or GET /api/frontend (a frontend token) says whether
// the upstream accepts it.
import type { Logger } from '../../core/logger.js';
import { parseSeedToken } from '../../concepts/tokens/format.js';
import { grantOf, type Grant } from './grants.js';
import { normalizeScope } from './scope.js';
import { UpstreamError, type Upstream } from './upstream.js';

/** Tokens asked about in one request, at most. */
export const VALIDATE_BATCH = 100;
/** Requests sent upstream to check tokens, at most, per second: a flood of made-up tokens costs the upstream this much. */
export const CHECKS_PER_SECOND = 5;

/** Per token: what the upstream grants, or null when it refuses it. */
export type Verdicts = Map<string, Grant | null>;

/** Whether a string can be an Unleash token at all (`<project>:<environment>.<secret>`): others are never asked about. */
export function tokenShaped(raw: string): boolean {
  return raw.length <= 512 && parseSeedToken(raw) !== null;
}

export class TokenValidator {
  /** Set once the upstream answered 404 to /edge/validate. */
  private noValidateRoute = false;
  /** Requests sent upstream to check tokens (Prometheus). */
  requests = 0;
  private sentAt: number[] = [];
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly upstream: Upstream,
    private readonly log: Logger,
  ) {}

  /**
   * The verdict on each of `raws` (at most VALIDATE_BATCH). Throws UpstreamError when the upstream
   * could not say (unreachable, timeout, a 5xx): nothing may be concluded then.
   */
  async validate(raws: readonly string[]): Promise<Verdicts> {
    const verdicts: Verdicts = new Map(raws.map((r) => [r, null]));
    const asked = raws.filter(tokenShaped);
    if (asked.length === 0) return verdicts;
    if (!this.noValidateRoute) {
      await this.slot();
      const answer = await this.upstream.post('/edge/validate', null, { tokens: asked });
      if (answer.status === 200) {
        const list = (answer.body as { tokens?: unknown } | null)?.tokens;
        if (!Array.isArray(list)) throw new UpstreamError('POST /edge/validate answered without a token list', 200);
        for (const entry of list) {
          if (entry && typeof entry === 'object' && typeof entry.token === 'string' && verdicts.has(entry.token)) verdicts.set(entry.token, grantOf(entry));
        }
        return verdicts;
      }
      if (answer.status !== 404 && answer.status !== 405) throw new UpstreamError(`POST /edge/validate answered ${answer.status}`, answer.status);
      this.noValidateRoute = true;
      this.log.info('the upstream has no POST /edge/validate: tokens are checked with the client and frontend APIs');
    }
    for (const raw of asked) verdicts.set(raw, await this.askLikeAnSdk(raw));
    return verdicts;
  }

  /** Tokens worth asking about in one call: one request for them all, or (without /edge/validate) one or two each. */
  get batchSize(): number {
    return this.noValidateRoute ? CHECKS_PER_SECOND : VALIDATE_BATCH;
  }

  /** Tokens it can check per second at most (a request each for all of a batch, or one to two requests each). */
  get tokensPerSecond(): number {
    return this.noValidateRoute ? CHECKS_PER_SECOND / 2 : CHECKS_PER_SECOND * VALIDATE_BATCH;
  }

  /** Resolves once a request would fit in CHECKS_PER_SECOND (without taking the room). */
  async whenFree(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.sentAt.length > 0 && now - this.sentAt[0] >= 1000) this.sentAt.shift();
      if (this.sentAt.length < CHECKS_PER_SECOND) return;
      await new Promise((resolve) => setTimeout(resolve, 1000 - (now - this.sentAt[0])));
    }
  }

  /** Waits until one more request fits in CHECKS_PER_SECOND, and counts it. */
  private slot(): Promise<void> {
    const mine = this.turn.then(async () => {
      await this.whenFree();
      this.sentAt.push(Date.now());
      this.requests++;
    });
    this.turn = mine;
    return mine;
  }

  /** The fallback: the scope the token string names, if the upstream's SDK APIs accept the token. */
  private async askLikeAnSdk(raw: string): Promise<Grant | null> {
    const parsed = parseSeedToken(raw)!;
    if (parsed.environment === '*') return null;
    await this.slot();
    const client = await this.upstream.get('/api/client/features', raw);
    if (client.status === 200) {
      let projects = [parsed.project];
      if (parsed.project === '[]') {
        // Several projects: the answer's own query says which (Unleash), else the flags' projects.
        const body = client.body as { query?: { project?: unknown }; features?: { project?: unknown }[] } | null;
        const listed = Array.isArray(body?.query?.project) ? body.query.project : (body?.features ?? []).map((f) => f.project);
        projects = [...new Set(listed.filter((p): p is string => typeof p === 'string'))];
        if (projects.length === 0) return null;
      }
      return { type: 'client', scope: normalizeScope(parsed.environment, projects), expiresAt: null };
    }
    if (client.status >= 500) throw new UpstreamError(`GET /api/client/features answered ${client.status}`, client.status);
    if (parsed.project === '[]') return null;
    await this.slot();
    const frontend = await this.upstream.get('/api/frontend', raw);
    if (frontend.status === 200) return { type: 'frontend', scope: normalizeScope(parsed.environment, [parsed.project]), expiresAt: null };
    if (frontend.status >= 500) throw new UpstreamError(`GET /api/frontend answered ${frontend.status}`, frontend.status);
    return null;
  }
}
