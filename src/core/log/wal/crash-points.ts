// Test-only fault hook: FANION_CRASH_AT=<point>[:<n>] makes the process die with SIGKILL the
// n-th time (default: first) it reaches <point>. The durability tests use it to prove that a
// crash at every step of a checkpoint or a WAL write still leaves a folder that starts. It is
// read once at start-up and costs one comparison per call when unset.

export const CRASH_POINTS = [
  /** Half of a WAL batch is on disk (a torn write), the rest never arrives. */
  'wal-torn-write',
  /** The WAL has rolled to the new segment; no checkpoint file exists yet. */
  'checkpoint-after-roll',
  /** The temporary checkpoint file is partly written. */
  'checkpoint-mid-write',
  /** The temporary checkpoint file is complete and fsynced but not renamed. */
  'checkpoint-before-rename',
  /** Renamed into place, directory not yet fsynced. */
  'checkpoint-after-rename',
  /** The checkpoint is durable; nothing older has been deleted yet. */
  'checkpoint-before-delete',
  /** Some of the covered files are deleted, others not. */
  'checkpoint-mid-delete',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

function parse(raw: string | undefined): { point: string; nth: number } | null {
  if (!raw) return null;
  const [point, n] = raw.split(':');
  const nth = n === undefined ? 1 : Number(n);
  if (!(CRASH_POINTS as readonly string[]).includes(point) || !Number.isInteger(nth) || nth < 1) {
    throw new Error(`FANION_CRASH_AT must be one of ${CRASH_POINTS.join(', ')} (optionally ":<n>"), got "${raw}"`);
  }
  return { point, nth };
}

const armed = parse(process.env.FANION_CRASH_AT);
let reached = 0;

/**
 * Counts one arrival at `point`; true when this is the arrival to crash at. Callers that stage
 * a partial write first (a torn write) use it with `crashNow`; others just call `crashPoint`.
 */
export function crashDue(point: CrashPoint): boolean {
  if (armed === null || armed.point !== point) return false;
  reached++;
  return reached === armed.nth;
}

/** Dies on the spot, like a power cut would stop the process: no handlers, no flushing. */
export function crashNow(point: CrashPoint): void {
  process.stderr.write(`FANION_CRASH_AT: crashing at ${point} (#${reached})\n`);
  process.kill(process.pid, 'SIGKILL');
}

export function crashPoint(point: CrashPoint): void {
  if (crashDue(point)) crashNow(point);
}
