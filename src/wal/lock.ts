// One process per data folder: two writers appending to the same WAL would corrupt it.
// The lock file holds the owner's pid and the folder's identity (device:inode); a lock left by
// a dead process (kill -9) is taken over, and so is one copied along with the folder (a hot
// backup restored on the same machine names a live pid, but a different folder).
import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function folderId(dataDir: string): string {
  const st = fs.statSync(dataDir);
  return `${st.dev}:${st.ino}`;
}

export function acquireLock(dataDir: string): () => void {
  const file = path.join(dataDir, 'fanion.lock');
  const me = `${process.pid} ${folderId(dataDir)}`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, me);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === me) fs.unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const [pid, folder] = fs.readFileSync(file, 'utf8').trim().split(/\s+/);
      const owner = Number(pid);
      const sameFolder = folder === undefined || folder === folderId(dataDir);
      if (sameFolder && Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirLockedError(
          `data folder ${dataDir} is in use by another Fanion process (pid ${owner}); ` +
            `stop it first, or remove ${file} if you are sure no process uses it`,
        );
      }
      fs.unlinkSync(file); // stale: its owner is gone
    }
  }
  throw new DataDirLockedError(`could not take the lock ${file}`);
}
