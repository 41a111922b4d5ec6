// The tokens a relay knows by their text: the configured TOKENS, and every other token seen on a
// request and granted by the upstream. An SDK request with a token the state does not hold waits
// (bounded) while the upstream is asked about it: in batches, a few requests at a time, at most a
// few per second, with a queue bound; a refused token is remembered for UNKNOWN_TOKEN_CACHE_SECONDS,
// so a flood of made-up tokens costs the upstream almost nothing and gets 401s. Every known token
// is asked about again every TOKEN_REVALIDATION_INTERVAL_SECONDS: one the upstream revoked is
// deleted, and the relay refuses it from then on.
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../core/logger.js';
import type { State } from '../../core/state/state.js';
import type { ApiToken } from '../../core/state/types.js';
import { credentialOf } from '../../concepts/tokens/format.js';
import type { TokenHasher } from '../../concepts/tokens/hasher.js';
import { normalizeScope, scopeKey, type RelayScope } from './scope.js';
import { RELAY_TOKEN_NAME, type Grant } from './grants.js';
import { tokenShaped, type TokenValidator, type Verdicts } from './validator.js';

export interface KnownToken {
  raw: string;
  hash: string;
  /** What the upstream grants, as last heard (or as held from before a restart); null: refused. */
  grant: Grant | null;
  configured: boolean;
}

/** What the relay does with tokens (relay.ts). */
export interface TokenHost {
  /** A token the upstream grants: follow its scope, hold it. Resolves whether it is held. */
  granted(token: KnownToken): Promise<boolean>;
  /** A token held from before (its text seen again): follow its scope. */
  seen(token: KnownToken): void;
  /** Tokens the upstream no longer grants. */
  revoked(tokens: KnownToken[]): Promise<void>;
}

export interface TokenOptions {
  /** How long a request waits for its token to be checked. */
  waitMs: number;
  /** UNKNOWN_TOKEN_CACHE_SECONDS. */
  refusedForMs: number;
  /** TOKEN_REVALIDATION_INTERVAL_SECONDS. */
  revalidateMs: number;
}

/** Tokens waiting to be checked, at most (fewer when the upstream cannot check them that fast); more are refused without asking. */
export const MAX_WAITING = 1000;
/** Batches of tokens being checked at once (the validator bounds the requests per second). */
const MAX_IN_FLIGHT = 2;
/** Refused tokens remembered, at most (the oldest forgotten first). */
const MAX_REFUSED = 10_000;
/** How long a token is not asked about again after the upstream could not answer. */
const UNANSWERED_MS = 2_000;

interface Waiting {
  raw: string;
  hash: string;
  done: () => void;
}

function grantOfHeld(t: ApiToken): Grant | null {
  if (t.type === 'admin') return null;
  return { type: t.type, scope: normalizeScope(t.environment, t.projects), expiresAt: t.expiresAt };
}

export class RelayTokens {
  /** By hash. */
  readonly known = new Map<string, KnownToken>();
  private readonly refused = new Map<string, number>();
  private readonly waiting = new Map<string, Promise<void>>();
  private queue: Waiting[] = [];
  private inFlight = 0;
  /** Checks waiting for room in the rate: each will take a batch from the queue. */
  private taking = 0;
  private revalidation: NodeJS.Timeout | null = null;
  private readonly proven = new WeakMap<object, string>();
  /** TOKENS entries the upstream answered it does not grant (by hash): those get 401, the others 503 until held. */
  private readonly configuredRefused = new Set<string>();
  private closed = false;
  /** For Prometheus: tokens granted, refused, turned away (queue full), and requests that stopped waiting. */
  readonly counts = { granted: 0, refused: 0, overflow: 0, timedOut: 0, revoked: 0 };

  constructor(
    private readonly state: () => State,
    private readonly hasher: TokenHasher,
    private readonly validator: TokenValidator,
    private readonly host: TokenHost,
    private readonly log: Logger,
    private readonly opts: TokenOptions,
  ) {}

  /** TOKENS: known from the start; those the state holds from before are followed at once. */
  configure(raws: readonly string[]): void {
    for (const raw of raws) {
      const hash = this.hasher.hash(raw);
      const held = this.state().apiTokens.get(hash);
      const k: KnownToken = { raw, hash, grant: held ? grantOfHeld(held) : null, configured: true };
      this.known.set(hash, k);
      if (k.grant) this.host.seen(k);
    }
  }

  configured(): KnownToken[] {
    return [...this.known.values()].filter((k) => k.configured);
  }

  /** A token of exactly this scope to follow it with, configured ones first; null when none. */
  tokenFor(scope: RelayScope): string | null {
    const key = scopeKey(scope);
    let found: KnownToken | null = null;
    for (const k of this.known.values()) {
      if (k.grant?.type !== 'client' || scopeKey(k.grant.scope) !== key) continue;
      if (k.configured) return k.raw;
      found ??= k;
    }
    return found?.raw ?? null;
  }

  /**
   * The async step before authentication, in relay mode: null when the request can go on at once
   * (its token is held, known to be refused, or absent), else a promise that settles once the
   * upstream has been asked (or the wait is over). The answer then follows as for any request.
   */
  admit(req: IncomingMessage): Promise<void> | null {
    const header = req.headers.authorization ?? req.headers['x-api-key'];
    if (typeof header !== 'string') return null;
    const socket = req.socket as object | undefined;
    // A keep-alive connection that already showed this header held by the state skips the hash.
    if (socket && this.proven.get(socket) === header) return null;
    const raw = credentialOf(header);
    if (raw === null) return null;
    const hash = this.hasher.hash(raw);
    const held = this.state().apiTokens.get(hash);
    // Past the expiry the upstream gave, the token is refused; asked about again at once, in case
    // the upstream extended it (the answer holds the new expiry, or deletes the token).
    if (held && held.tokenName === RELAY_TOKEN_NAME && held.expiresAt !== null && Date.parse(held.expiresAt) <= Date.now()) {
      if (!this.known.has(hash)) this.known.set(hash, { raw, hash, grant: grantOfHeld(held), configured: false });
      return this.ask(raw, hash);
    }
    if (held) {
      if (socket) this.proven.set(socket, header);
      if (!this.known.has(hash) && held.tokenName === RELAY_TOKEN_NAME) this.rediscovered(raw, hash, held);
      return null;
    }
    const until = this.refused.get(hash);
    if (until !== undefined) {
      if (until > Date.now()) return null;
      this.refused.delete(hash);
    }
    if (!tokenShaped(raw)) {
      this.refuse(hash, this.opts.refusedForMs);
      return null;
    }
    return this.ask(raw, hash);
  }

  /**
   * The TOKENS entry `req` presents when the relay cannot serve it yet: not held (its flags are not
   * here: the upstream was not reached, or not synced yet), and not refused by the upstream. Such a
   * request is answered 503, which SDKs retry, rather than 401, which says the token is wrong.
   */
  waitingFor(req: IncomingMessage): KnownToken | null {
    const header = req.headers.authorization ?? req.headers['x-api-key'];
    const raw = typeof header === 'string' ? credentialOf(header) : null;
    if (raw === null) return null;
    const hash = this.hasher.hash(raw);
    const k = this.known.get(hash);
    if (!k?.configured || this.configuredRefused.has(hash) || this.state().apiTokens.has(hash)) return null;
    return k;
  }

  /** What the upstream said of a TOKENS entry (anything else is not remembered here). */
  private verdict(k: KnownToken | undefined, granted: boolean): void {
    if (!k?.configured) return;
    if (granted) this.configuredRefused.delete(k.hash);
    else this.configuredRefused.add(k.hash);
  }

  /**
   * Several tokens at once (a relay downstream asking POST /edge/validate): those neither held nor
   * known to be refused are checked with the upstream, within the same bounds as `admit`.
   */
  admitAll(raws: readonly string[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const raw of raws) {
      const hash = this.hasher.hash(raw);
      if (this.state().apiTokens.has(hash)) continue;
      const until = this.refused.get(hash);
      if (until !== undefined && until > Date.now()) continue;
      if (!tokenShaped(raw)) continue;
      const p = this.ask(raw, hash);
      if (p) waits.push(p);
    }
    return Promise.all(waits).then(() => undefined);
  }

  /** A token held from before a restart, seen again: its text lets the relay follow and recheck it. */
  private rediscovered(raw: string, hash: string, held: ApiToken): void {
    const k: KnownToken = { raw, hash, grant: grantOfHeld(held), configured: false };
    this.known.set(hash, k);
    this.host.seen(k);
    // Asked about soon, not only at the next revalidation: it may have been revoked meanwhile.
    void this.ask(raw, hash, true);
  }

  private refuse(hash: string, ms: number): void {
    if (this.refused.size >= MAX_REFUSED) this.refused.delete(this.refused.keys().next().value!);
    this.refused.set(hash, Date.now() + ms);
  }

  private ask(raw: string, hash: string, background = false): Promise<void> | null {
    let p = this.waiting.get(hash);
    if (!p) {
      // No more waiting than can be checked within the wait: the rest are refused now, unasked.
      const room = Math.min(MAX_WAITING, Math.max(1, Math.floor((this.validator.tokensPerSecond * this.opts.waitMs) / 1000)));
      if (this.waiting.size >= room) {
        this.counts.overflow++;
        return null;
      }
      p = new Promise<void>((done) => this.queue.push({ raw, hash, done }));
      this.waiting.set(hash, p);
      void p.then(() => this.waiting.delete(hash));
      this.pump();
    }
    if (background) return p;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.counts.timedOut++;
        resolve();
      }, this.opts.waitMs);
      void p.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private pump(): void {
    while (!this.closed && this.queue.length > this.taking && this.inFlight < MAX_IN_FLIGHT) {
      this.inFlight++;
      void this.checkNext().finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /**
   * Waits for room in the upstream's check rate, then takes what queued up meanwhile: under a
   * flood, each request upstream carries a whole batch rather than the one token that started it.
   */
  private async checkNext(): Promise<void> {
    this.taking++;
    try {
      await this.validator.whenFree();
    } finally {
      this.taking--;
    }
    const batch = this.queue.splice(0, this.validator.batchSize);
    if (batch.length > 0) await this.check(batch);
  }

  private async check(batch: Waiting[]): Promise<void> {
    let verdicts: Verdicts;
    try {
      verdicts = await this.validator.validate(batch.map((w) => w.raw));
    } catch (err) {
      this.log.warn({ tokens: batch.length, err: (err as Error).message }, 'could not check tokens with the upstream; they are refused for now');
      for (const w of batch) {
        if (!this.known.has(w.hash)) this.refuse(w.hash, UNANSWERED_MS);
        w.done();
      }
      return;
    }
    await Promise.all(batch.map(async (w) => {
      try {
        const grant = verdicts.get(w.raw) ?? null;
        const had = this.known.get(w.hash);
        this.verdict(had, grant !== null);
        if (!grant) {
          this.counts.refused++;
          this.refuse(w.hash, this.opts.refusedForMs);
          if (had) await this.revoke([had]);
          return;
        }
        const k: KnownToken = { raw: w.raw, hash: w.hash, grant, configured: had?.configured ?? false };
        this.known.set(w.hash, k);
        if (await this.host.granted(k)) this.counts.granted++;
        else if (!had) this.refuse(w.hash, UNANSWERED_MS);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'could not hold a token the upstream granted');
      } finally {
        w.done();
      }
    }));
  }

  private async revoke(list: KnownToken[]): Promise<void> {
    for (const k of list) {
      this.counts.revoked++;
      if (k.configured) this.known.set(k.hash, { ...k, grant: null });
      else this.known.delete(k.hash);
    }
    await this.host.revoked(list);
  }

  /**
   * Asks about every known token again. Tokens the upstream no longer grants are deleted; those
   * it grants differently are held anew. When the upstream cannot answer, nothing changes.
   */
  async revalidate(): Promise<boolean> {
    const all = [...this.known.values()];
    for (let i = 0; i < all.length; ) {
      const batch = all.slice(i, i + this.validator.batchSize);
      i += batch.length;
      let verdicts: Verdicts;
      try {
        verdicts = await this.validator.validate(batch.map((k) => k.raw));
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'could not revalidate tokens with the upstream; keeping them until the next try');
        return false;
      }
      const gone: KnownToken[] = [];
      const kept: KnownToken[] = [];
      for (const k of batch) {
        const grant = verdicts.get(k.raw) ?? null;
        this.verdict(k, grant !== null);
        if (!grant) {
          if (k.grant !== null || this.state().apiTokens.has(k.hash)) gone.push(k);
          continue;
        }
        const next = { ...k, grant };
        this.known.set(k.hash, next);
        kept.push(next);
      }
      // Client tokens first: a frontend token is held only once a client token's flags are.
      await Promise.all(kept.filter((k) => k.grant!.type === 'client').map((k) => this.host.granted(k)));
      await Promise.all(kept.filter((k) => k.grant!.type !== 'client').map((k) => this.host.granted(k)));
      if (gone.length > 0) {
        this.log.warn({ tokens: gone.map((k) => k.grant ? scopeKey(k.grant.scope) : 'refused') }, 'the upstream no longer grants these tokens: the relay refuses them from now on');
        await this.revoke(gone);
      }
    }
    return true;
  }

  /** Checks the configured tokens now (retrying while the upstream cannot answer), then every interval. */
  start(): void {
    const first = async (delay: number): Promise<void> => {
      if (this.closed) return;
      if (await this.revalidate()) {
        for (const k of this.configured()) if (k.grant === null) this.log.error({ scope: k.raw.slice(0, k.raw.indexOf('.') + 1) }, 'a TOKENS entry is not granted by the upstream (unknown, revoked, or an admin token)');
        this.schedule();
        return;
      }
      this.revalidation = setTimeout(() => void first(Math.min(delay * 2, 30_000)), delay);
      this.revalidation.unref();
    };
    void first(1000);
  }

  private schedule(): void {
    if (this.closed) return;
    this.revalidation = setTimeout(() => void this.revalidate().finally(() => this.schedule()), this.opts.revalidateMs);
    this.revalidation.unref();
  }

  close(): void {
    this.closed = true;
    if (this.revalidation) clearTimeout(this.revalidation);
    for (const w of this.queue) w.done();
    this.queue = [];
  }
}
