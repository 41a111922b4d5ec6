// A clock shared by the Fanion processes of a test (clocked-main.ts): the test moves it forward,
// every process started with its `command` and `env` follows within 20 ms.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDataDir } from './paths.js';

const CLOCKED_MAIN = path.join(ROOT, 'dist/test/helpers/clocked-main.js');

export interface SharedClock {
  /** What runs a process on this clock, instead of main.js (SpawnOptions.command). */
  command: string[];
  /** The environment it needs on top of the test's. */
  env: Record<string, string>;
  /** How far ahead of the real time the processes are, in ms. */
  offsetMs: number;
  /** Moves every process's clock `ms` forward, and waits until they have read it. */
  advance(ms: number): Promise<void>;
}

export function sharedClock(): SharedClock {
  const file = path.join(tempDataDir('fanion-clock-'), 'offset-ms');
  fs.writeFileSync(file, '0');
  const clock: SharedClock = {
    command: [process.execPath, CLOCKED_MAIN],
    env: { FANION_TEST_CLOCK_FILE: file },
    offsetMs: 0,
    async advance(ms) {
      clock.offsetMs += ms;
      fs.writeFileSync(`${file}.new`, String(clock.offsetMs));
      fs.renameSync(`${file}.new`, file);
      // The processes read the file every 20 ms.
      await new Promise((r) => setTimeout(r, 100));
    },
  };
  return clock;
}
