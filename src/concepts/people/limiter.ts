// Attempts per key (an address, an account) as token buckets: `count` attempts at once, refilled
// at `count` per `windowMs`, so a steady caller gets `count` per window and no more. Memory is
// bounded: at most `maxEntries` keys; past that the key untouched longest is forgotten (a
// forgotten key starts again with a full bucket, which is what a bucket untouched for a window
// holds anyway). Anything whose limit must survive a flood of other keys (a person's failed
// sign-ins) gets a limiter of its own whose keys cannot be made up (Infinity: never forgotten).

export interface Limit {
  count: number;
  windowMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class AttemptLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: Limit,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one attempt for `key`: 0 when it may be made now, else the seconds until one may
   * (nothing is counted then).
   */
  take(key: string): number {
    const now = this.now();
    const rate = this.limit.count / this.limit.windowMs;
    const b = this.buckets.get(key);
    const tokens = b ? Math.min(this.limit.count, b.tokens + (now - b.at) * rate) : this.limit.count;
    if (tokens < 1) return Math.max(1, Math.ceil((1 - tokens) / rate / 1000));
    // Moved to the end: the Map's order is the order of last use, oldest first.
    if (b) this.buckets.delete(key);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    while (this.buckets.size > this.maxEntries) this.buckets.delete(this.buckets.keys().next().value!);
    return 0;
  }

  /** Forgets `key`'s attempts (an account's, after it signed in). */
  clear(key: string): void {
    this.buckets.delete(key);
  }

  get size(): number {
    return this.buckets.size;
  }
}
