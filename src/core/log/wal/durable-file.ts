// The one way Fanion writes a whole file durably (checkpoints, the token hash key, backups):
// write a temporary file beside it, fsync it, rename it into place, fsync the folder. After a
// crash at any step the file is either whole or absent, never half-written (the rename is atomic,
// and the folder's fsync makes the rename itself durable; steno's atomic write skips both fsyncs).
import path from 'node:path';
import { wrote, type FileLayer } from './file-layer.js';

export interface DurableWriteHooks {
  /** Called between the steps, for crash tests (test/durability). */
  step?: (at: 'before-rename' | 'after-rename') => void;
}

/**
 * Creates or replaces `file` with what `fill` writes into the descriptor it is given (a new
 * `file.tmp`). On failure the temporary file is removed and the old `file`, if any, is untouched.
 */
export async function writeDurably(files: FileLayer, file: string, fill: (fd: number) => Promise<void>, hooks: DurableWriteHooks = {}): Promise<void> {
  const tmp = `${file}.tmp`;
  const fd = await files.open(tmp, 'w');
  let open = true;
  try {
    await fill(fd);
    // fsync, not fdatasync: the file is new, so its size and metadata must be durable too.
    await files.fsync(fd);
    open = false;
    await files.close(fd);
    hooks.step?.('before-rename');
    await files.rename(tmp, file);
    hooks.step?.('after-rename');
    await files.syncDir(path.dirname(file));
  } catch (err) {
    if (open) await files.close(fd).catch(() => {});
    await files.unlink(tmp).catch(() => {});
    throw err;
  }
}

/** Writes all of `buf` at `position`, however many calls the file layer needs. */
export async function writeAll(files: FileLayer, fd: number, buf: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < buf.length) written += wrote(await files.writeLarge(fd, buf.subarray(written), position + written));
}
