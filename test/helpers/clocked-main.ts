// A Fanion process whose clock a test moves: what dist/src/entry/main.js starts (the mode its settings
// ask for, through the same composition), with the clock read from FANION_TEST_CLOCK_FILE: the
// number of milliseconds to add to the real time. Every node of a cluster pointed at the same file
// agrees on the time, so a test can make a release plan's minutes pass in an instant on real
// processes it can SIGKILL. The file is read every 20 ms; a missing or empty one means no shift.
// Started through sharedClock (clock.ts), never in production.
import fs from 'node:fs';
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { compositionFor } from '../../src/entry/compositions.js';

const file = process.env.FANION_TEST_CLOCK_FILE;
if (!file) throw new Error('FANION_TEST_CLOCK_FILE is not set');
let offsetMs = 0;
const read = () => {
  try {
    offsetMs = Number(fs.readFileSync(file, 'utf8').trim()) || 0;
  } catch {
    offsetMs = 0;
  }
};
read();
setInterval(read, 20).unref();

const config = loadConfig();
const log = createLogger(config.logLevel, config.logFormat);
const composition = compositionFor(config);
await composition.check(config);
const running = await composition.start({
  config,
  log,
  clock: () => new Date(Date.now() + offsetMs),
  onFatal: (message) => {
    log.fatal(message);
    process.exit(1);
  },
});
// The line spawnServer waits for.
log.info({ port: running.port, mode: running.mode }, `Fanion listening on port ${running.port} (clock shifted by ${file})`);
process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
