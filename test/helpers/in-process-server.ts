// An in-process Fanion (the mode its settings ask for, on port 0, real HTTP) for tests that must also look at
// engine state, e.g. the events a request recorded, which no route exposes yet.
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/logger.js';
import { startFanion } from '../../src/entry/compositions.js';
import type { RunningServer } from '../../src/entry/server.js';
import type { EventRecord } from '../../src/core/state/types.js';
import { client, tempDataDir } from './server.js';

export interface InProcess {
  url: string;
  dataDir: string;
  running: RunningServer;
  api: ReturnType<typeof client>;
  /** Id of the newest event so far; pass it to `eventsAfter` to see what a request recorded. */
  lastEventId(): number;
  eventsAfter(id: number): EventRecord[];
  close(): Promise<void>;
}

export async function startInProcess(opts: { dataDir?: string; env?: Record<string, string> } = {}): Promise<InProcess> {
  const dataDir = opts.dataDir ?? tempDataDir();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, WAL_SYNC: 'none', AUTH_TYPE: 'none', PASSWORD_SCRYPT_LOG_N: '10', ...opts.env });
  const running = await startFanion({ config, log: createLogger('silent') });
  const url = `http://127.0.0.1:${running.port}`;
  const events = running.engine.state.events;
  return {
    url,
    dataDir,
    running,
    api: client(url),
    lastEventId: () => events.lastId,
    eventsAfter: (id) => [...events.oldestFirst()].filter((e) => e.id > id),
    close: () => running.close(),
  };
}

/** Runs `fn` and returns the events it recorded. */
export async function recorded(srv: InProcess, fn: () => Promise<unknown>): Promise<EventRecord[]> {
  const before = srv.lastEventId();
  await fn();
  return srv.eventsAfter(before);
}
