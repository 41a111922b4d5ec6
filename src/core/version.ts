// Fanion's own version: package.json's, read once. The build and the image ship package.json
// beside dist/, so the number a person reads (fanion --version, the start-up line) is the one
// released, and there is no second copy of it to forget.
import fs from 'node:fs';

export const FANION_VERSION: string = (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
