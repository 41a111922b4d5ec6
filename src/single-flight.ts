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
