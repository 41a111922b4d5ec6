// What the deployment files in deploy/ are checked against: the names of the settings Fanion reads.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './server.js';

/** Read by glibc's malloc, not by Fanion: set as package.json's start script sets it. */
export const NOT_FANIONS = new Set(['MALLOC_ARENA_MAX']);

/** Every variable name src/core/config.ts reads: `env.NAME`, or a quoted NAME handed to its parsers. */
export function settingsRead(): Set<string> {
  const source = fs.readFileSync(path.join(ROOT, 'src/core/config.ts'), 'utf8');
  const names = new Set<string>();
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b|'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1] ?? m[2]);
  return names;
}
