// The HMAC key must be identical on every start: generated once and kept in the data folder, or
// taken from TOKEN_HASH_KEY.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createLogger } from '../../../src/core/logger.js';
import { KEY_FILE, loadHashKey } from '../../../src/concepts/tokens/hash-key.js';
import { tempDataDir } from '../../helpers/paths.js';

const log = createLogger('silent');

t.test('a generated key is written once, private, and read back unchanged', async (t) => {
  const dir = tempDataDir();
  const k1 = await loadHashKey(dir, undefined, log);
  t.equal(k1.length, 32);
  const file = path.join(dir, KEY_FILE);
  t.equal(fs.statSync(file).mode & 0o777, 0o600);
  t.same(fs.readdirSync(dir), [KEY_FILE], 'no temporary file is left behind');
  t.same(await loadHashKey(dir, undefined, log), k1);
});

t.test('TOKEN_HASH_KEY wins and writes nothing; too short is refused', async (t) => {
  const dir = tempDataDir();
  t.same(await loadHashKey(dir, 'a-configured-key-of-some-length', log), Buffer.from('a-configured-key-of-some-length'));
  t.same(fs.readdirSync(dir), []);
  await t.rejects(loadHashKey(dir, 'short', log), /at least 16/);
});

t.test('a damaged key file stops start-up instead of silently invalidating every token', async (t) => {
  const dir = tempDataDir();
  fs.writeFileSync(path.join(dir, KEY_FILE), 'not hex\n');
  await t.rejects(loadHashKey(dir, undefined, log), /64-digit hex key/);
});
