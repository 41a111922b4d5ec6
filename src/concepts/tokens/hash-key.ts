// Where the HMAC key comes from. It must be the same on every start, or no stored hash would ever
// match again: TOKEN_HASH_KEY when the operator sets one, else a random key generated on first start
// and kept in the data folder, written so that a crash never leaves a half-written key behind.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/logger.js';
import { writeAll, writeDurably } from '../../core/log/wal/durable-file.js';
import { realFiles, type FileLayer } from '../../core/log/wal/file-layer.js';

export const KEY_FILE = 'token-hash.key';

/** The key: TOKEN_HASH_KEY, else the one kept in the data folder, else a new one, written durably. */
export async function loadHashKey(dataDir: string, configured: string | undefined, log: Logger, files: FileLayer = realFiles): Promise<Buffer> {
  const file = path.join(dataDir, KEY_FILE);
  if (configured !== undefined) {
    const key = Buffer.from(configured, 'utf8');
    if (key.length < 16) throw new Error('TOKEN_HASH_KEY must be at least 16 characters long');
    if (fs.existsSync(file)) {
      log.warn({ file }, 'TOKEN_HASH_KEY is set, so the key file in the data folder is ignored; tokens stored under the other key no longer match');
    }
    return key;
  }
  if (fs.existsSync(file)) {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${file} does not hold a 64-digit hex key; restore it from a backup or set TOKEN_HASH_KEY`);
    return Buffer.from(text, 'hex');
  }
  const key = randomBytes(32);
  const text = Buffer.from(key.toString('hex') + '\n');
  await writeDurably(files, file, (fd) => writeAll(files, fd, text, 0));
  log.info({ file }, 'generated the key that hashes API tokens; keep it with the data folder');
  return key;
}
