// The most common passwords: the 10,000 most frequent of the list @zxcvbn-ts/language-common 4.1.3
// ships (its "passwords-common", from the zxcvbn project: MIT, (c) 2012-2016 Dan Wheeler and Dropbox,
// Inc., (c) 2021 @zxcvbn-ts), every one of its 308 entries of 12 characters or more, and the
// default passwords of Unleash and of common tools. Taken once, at development time: nothing is
// fetched at run time. Lower case; the policy (password-policy.ts) compares lower-cased passwords.
//
// The list is data, not code: assets/common-passwords.txt.gz at the package's root, one password a
// line (read it with `zcat`; after an edit, write it back with `gzip -9 -n`, -n so the same list
// gives the same bytes). It is read once, when this module loads, so a server whose package lacks
// the file refuses to start instead of answering its first password change with a 500.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const FILE = path.join('assets', 'common-passwords.txt.gz');

/**
 * The folder holding package.json, found by walking up from this module rather than by a fixed
 * number of `..`: the module runs from dist/src/… in a checkout and from /app/dist/src/… in the
 * image, and stays right wherever the source tree puts it.
 */
function packageRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`fanion: no package.json above ${fileURLToPath(import.meta.url)}: ${FILE} cannot be found`);
  }
}

export const COMMON_PASSWORDS: readonly string[] = gunzipSync(fs.readFileSync(path.join(packageRoot(), FILE)))
  .toString('utf8')
  // trimEnd and split, not a filter of blank lines: a callback over 10,000 lines, run once and so
  // never optimised, cost more than reading and unzipping together. No line is blank (a test checks).
  .trimEnd()
  .split('\n');
