// When Fanion is ready to serve: every condition it waits for is met. `GET /ready` answers 200 then
// and 503 before (as Unleash does), so an orchestrator sends no traffic to an instance still
// replaying its data folder. A part that needs time before its answers are right (the HTTP server
// until the data folder is replayed and routes are mounted; later, a relay until it has flags)
// adds a condition and calls the function it gets back once met. `GET /health` does not look here:
// it says the process is alive.
export class Readiness {
  private readonly waiting = new Set<string>();
  private readonly probes: (() => string | null)[] = [];
  private readonly failing: (() => string | null)[] = [];

  /**
   * Something /ready reports without answering 503 for it: a cluster node cut off from its
   * database still serves SDKs from memory, and taking every node out of a load balancer when
   * the database goes would turn that into errors.
   */
  warnWhen(probe: () => string | null): void {
    this.probes.push(probe);
  }

  /**
   * Something that makes /ready answer 503, saying why, once start-up is over: a cluster node that
   * met a record of its log it cannot read serves only a state that will not change any more.
   */
  failWhen(probe: () => string | null): void {
    this.failing.push(probe);
  }

  /** What the failing probes report now. */
  failures(): string[] {
    return this.failing.map((p) => p()).filter((w): w is string => w !== null);
  }

  /** What the probes report now. */
  warnings(): string[] {
    return this.probes.map((p) => p()).filter((w): w is string => w !== null);
  }

  /** Holds readiness until the returned function is called (calling it again does nothing). */
  require(condition: string): () => void {
    if (this.waiting.has(condition)) throw new Error(`readiness already waits for "${condition}"`);
    this.waiting.add(condition);
    return () => {
      this.waiting.delete(condition);
    };
  }

  get ready(): boolean {
    return this.waiting.size === 0;
  }

  /** The conditions not met yet, in the order they were added (for logs). */
  pending(): string[] {
    return [...this.waiting];
  }
}
