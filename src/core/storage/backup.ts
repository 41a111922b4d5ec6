// A consistent copy of a data folder, safe while the server writes to it (a "hot" copy).
// Why it is consistent: the folder is listed once, and only listed files are copied. Of those,
// only the newest segment is still being appended to, so its copy is a prefix of the log
// (start-up cuts a torn last record); every other listed segment and checkpoint is immutable.
// Files deleted meanwhile are only ones the newest checkpoints no longer need (the
// checkpointer keeps the previous checkpoint and its WAL), so at least one checkpoint with its
// whole WAL tail is in the copy as long as no more than one checkpoint completes during it.
import fs from 'node:fs';
import path from 'node:path';
import { writeAll, writeDurably } from '../log/wal/durable-file.js';
import { DIR_MODE, realFiles, type FileLayer } from '../log/wal/file-layer.js';
import { LOCK_FILE } from './lock.js';

/** Not copied: the lock names the source's process, and temporary files are never loaded. */
const SKIP = (name: string) => name === LOCK_FILE || name.endsWith('.tmp');

export interface BackupResult {
  copied: string[];
  /** Listed but deleted before they could be copied (no longer needed by the source). */
  vanished: string[];
  bytes: number;
}

const CHUNK = 1 << 20;

/**
 * Copies every file of `src` (but the lock and temporary files) into the new folder `dest`, each
 * durably (durable-file.ts). A file the server deletes meanwhile (an old segment or checkpoint) is
 * listed as vanished: the server no longer needs it, so neither does the copy.
 */
export async function backupDataDir(src: string, dest: string, files: FileLayer = realFiles): Promise<BackupResult> {
  const names = fs.readdirSync(src).filter((n) => !SKIP(n) && fs.statSync(path.join(src, n), { throwIfNoEntry: false })?.isFile());
  fs.mkdirSync(dest, { recursive: true, mode: DIR_MODE });
  if (fs.readdirSync(dest).length > 0) throw new Error(`${dest} is not empty; back up into a new folder`);
  const copied: string[] = [];
  const vanished: string[] = [];
  let bytes = 0;
  for (const name of names) {
    let source: fs.promises.FileHandle;
    try {
      source = await fs.promises.open(path.join(src, name), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        vanished.push(name);
        continue;
      }
      throw err;
    }
    try {
      await writeDurably(files, path.join(dest, name), async (fd) => {
        const buf = Buffer.allocUnsafe(CHUNK);
        for (let pos = 0; ; ) {
          const { bytesRead } = await source.read(buf, 0, CHUNK, pos);
          if (bytesRead === 0) break;
          await writeAll(files, fd, buf.subarray(0, bytesRead), pos);
          pos += bytesRead;
        }
      });
    } finally {
      await source.close();
    }
    bytes += fs.statSync(path.join(dest, name)).size;
    copied.push(name);
  }
  return { copied, vanished, bytes };
}
