// Long work in slices. A loop that would hold the event loop for seconds (validating, building,
// encoding or applying a 50,000-flag import) asks `due()` as it goes and, once its slice has used
// its time, awaits `pause()`: timers, I/O and other requests (health checks, SDK polls) run, then
// the loop goes on where it was. The work is the same and its result too; only its spread in time
// changes.
export class Slicer {
  private started = performance.now();
  private calls = 0;

  /** `budgetMs`: how long one slice may run before it should let the event loop have a turn. */
  constructor(private readonly budgetMs = 8) {}

  /** True once this slice has used its time. Cheap enough to ask for every item of a loop. */
  due(): boolean {
    if ((++this.calls & 31) !== 0) return false;
    return performance.now() - this.started >= this.budgetMs;
  }

  /** Between passes of a few milliseconds each: pauses when the slice's time is up, whatever the count. */
  async between(): Promise<void> {
    if (performance.now() - this.started >= this.budgetMs) await this.pause();
  }

  /** `items.forEach(fn)`, pausing between slices. */
  async each<T>(items: readonly T[], fn: (item: T, index: number) => void): Promise<void> {
    for (let i = 0; i < items.length; i++) {
      fn(items[i], i);
      if (this.due()) await this.pause();
    }
  }

  /** Runs work written as a generator that yields between its items (see `finish`), pausing between slices. */
  async run<T>(steps: Generator<void, T>): Promise<T> {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (this.due()) await this.pause();
    }
  }

  /** Lets the event loop run (I/O included: setImmediate comes after the poll phase), then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}

/** The same generator run at once, for inputs too small to be worth slicing (and for tests). */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
