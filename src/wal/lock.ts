// One process per data folder: two writers appending to the same WAL would corrupt it.
// The lock file holds the owner's pid; a lock left by a dead process (kill -9) is taken over.
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

export function acquireLock(dataDir: string): () => void {
  const file = path.join(dataDir, 'fanion.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(file, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
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
