// Answers of server-side evaluation (Frontend API, OFREP bulk), cached per token scope and
// context: a context seen recently is not evaluated again while its environment's flags are
// unchanged. Answers that drew on the clock or on chance (a date constraint without currentTime,
// a random rollout) are never kept. The cache is an LRU bounded by entries and bytes.
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { ClientScope } from '../auth/access.js';
import type { Runtime } from './compile.js';
import { contextKey, type EvalContext } from './context.js';
import { evaluate, type Evaluation, type FlagLookup, type PreparedFlag } from './evaluate.js';
import type { PreparedFlags } from './prepared.js';

export interface Answer {
  etag: string;
  body: Buffer;
}

interface Cached extends Answer {
  generation: number;
}

const inScope = (scope: ClientScope, project: string) => scope.projects.includes('*') || scope.projects.includes(project);

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
  private readonly cache = new Map<string, Cached>();
  private bytes = 0;
  /** For tests and the benchmark: answers built, answers served from the cache. */
  built = 0;
  hits = 0;

  constructor(private readonly flags: PreparedFlags, private readonly opts: EvaluatorOptions) {}

  private runtime(): Runtime {
    return { random: this.opts.random ?? Math.random, now: this.opts.now ?? Date.now, hostname: HOSTNAME, volatile: false };
  }

  /** The flags of the token's environment and projects, with a lookup that sees only those. */
  private view(scope: ClientScope): { flags: PreparedFlag[]; lookup: FlagLookup; generation: number; get: (name: string) => PreparedFlag | undefined } {
    const env = this.flags.env(scope.environment);
    const get = (name: string) => {
      const f = env.flags.get(name);
      return f && inScope(scope, f.project) ? f : undefined;
    };
    return { flags: env.ordered, lookup: get, generation: env.generation, get };
  }

  /** One flag (undefined when the token cannot see it, or it does not exist). */
  one(scope: ClientScope, name: string, ctx: EvalContext): Evaluation | undefined {
    const v = this.view(scope);
    const flag = v.get(name);
    return flag ? evaluate(flag, ctx, this.runtime(), v.lookup) : undefined;
  }

  /**
   * Every flag the token sees, turned into an answer by `render` (called with the evaluations in
   * name order), with its ETag; `kind` keeps different renderings apart in the cache.
   */
  all(kind: string, scope: ClientScope, ctx: EvalContext, render: (results: { flag: PreparedFlag; e: Evaluation }[]) => string): Answer {
    const v = this.view(scope);
    const key = `${kind}\u0000${scope.key}\u0000${contextKey(ctx)}`;
    const hit = this.cache.get(key);
    if (hit && hit.generation === v.generation) {
      this.hits++;
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const rt = this.runtime();
    const results: { flag: PreparedFlag; e: Evaluation }[] = [];
    for (const flag of v.flags) if (inScope(scope, flag.project)) results.push({ flag, e: evaluate(flag, ctx, rt, v.lookup) });
    const body = Buffer.from(render(results));
    const answer: Cached = { etag: `"${createHash('sha1').update(body).digest('base64url')}"`, body, generation: v.generation };
    this.built++;
    if (hit) this.forget(key, hit);
    if (!rt.volatile) this.keep(key, answer);
    return answer;
  }

  private keep(key: string, answer: Cached): void {
    this.cache.set(key, answer);
    this.bytes += answer.body.length + key.length;
    while (this.cache.size > this.opts.maxEntries || (this.bytes > this.opts.maxBytes && this.cache.size > 0)) {
      const [oldest, value] = this.cache.entries().next().value as [string, Cached];
      this.forget(oldest, value);
    }
  }

  private forget(key: string, value: Cached): void {
    if (this.cache.delete(key)) this.bytes -= value.body.length + key.length;
  }
}
