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

/**
 * What writes buffered work to the log every interval and on demand, one write at a time
 * (SingleFlight): the metrics flushers. `stop` ends the timer, lets a write in progress finish,
 * then writes once more so nothing buffered before the stop is left behind.
 */
export abstract class Flushing {
  private timer: NodeJS.Timeout | null = null;
  private readonly flight = new SingleFlight(() => this.write());

  /** One write of what is buffered. */
  protected abstract write(): Promise<void>;

  /** Writes every `intervalMs` (never when 0 or less); the timer does not keep the process alive. */
  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Writes what is pending; concurrent calls share one write. */
  flush(): Promise<void> {
    return this.flight.run();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flight.current;
    await this.flush();
  }
}
