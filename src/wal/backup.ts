// A consistent copy of a data folder, safe while the server writes to it (a "hot" copy).
// Why it is consistent: the folder is listed once, and only listed files are copied. Of those,
// only the newest segment is still being appended to, so its copy is a prefix of the log
// (start-up cuts a torn last record); every other listed segment and checkpoint is immutable.
// Files deleted meanwhile are only ones the newest checkpoints no longer need (the
// checkpointer keeps the previous checkpoint and its WAL), so at least one checkpoint with its
// whole WAL tail is in the copy as long as no more than one checkpoint completes during it.
import fs from 'node:fs';
import path from 'node:path';
import { DIR_MODE, FILE_MODE } from './file-layer.js';
import { LOCK_FILE } from './lock.js';

/** Not copied: the lock names the source's process, and temporary files are never loaded. */
const SKIP = (name: string) => name === LOCK_FILE || name.endsWith('.tmp');

export interface BackupResult {
  copied: string[];
  /** Listed but deleted before they could be copied (no longer needed by the source). */
  vanished: string[];
  bytes: number;
}

function fsyncPath(p: string): void {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function backupDataDir(src: string, dest: string): BackupResult {
  const names = fs.readdirSync(src).filter((n) => !SKIP(n) && fs.statSync(path.join(src, n), { throwIfNoEntry: false })?.isFile());
  fs.mkdirSync(dest, { recursive: true, mode: DIR_MODE });
  if (fs.readdirSync(dest).length > 0) throw new Error(`${dest} is not empty; back up into a new folder`);
  const copied: string[] = [];
  const vanished: string[] = [];
  let bytes = 0;
  for (const name of names) {
    const to = path.join(dest, name);
    try {
      fs.copyFileSync(path.join(src, name), to);
      fs.chmodSync(to, FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        vanished.push(name);
        continue;
      }
      throw err;
    }
    fsyncPath(to);
    bytes += fs.statSync(to).size;
    copied.push(name);
  }
  fsyncPath(dest);
  return { copied, vanished, bytes };
}
