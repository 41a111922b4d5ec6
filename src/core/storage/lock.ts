// One process per data folder: two writers appending to the same WAL would corrupt it.
//
// The lock is a kernel lock, flock(2) on DATA_DIR/fanion.lock, held through an open descriptor
// for the life of the process. The kernel drops it the moment its holder exits, however it
// exits: a kill -9 leaves nothing to clean up, a zombie waiting to be reaped no longer holds it,
// a reused pid or another boot means nothing, and it holds between processes in different pid
// namespaces (two containers sharing one volume), because it belongs to the file, not to a pid.
// The file also records the holder's pid, for the refusal message only; it is never deleted
// (unlinking a lock file lets a third process lock a fresh inode while a second still waits on
// the old one). A folder copied along with its lock file carries no lock: flock is not copied.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export class DataDirLockedError extends Error {}

/** The part of the `fs-ext` native module used here (flock(2); Node has no binding of its own). */
interface FsExt {
  flockSync(fd: number, flags: 'exnb' | 'un'): void;
}
const { flockSync } = createRequire(import.meta.url)('fs-ext') as FsExt;

export const LOCK_FILE = 'fanion.lock';

/**
 * Takes the data folder's lock or throws {@link DataDirLockedError} naming the holder's pid.
 * Returns the release function; the lock is released by the kernel anyway when the process ends.
 */
export function acquireLock(dataDir: string): () => void {
  const file = path.join(dataDir, LOCK_FILE);
  // 'a+': create if missing, never truncate before the lock is ours (the holder's pid is in it).
  const fd = fs.openSync(file, 'a+', 0o600);
  try {
    flockSync(fd, 'exnb');
  } catch (err) {
    fs.closeSync(fd);
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw err;
    // The holder writes its pid just after taking the lock: a start racing it may read the file in
    // between, so it looks again for a moment before naming no one (only on this refusal path).
    let holder = readHolder(file);
    for (let i = 0; i < 20 && !holder; i++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      holder = readHolder(file);
    }
    throw new DataDirLockedError(
      `data folder ${dataDir} is in use by another Fanion process${holder ? ` (pid ${holder})` : ''}; ` +
        'stop it first: the lock is released by the kernel when that process ends',
    );
  }
  fs.ftruncateSync(fd, 0);
  fs.writeSync(fd, `${process.pid}\n`, 0);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      fs.ftruncateSync(fd, 0);
      flockSync(fd, 'un');
    } finally {
      fs.closeSync(fd);
    }
  };
}

function readHolder(file: string): string | null {
  try {
    const pid = fs.readFileSync(file, 'utf8').trim().split(/\s+/)[0];
    return pid && /^\d+$/.test(pid) ? pid : null;
  } catch {
    return null;
  }
}
