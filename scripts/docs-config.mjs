// Writes docs/reference/configuration.md from the table of settings (src/core/config/settings.ts).
// Run it through `npm run docs:config`, which compiles first.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { renderReference } = await import(path.join(root, 'dist/src/core/config/reference.js'));
const file = path.join(root, 'docs/reference/configuration.md');
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, renderReference());
console.log(`wrote ${path.relative(root, file)}`);
