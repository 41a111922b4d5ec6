// The file operations the WAL and checkpoints use, behind one interface so tests can inject
// faults (ENOSPC, EIO) at any step without touching a real disk's failure modes.
import fs from 'node:fs';
import { promisify } from 'node:util';

export interface FileLayer {
  open(path: string, flags: string): Promise<number>;
  /** Writes for the WAL: small batches, done at once (see realFiles). */
  write(fd: number, buf: Buffer, position: number): Promise<number>;
  /** Writes of megabytes (checkpoints), left to the thread pool so the event loop runs meanwhile. */
  writeLarge(fd: number, buf: Buffer, position: number): Promise<number>;
  fdatasync(fd: number): Promise<void>;
  fsync(fd: number): Promise<void>;
  ftruncate(fd: number, len: number): Promise<void>;
  close(fd: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** fsync a directory so a rename or a new file in it is durable. */
  syncDir(dir: string): Promise<void>;
}

const fdatasync = promisify(fs.fdatasync);
const fsyncP = promisify(fs.fsync);
const ftruncate = promisify(fs.ftruncate);
const close = promisify(fs.close);
const open = promisify(fs.open);

/** Files Fanion creates are readable by their owner only, as PostgreSQL's data files are. */
export const FILE_MODE = 0o600;
/** … and so is a data folder Fanion creates (an existing folder's mode is left as it is). */
export const DIR_MODE = 0o700;

export const realFiles: FileLayer = {
  open: (p, flags) => open(p, flags, FILE_MODE),
  // Synchronous: a write only copies into the page cache (the fdatasync after it is what waits
  // for the disk, and stays asynchronous). Handing it to the thread pool cost far more: on a busy
  // machine, waking a pool thread for each batch preempts the event loop it was meant to spare.
  write: (fd, buf, position) => {
    try {
      return Promise.resolve(fs.writeSync(fd, buf, 0, buf.length, position));
    } catch (err) {
      return Promise.reject(err);
    }
  },
  writeLarge: (fd, buf, position) =>
    new Promise((resolve, reject) => fs.write(fd, buf, 0, buf.length, position, (err, n) => (err ? reject(err) : resolve(n)))),
  fdatasync: (fd) => fdatasync(fd),
  fsync: (fd) => fsyncP(fd),
  ftruncate: (fd, len) => ftruncate(fd, len),
  close: (fd) => close(fd),
  rename: (a, b) => fs.promises.rename(a, b),
  unlink: (p) => fs.promises.unlink(p),
  async syncDir(dir) {
    const fd = await open(dir, 'r');
    try {
      await fsyncP(fd);
    } finally {
      await close(fd);
    }
  },
};

export type FaultStep = Exclude<keyof FileLayer, 'writeLarge'>;

/** The byte count of a write, refusing 0: a loop waiting for the rest would otherwise never end. */
export function wrote(n: number): number {
  if (!(n > 0)) throw Object.assign(new Error('EIO: a write wrote nothing'), { code: 'EIO' });
  return n;
}

/**
 * A FileLayer that fails chosen steps with a chosen errno until told otherwise.
 * Used by the fault tests and by the server when FANION_FAULTS is set in tests.
 */
export class FaultyFiles implements FileLayer {
  private failing = new Map<FaultStep, string>();
  constructor(private readonly inner: FileLayer = realFiles) {}

  fail(step: FaultStep, code: 'ENOSPC' | 'EIO' = 'EIO'): void {
    this.failing.set(step, code);
  }
  heal(step?: FaultStep): void {
    if (step) this.failing.delete(step);
    else this.failing.clear();
  }
  private check(step: FaultStep): void {
    const code = this.failing.get(step);
    if (code) {
      const err = new Error(`${code}: injected fault in ${step}`) as NodeJS.ErrnoException;
      err.code = code;
      throw err;
    }
  }
  async open(p: string, flags: string) { this.check('open'); return this.inner.open(p, flags); }
  async write(fd: number, buf: Buffer, pos: number) { this.check('write'); return this.inner.write(fd, buf, pos); }
  /** Fails with the same step as write: a full or broken disk fails both. */
  async writeLarge(fd: number, buf: Buffer, pos: number) { this.check('write'); return this.inner.writeLarge(fd, buf, pos); }
  async fdatasync(fd: number) { this.check('fdatasync'); return this.inner.fdatasync(fd); }
  async fsync(fd: number) { this.check('fsync'); return this.inner.fsync(fd); }
  async ftruncate(fd: number, len: number) { this.check('ftruncate'); return this.inner.ftruncate(fd, len); }
  async close(fd: number) { this.check('close'); return this.inner.close(fd); }
  async rename(a: string, b: string) { this.check('rename'); return this.inner.rename(a, b); }
  async unlink(p: string) { this.check('unlink'); return this.inner.unlink(p); }
  async syncDir(d: string) { this.check('syncDir'); return this.inner.syncDir(d); }
}
