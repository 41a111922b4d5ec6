// Answers of server-side evaluation (Frontend API, OFREP bulk), cached per token scope and
// context while the environment's flags are unchanged: a context seen recently is not evaluated
// again. What an entry keeps is small (its ETag and the list of its evaluations, which are shared
// objects); the body is rendered for each 200 and kept only once the context comes back, so a
// stream of one-off contexts does not fill memory with bodies. Answers that drew on the clock or
// on chance (a date constraint without currentTime, a random rollout) are never kept.
//
// Frontend tokens are public, so everything kept here is counted in bytes, keys included, against
// one budget (FRONTEND_CACHE_MAX_BYTES): the answers with their context keys and the raw requests
// that lead to them, and, in at most a quarter of it, the requests and contexts seen once. A key
// can be as long as a URL or a request body allows; one that does not fit is simply not kept.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { inClientScope, type ClientScope } from '../../core/access/access.js';
import type { Runtime } from './compile.js';
import { contextKey, type EvalContext } from './context.js';
import { evaluate, type Evaluation, type FlagLookup, type PreparedFlag } from './evaluate.js';
import type { PreparedFlags } from './prepared.js';

/** Turns the flags a token sees and their evaluations (same order) into an answer's body. */
export type Render = (flags: readonly PreparedFlag[], evaluations: readonly Evaluation[]) => string;

// Estimated bytes, counted as V8 keeps them: a string is a header and one or two bytes a character
// (two assumed: a context may hold any Unicode), a Map entry a few words and its hash-table slot.
// Estimates, not measurements; what matters is that they grow with what a caller sends
// (bench/frontend-flood.ts compares with RSS).
const ENTRY = 64;
const keyBytes = (key: string) => ENTRY + 2 * key.length;
/** An answer object with its fields, and a Buffer's object and backing store. */
const ANSWER = 160;
const BUFFER = 96;
/** Raw requests remembered as leading to one answer, at most (more are parsed each time). */
export const MAX_ALIASES = 8;

/** An evaluated answer: its ETag, and its body made when asked for (a 304 never asks). */
export class Answer {
  private bytes: Buffer | null = null;
  /** Times it was asked for again. */
  hits = 0;
  /** It drew on the clock or on chance: not to be kept. */
  volatile = false;
  /** Its key in the context cache (empty until kept), and the bytes the cache counts for it. */
  key = '';
  accounted = 0;
  /** Raw requests that lead to it (keys of the evaluator's raw index). */
  aliases: string[] = [];
  /** Told when the body starts being kept, while the cache holds the answer. */
  onGrow: ((a: Answer) => void) | null = null;

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
    const text = this.render(this.flags, this.evaluations);
    if (this.hits === 0) return Buffer.from(text);
    // Its own memory, not a slice of Node's shared 8 KB pool, which a kept slice would pin whole.
    const body = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    body.write(text);
    this.bytes = body;
    this.onGrow?.(this);
    return body;
  }

  /** Bytes it holds: the body when kept, its lists of evaluations and flags. */
  get size(): number {
    return ANSWER + (this.bytes ? BUFFER + this.bytes.length : 0) + 16 * this.evaluations.length;
  }
}

/** The host name the applicationHostname strategy compares with, as the Node SDK reads it. */
export const HOSTNAME = (process.env.HOSTNAME || os.hostname() || 'undefined').toLowerCase();

export interface EvaluatorOptions {
  /** Answers kept at most (FRONTEND_CACHE_ENTRIES); requests seen once are bounded alike. */
  maxEntries: number;
  /** Everything kept, keys included (FRONTEND_CACHE_MAX_BYTES). */
  maxBytes: number;
  random?: () => number;
  now?: () => number;
}

/** What the evaluator holds, for tests and the benchmark. */
export interface EvaluatorSize {
  /** Estimated bytes of everything below, against `maxBytes`. */
  bytes: number;
  answers: number;
  aliases: number;
  seen: number;
}

/** Marks a raw-request key, so it can never equal a context key (whose text starts with `[`). */
const RAW = '\u0001';

/** Evaluates the flags a token may see, for one context. */
export class Evaluator {
  /** context key → answer, least recently used first. */
  private readonly cache = new Map<string, Answer>();
  /** The same answers by the raw request (query string, caller): a repeated request skips parsing. Only answers in `cache`. */
  private readonly raw = new Map<string, Answer>();
  /** Raw requests and contexts seen once, oldest first, with the bytes counted for each: kept when they come back. */
  private readonly seen = new Map<string, number>();
  /** Bytes counted for `cache` and `raw` (the answers, their keys and aliases), and for `seen`. */
  private bytes = 0;
  private seenBytes = 0;
  private readonly answerBudget: number;
  private readonly seenBudget: number;
  private readonly grew = (a: Answer) => this.account(a);
  /** For tests and the benchmark: answers evaluated, answers served from the cache. */
  built = 0;
  hits = 0;

  /** Per process start: see the ETag in `all`. */
  private readonly seeds = [randomBytes(4).readUInt32LE(0), randomBytes(4).readUInt32LE(0)];

  constructor(private readonly flags: PreparedFlags, private readonly opts: EvaluatorOptions) {
    // A quarter at most for what was seen once: enough to recognise a context coming back.
    this.seenBudget = Math.floor(opts.maxBytes / 4);
    this.answerBudget = opts.maxBytes - this.seenBudget;
  }

  size(): EvaluatorSize {
    return { bytes: this.bytes + this.seenBytes, answers: this.cache.size, aliases: this.raw.size, seen: this.seen.size };
  }

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
   * without even parsing its context; else as `all` with the parsed context.
   */
  byRequest(kind: string, scope: ClientScope, rawKey: string, parse: () => EvalContext, render: Render): Answer {
    const key = `${kind}\u0000${scope.key}\u0000${RAW}${rawKey}`;
    const known = this.raw.get(key);
    if (known !== undefined) {
      if (known.generation === this.flags.env(scope.environment).generation && this.cache.get(known.key) === known) {
        this.hits++;
        known.hits++;
        return known;
      }
      // Stale: the lookup below replaces the answer, and its aliases go with the old one.
    } else if (!this.seen.has(key)) {
      // A request seen for the first time is answered and only remembered: most one-off contexts
      // never come back, and keeping their answers would cost memory and collection for nothing.
      this.remember(key);
      return this.build(kind, scope, parse(), render);
    } else {
      this.unremember(key);
    }
    const answer = this.lookup(kind, scope, parse(), render, true);
    if (this.cache.get(answer.key) === answer && answer.aliases.length < MAX_ALIASES) {
      answer.aliases.push(key);
      this.raw.set(key, answer);
      this.account(answer);
    } else {
      // Not indexed (too many aliases, or the answer is not kept): still known as seen, so it
      // comes back here, parsed and looked up, instead of being evaluated as new.
      this.remember(key);
    }
    return answer;
  }

  /**
   * Every flag the token sees, evaluated for `ctx`, as an answer whose ETag is derived from what
   * makes its body: the prepared flags and their evaluations, both immutable and shared, named by
   * ids unique in this process. The same content has the same ETag while the flags are unchanged,
   * a different body shares one only by a 64-bit hash collision, and naming it costs far less than hashing the body. `kind`
   * keeps different renderings apart. A context seen for the first time is only remembered.
   */
  all(kind: string, scope: ClientScope, ctx: EvalContext, render: Render): Answer {
    return this.lookup(kind, scope, ctx, render, false);
  }

  /** `all`, where `again` says the caller already saw this request once (the answer is kept then). */
  private lookup(kind: string, scope: ClientScope, ctx: EvalContext, render: Render, again: boolean): Answer {
    const v = this.view(scope);
    const key = `${kind}\u0000${scope.key}\u0000${contextKey(ctx)}`;
    const hit = this.cache.get(key);
    if (hit && hit.generation === v.generation) {
      this.hits++;
      hit.hits++;
      // Most recently used now; asked for again, so its body is worth keeping (counted as it is made).
      this.cache.delete(key);
      this.cache.set(key, hit);
      void hit.body;
      return hit;
    }
    if (hit) this.forget(key, hit);
    const answer = this.build(kind, scope, ctx, render, v);
    if (answer.volatile) return answer;
    if (!again && !hit && !this.seen.has(key)) {
      this.remember(key);
      return answer;
    }
    this.unremember(key);
    this.keep(key, answer);
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
    answer.key = key;
    answer.onGrow = this.grew;
    this.cache.set(key, answer);
    this.account(answer);
  }

  /** Counts the answer again (its body kept, an alias added), then evicts the least recently used past a bound. */
  private account(answer: Answer): void {
    if (this.cache.get(answer.key) !== answer) return;
    let now = answer.size + keyBytes(answer.key);
    for (const alias of answer.aliases) now += keyBytes(alias);
    this.bytes += now - answer.accounted;
    answer.accounted = now;
    // An answer larger than the whole budget goes too: nothing is kept beyond it.
    while (this.cache.size > this.opts.maxEntries || (this.bytes > this.answerBudget && this.cache.size > 0)) {
      const [oldest, value] = this.cache.entries().next().value as [string, Answer];
      this.forget(oldest, value);
    }
  }

  private forget(key: string, answer: Answer): void {
    if (!this.cache.delete(key)) return;
    this.bytes -= answer.accounted;
    for (const alias of answer.aliases) if (this.raw.get(alias) === answer) this.raw.delete(alias);
    answer.aliases = [];
    answer.accounted = 0;
    answer.onGrow = null;
  }

  /** Remembers a request or context seen once, oldest forgotten first past the bounds. */
  private remember(key: string): void {
    const n = keyBytes(key);
    if (n > this.seenBudget) return;
    this.seen.set(key, n);
    this.seenBytes += n;
    while (this.seen.size > this.opts.maxEntries || this.seenBytes > this.seenBudget) {
      this.unremember(this.seen.keys().next().value as string);
    }
  }

  private unremember(key: string): void {
    const n = this.seen.get(key);
    if (n === undefined) return;
    this.seen.delete(key);
    this.seenBytes -= n;
  }
}
