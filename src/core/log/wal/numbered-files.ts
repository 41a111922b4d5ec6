import fs from 'node:fs';
import path from 'node:path';

/**
 * Files of a folder whose names carry a 16-digit LSN (segments, checkpoints), oldest first.
 * `pattern` must capture the number as its first group.
 */
export function listNumbered(dir: string, pattern: RegExp): { file: string; lsn: number }[] {
  const out: { file: string; lsn: number }[] = [];
  for (const name of fs.readdirSync(dir)) {
    const m = pattern.exec(name);
    if (m) out.push({ file: path.join(dir, name), lsn: Number(m[1]) });
  }
  return out.sort((a, b) => a.lsn - b.lsn);
}
