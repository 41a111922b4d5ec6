// One run at a time of a job that may be asked for again while it runs (a metrics flush, a
// checkpoint): whoever asks during a run joins it instead of starting a second one beside it.
export class SingleFlight<T> {
  private running: Promise<T> | null = null;

  constructor(private readonly job: () => Promise<T>) {}

  /** The run in progress, or null. */
  get current(): Promise<T> | null {
    return this.running;
  }

  /** Starts a run, or joins the one in progress. */
  run(): Promise<T> {
    this.running ??= this.job().finally(() => {
      this.running = null;
    });
    return this.running;
  }
}

/**
 * Like SingleFlight, but a caller joins only a run that starts after its call: a run already in
 * progress may have read what was there before the caller came (the log's head before the write
 * the caller has just seen acknowledged), so the caller waits for the next run, which starts when
 * that one ends and serves everyone who asked meanwhile. At most one run at a time; under load,
 * one run per run's duration, whatever the number of callers.
 */
export class FreshFlight<T> {
  private running: Promise<T> | null = null;
  /** The run that starts when the one in progress ends; not started yet, so anyone may join it. */
  private next: Promise<T> | null = null;
  /** Runs started. */
  started = 0;

  constructor(private readonly job: () => Promise<T>) {}

  run(): Promise<T> {
    if (this.next) return this.next;
    if (!this.running) return this.start();
    const after = this.running.then(() => undefined, () => undefined);
    this.next = after.then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<T> {
    this.started++;
    const p = this.job().finally(() => {
      if (this.running === p) this.running = null;
    });
    this.running = p;
    return p;
  }
}
