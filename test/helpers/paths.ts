// Where things are, and a fresh folder for a test's data: no process, no socket, so unit tests
// (*.unit.test.ts) may use it, where test/helpers/server.ts would bring process spawning along.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file runs from dist/test/helpers/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function tempDataDir(prefix = 'fanion-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
