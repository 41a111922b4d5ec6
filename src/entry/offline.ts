// Offline mode (BOOTSTRAP_FILE): a relay whose upstream is a features file, composed top to bottom:
//
//   data folder (its copy of the file's flags, replayed) → engine, keeping only its newest events
//   → the folder checked to be a relay's → token hash key → seeded tokens (every token is in the settings)
//   → the core (core.ts): client snapshot, push hub, evaluation, SDK metrics, Prometheus metrics
//   → the file, read again every RELOAD_INTERVAL, applied like any change source
//   → the port (server.ts): the SDK routes and Unleash Edge's, no admin API (flags change in the
//     file), a configured token answered 503 until a good file was read → ready
import type { OfflineConfig } from '../core/config.js';
import type { Checkpointer } from '../core/storage/checkpointer.js';
import { Offline } from '../modes/relay/offline.js';
import type { Composition } from './compositions.js';
import { closer, closingOnFailure, openTokens, type Core, type FanionDeps, type Tokens } from './core.js';
import { openPort, type Parts, type RunningServer } from './server.js';
import { edgeCore, openEdgeFolder } from './relay.js';
import { edgeSideRoutes, sdkRoutes } from './routes.js';

export function offline(settings: OfflineConfig): Composition {
  // Nothing to refuse beyond what loadConfig did: no people, so no admin password.
  return { mode: 'offline', check: async () => undefined, start: (deps) => startOffline(deps, settings) };
}

/** Offline mode's parts, wired, with one close for all of them. */
export interface OfflineParts extends Core, Tokens, Parts {
  checkpointer: Checkpointer;
  offline: Offline;
}

export async function openOffline(deps: FanionDeps, settings: OfflineConfig): Promise<OfflineParts> {
  const { config, log } = deps;
  const { folder, engine, checkpointer, closeSource } = await openEdgeFolder(deps);
  return closingOnFailure(closeSource, async () => {
    const tokens = await openTokens(deps, engine, folder);
    const core = edgeCore(deps, { engine, checkpointer }, folder.replayed.ms, tokens.tokens);
    // The features file is a change source too: read again every RELOAD_INTERVAL.
    const offline = new Offline({ engine, config: settings, log, hasher: tokens.hasher, readiness: core.readiness, maxAnswerBytes: config.http.importBodyLimit });
    offline.start();
    const { close, closingStep } = closer(core.push, [
      ['the features file', () => offline.close()],
      ['the last SDK metrics', () => core.flusher.stop()],
      ['the write-ahead log', closeSource],
    ]);
    return { ...core, ...tokens, engine, checkpointer, offline, close, closingStep };
  });
}

export async function startOffline(deps: FanionDeps, settings: OfflineConfig): Promise<RunningServer> {
  const { config } = deps;
  const file = settings.bootstrapFile;
  const fields = { bootstrapFile: file, dataDir: config.dataDir };
  const port = await openPort(deps, {
    mode: 'offline', fields, doing: `replaying the offline copy in ${config.dataDir}, then reading ${file}`,
    waitingFor: 'the data folder replayed and every route mounted', startingMessage: 'Fanion is starting: its data folder is being replayed. Try again in a moment.',
  });
  const parts = await port.opening(() => openOffline({ ...deps, readiness: port.readiness }, settings));
  const ctx = port.context({ engine: parts.engine, auth: parts.tokens, operations: parts.operations });
  await port.serve({
    ctx,
    frontDoor: parts.frontDoor,
    // Its tokens are all in the state from the start: none waits for a grant.
    routes: edgeSideRoutes(ctx, parts, sdkRoutes(ctx, parts), () => []),
    elsewhere: { flagsAt: `its features file ${file}`, refusal: `This is a Fanion in offline mode: change flags on its features file ${file}` },
    // A configured token before a good features file was read gets 503, as a relay's does.
    gate: (req, res, next) => {
      if (!parts.offline.notReadyFor(req)) next(req, res);
      else port.unavailable(req, res, `Not ready: no good features file was read from ${file} yet. Try again in a moment.`);
    },
  });
  return port.running(parts, { summary: `in offline mode, on the file ${file} (its copy in ${config.dataDir})`, fields: { ...fields, walSync: config.walSync } });
}
