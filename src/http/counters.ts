// Counters the request paths bump on every answer (SDK polls, refusals), kept as plain numbers so the
// hot path pays an increment and nothing else; the Prometheus registry (concepts/operations) reads
// them at scrape time. They live here, below the concepts, because the pipeline bumps them.

/** Plain counters the hot paths bump; read at scrape time. */
export class HotCounters {
  /** environment → [200s, 304s] of the SDK poll. */
  readonly polls = new Map<string, [number, number]>();
  /** 401s and 403s, whatever the route. */
  readonly refused = { 401: 0, 403: 0 };

  poll(environment: string, status: 200 | 304): void {
    let c = this.polls.get(environment);
    if (!c) this.polls.set(environment, (c = [0, 0]));
    c[status === 200 ? 0 : 1]++;
  }
}

/** What the request plumbing needs of the process's metrics: the hot counters and a timing per answer. */
export interface RequestMetrics {
  readonly hot: HotCounters;
  observe(method: string, path: string, status: number, ms: number): void;
}
