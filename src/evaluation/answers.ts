// Answers of server-side evaluation (Frontend API, OFREP bulk), cached per token scope and
// context while the environment's flags are unchanged: a context seen recently is not evaluated
// again. What an entry keeps is small (its ETag and the list of its evaluations, which are shared
// objects); the body is rendered for each 200 and kept only once the context comes back, so a
// stream of one-off contexts does not fill memory with bodies. Answers that drew on the clock or
// on chance (a date constraint without currentTime, a random rollout) are never kept. The cache is
// an LRU bounded by entries and bytes.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { inClientScope, type ClientScope } from '../auth/access.js';
import type { Runtime } from './compile.js';
import { contextKey, type EvalContext } from './context.js';
import { evaluate, type Evaluation, type FlagLookup, type PreparedFlag } from './evaluate.js';
import type { PreparedFlags } from './prepared.js';

/** Turns the flags a token sees and their evaluations (same order) into an answer's body. */
export type Render = (flags: readonly PreparedFlag[], evaluations: readonly Evaluation[]) => string;

/** An evaluated answer: its ETag, and its body made when asked for (a 304 never asks). */
export class Answer {
  private bytes: Buffer | null = null;
  /** Times it was asked for again. */
  hits = 0;
  /** It drew on the clock or on chance: not to be kept. */
  volatile = false;
  /** Its key in the context cache, and the bytes the cache counts for it. */
  key = '';
  accounted = 0;

  constructor(
    readonly etag: string,
    readonly generation: number,
    private readonly flags: readonly PreparedFlag[],
    private readonly evaluations: readonly Evaluation[],
    private readonly render: Render,
  ) {}

  /** The body; kept only for answers asked for more than once. */
  get body(): Buffer {
    if (this.bytes) return this.bytes;
    const body = Buffer.from(this.render(this.flags, this.evaluations));
    if (this.hits > 0) this.bytes = body;
    return body;
  }

  /** Bytes it holds: the body when kept, and its list of evaluations. */
  get size(): number {
    return (this.bytes?.length ?? 0) + 16 * this.evaluations.length + 64;
  }
}

/** The host name the applicationHostname strategy compares with, as the Node SDK reads it. */
export const HOSTNAME = (process.env.HOSTNAME || os.hostname() || 'undefined').toLowerCase();

export interface EvaluatorOptions {
  maxEntries: number;
  maxBytes: number;
  random?: () => number;
  now?: () => number;
}

/** Evaluates the flags a token may see, for one context. */
export class Evaluator {
  /** context key → answer, least recently used first. */
  private readonly cache = new Map<string, Answer>();
  /** The same answers by the raw request (query string, caller): a repeated request skips parsing. */
  private readonly raw = new Map<string, Answer>();
  /** Raw requests seen once (bounded like the cache): their answer is kept when they come back. */
  private readonly seen = new Map<string, true>();
  private bytes = 0;
  /** For tests and the benchmark: answers evaluated, answers served from the cache. */
  built = 0;
  hits = 0;

  /** Per process start: see the ETag in `all`. */
  private readonly seeds = [randomBytes(4).readUInt32LE(0), randomBytes(4).readUInt32LE(0)];

  constructor(private readonly flags: PreparedFlags, private readonly opts: EvaluatorOptions) {}

  private runtime(): Runtime {
    return { random: this.opts.random ?? Math.random, now: this.opts.now ?? Date.now, hostname: HOSTNAME, volatile: false };
  }

  /** The flags of the token's environment and projects, with a lookup that sees only those. */
  private view(scope: ClientScope): { flags: readonly PreparedFlag[]; generation: number; get: FlagLookup } {
    const env = this.flags.env(scope.environment);
    const get = (name: string) => {
      const f = env.flags.get(name);
      return f && inClientScope(scope, f.project) ? f : undefined;
    };
    return { flags: env.ordered, generation: env.generation, get };
  }

  /** One flag (undefined when the token cannot see it, or it does not exist). */
  one(scope: ClientScope, name: string, ctx: EvalContext): Evaluation | undefined {
    const v = this.view(scope);
    const flag = v.get(name);
    return flag ? evaluate(flag, ctx, this.runtime(), v.get) : undefined;
  }

  /**
   * A repeated request (same kind, token scope and `rawKey`: its query string and caller) answered
   * without even parsing its context; else `all` with the parsed context.
   */
  byRequest(kind: string, scope: ClientScope, rawKey: string, parse: () => EvalContext, render: Render): Answer {
    const key = `${kind}\u0000${scope.key}\u0000${rawKey}`;
    // A request seen for the first time is answered and only remembered: most one-off contexts
    // never come back, and keeping their answers would cost memory and collection for nothing.
    if (!this.seen.has(key)) {
      if (this.seen.size >= this.opts.maxEntries) this.seen.delete(this.seen.keys().next().value as string);
      this.seen.set(key, true);
      return this.build(kind, scope, parse(), render);
    }
    const known = this.raw.get(key);
    // An index into the context cache: valid while the answer is still there and current.
    if (known && this.cache.get(known.key) === known && known.generation === this.flags.env(scope.environment).generation) {
      this.hits++;
      known.hits++;
      return known;
    }
    const answer = this.all(kind, scope, parse(), render);
    if (known) this.raw.delete(key);
    if (this.cache.get(answer.key) === answer) {
      if (this.raw.size >= this.opts.maxEntries) this.raw.delete(this.raw.keys().next().value as string);
      this.raw.set(key, answer);
    }
    return answer;
  }

  /**
   * Every flag the token sees, evaluated for `ctx`, as an answer whose ETag is derived from what
   * makes its body: the prepared flags and their evaluations, both immutable and shared, named by
   * ids unique in this process. The same content has the same ETag while the flags are unchanged,
   * a different body shares one only by a 64-bit hash collision, and naming it costs far less than hashing the body. `kind`
   * keeps different renderings apart.
   */
  all(kind: string, scope: ClientScope, ctx: EvalContext, render: Render): Answer {
    const v = this.view(scope);
    const key = `${kind}\u0000${scope.key}\u0000${contextKey(ctx)}`;
    const hit = this.cache.get(key);
    if (hit && hit.generation === v.generation) {
      this.hits++;
      hit.hits++;
      // Asked for again: its body is worth keeping now (made here, so the cache counts it).
      void hit.body;
      this.forget(key, hit);
      this.keep(key, hit);
      return hit;
    }
    const answer = this.build(kind, scope, ctx, render, v);
    if (hit) this.forget(key, hit);
    if (!answer.volatile) this.keep(key, answer);
    return answer;
  }

  /** Evaluates every flag the token sees for `ctx`, without the cache. */
  private build(kind: string, scope: ClientScope, ctx: EvalContext, render: Render, v = this.view(scope)): Answer {
    const rt = this.runtime();
    // A token that sees every project shares the environment's list; others get their own.
    const all = scope.projects.includes('*');
    const flags: readonly PreparedFlag[] = all ? v.flags : v.flags.filter((f) => inClientScope(scope, f.project));
    const evaluations: Evaluation[] = new Array(flags.length);
    // Two 32-bit FNV-style mixes of the (flag, evaluation) ids, seeded per kind and per process
    // start (ids start over after a restart, so an ETag from before one must not match).
    let h1 = this.seeds[0] ^ kind.length;
    let h2 = this.seeds[1];
    for (let i = 0; i < flags.length; i++) {
      const flag = flags[i];
      const e = evaluate(flag, ctx, rt, v.get);
      evaluations[i] = e;
      h1 = Math.imul(Math.imul(h1 ^ flag.id, 0x01000193) ^ e.id, 0x01000193);
      h2 = Math.imul(Math.imul(h2 ^ e.id, 0x5bd1e995) ^ flag.id, 0x5bd1e995) ^ (h2 >>> 15);
    }
    const etag = `"${kind[0]}${(h1 >>> 0).toString(36)}.${(h2 >>> 0).toString(36)}.${flags.length}"`;
    const answer = new Answer(etag, v.generation, flags, evaluations, render);
    answer.volatile = rt.volatile;
    this.built++;
    return answer;
  }

  private keep(key: string, answer: Answer): void {
    this.cache.set(key, answer);
    answer.key = key;
    answer.accounted = answer.size + key.length;
    this.bytes += answer.accounted;
    while (this.cache.size > this.opts.maxEntries || (this.bytes > this.opts.maxBytes && this.cache.size > 1)) {
      const [oldest, value] = this.cache.entries().next().value as [string, Answer];
      this.forget(oldest, value);
    }
  }

  private forget(key: string, value: Answer): void {
    if (this.cache.delete(key)) this.bytes -= value.accounted;
  }
}
