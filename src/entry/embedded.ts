// A server on its data folder (the embedded mode: no database, no upstream), composed top to bottom:
//
//   data folder (lock, checkpoint + WAL replay) → engine → checkpointer
//   → token hash key → seeded tokens → people, sign-in limits, webhooks (admin.ts)
//   → the core (core.ts): client snapshot, push hub, evaluation, SDK metrics, Prometheus metrics
//   → the port (server.ts): the admin API, the SDK routes, the operations routes, the console
//   → the first admin token and first Admin person, when none is usable yet → ready
import type { Checkpointer } from '../core/storage/checkpointer.js';
import type { Storage } from '../core/storage/storage.js';
import { checkAdminSettings, ensureFirstAdmins, openAdminSide, type AdminSide } from './admin.js';
import type { Composition } from './compositions.js';
import { assembleCore, closer, closingOnFailure, openDataFolder, openTokens, startEngine, type Core, type FanionDeps, type Tokens } from './core.js';
import { openPort, type Parts, type RunningServer } from './server.js';
import { serverRoutes } from './routes.js';

export const server: Composition = { mode: 'server', check: checkAdminSettings, start: startServer };

/** A server's parts, wired, with one close for all of them. */
export interface ServerParts extends Core, Tokens, Parts {
  storage: Storage;
  checkpointer: Checkpointer;
  admin: AdminSide;
}

/**
 * Opens the data folder (replaying it) and builds a server's parts, without HTTP: what startServer
 * serves, and what tests that need the engine over a real data folder open. Throws if the folder
 * is locked by another process or cannot be read; nothing is left open then.
 */
export async function openServer(deps: FanionDeps): Promise<ServerParts> {
  const folder = await openDataFolder(deps);
  const { engine, checkpointer, closeSource } = startEngine(deps, folder);
  return closingOnFailure(closeSource, async () => {
    const tokens = await openTokens(deps, engine, folder);
    const admin = await openAdminSide(deps, engine, tokens);
    const core = assembleCore({
      deps, engine, checkpointer, replayMs: folder.replayed.ms, auth: admin.auth, tokens: tokens.tokens, people: admin.people, webhooks: admin.webhooks, cluster: null, nodeId: null, keepsImpact: true,
    });
    // Webhooks write their last progress before the log closes.
    const { close, closingStep } = closer(core.push, [
      ['release plan progressions', () => admin.progressions.close()],
      ['safeguards', () => admin.safeguards.close()],
      ['scheduled change requests', () => admin.schedules.close()],
      ['webhook deliveries', () => admin.webhooks.close()],
      ['the last SDK metrics', () => core.flusher.stop()],
      ['the last impact metrics', () => core.impact?.stop()],
      ['the write-ahead log', closeSource],
    ]);
    return { ...core, ...tokens, engine, checkpointer, storage: folder.storage, admin, close, closingStep };
  });
}

/** Opens the port, then the server's parts, and serves them (until then /ready and every path answer 503). */
export async function startServer(deps: FanionDeps): Promise<RunningServer> {
  const { config } = deps;
  const fields = { dataDir: config.dataDir };
  const port = await openPort(deps, {
    mode: 'server', fields, doing: `replaying the data folder ${config.dataDir}`,
    waitingFor: 'the data folder replayed and every route mounted', startingMessage: 'Fanion is starting: its data folder is being replayed. Try again in a moment.',
  });
  const parts = await port.opening(() => openServer({ ...deps, readiness: port.readiness }));
  const ctx = port.context({ engine: parts.engine, auth: parts.admin.auth, operations: parts.operations });
  await port.serve({ ctx, frontDoor: parts.frontDoor, routes: await serverRoutes(ctx, parts) });
  await ensureFirstAdmins(deps, parts.engine, parts, parts.admin);
  return port.running(parts, { summary: `a server on the data folder ${config.dataDir}`, fields: { ...fields, walSync: config.walSync } });
}
