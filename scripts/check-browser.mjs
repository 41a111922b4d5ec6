// Run by `npm test` before the suite: on a machine without Chromium, one clear line saying the
// browser tests will be skipped and how to get them (under CI=true they fail instead, see
// test/helpers/browser.ts, which looks for the browser the same way).
import fs from 'node:fs';

const chosen = process.env.CHROMIUM_PATH;
const found = chosen
  ? fs.existsSync(chosen)
  : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].some((p) => fs.existsSync(p));
if (!found && process.env.CI !== 'true') {
  const where = chosen ? `CHROMIUM_PATH=${chosen} does not exist` : 'no Chromium found';
  console.log(`Browser tests skipped (${where}): install Chromium (Debian/Ubuntu: sudo apt-get install chromium) or set CHROMIUM_PATH, then run npm test again.`);
}
