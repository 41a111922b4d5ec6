// A relay of an upstream Fanion or Unleash (UPSTREAM_URL), composed top to bottom:
//
//   data folder (its copy of the upstream's flags, replayed) → engine, keeping only its newest events
//   → the folder checked to be a relay's → token hash key → seeded tokens
//   → the core (core.ts): client snapshot, push hub, evaluation, SDK metrics, Prometheus metrics
//   → the relay: follows the upstream and applies what it sends, like any change source; forwards SDK metrics
//   → the port (server.ts): the SDK routes and Unleash Edge's, no admin API (flags change upstream),
//     a token not held yet checked with the upstream before its request goes on → ready
//
// No people, no webhooks, no admin API: a relay neither loads their code nor compiles their schemas.
import type { TokenAuthenticator } from '../concepts/tokens/token-authenticator.js';
import type { RelayConfig } from '../core/config.js';
import type { Engine } from '../core/engine/engine.js';
import type { Checkpointer } from '../core/storage/checkpointer.js';
import { validateThroughUpstream } from '../modes/relay/routes.js';
import { checkRelayFolder, Relay, RELAY_MAX_EVENTS } from '../modes/relay/relay.js';
import type { Composition } from './compositions.js';
import { assembleCore, closer, closingOnFailure, openDataFolder, openTokens, startEngine, type Core, type DataFolder, type FanionDeps, type Started, type Tokens } from './core.js';
import { openPort, type Parts, type RunningServer } from './server.js';
import { edgeSideRoutes, sdkRoutes } from './routes.js';

export function relay(settings: RelayConfig): Composition {
  // Nothing to refuse beyond what loadConfig did: a relay has no people, so no admin password.
  return { mode: 'relay', check: async () => undefined, start: (deps) => startRelay(deps, settings) };
}

/** A relay's parts, wired, with one close for all of them. */
export interface RelayParts extends Core, Tokens, Parts {
  checkpointer: Checkpointer;
  relay: Relay;
}

/**
 * Opens the data folder with the relay's copy and everything SDKs are served from, a folder that
 * is not a relay's (a server's data folder, say) refused before anything is written to it.
 */
export async function openEdgeFolder(deps: FanionDeps): Promise<Started<Checkpointer> & { folder: DataFolder }> {
  const folder = await openDataFolder(deps);
  // Only its newest events: an upstream that never stops changing must not grow them without end.
  const started = startEngine(deps, folder, RELAY_MAX_EVENTS);
  const wrongFolder = checkRelayFolder(started.engine.state);
  if (wrongFolder) {
    await started.closeSource();
    throw new Error(wrongFolder);
  }
  return { folder, ...started };
}

/** Who calls a relay: API tokens only (loadConfig refuses AUTH_TYPE=none with UPSTREAM_URL or BOOTSTRAP_FILE). */
export function edgeCore(deps: FanionDeps, started: { engine: Engine; checkpointer: Checkpointer }, replayMs: number, tokens: TokenAuthenticator): Core {
  return assembleCore({ deps, ...started, replayMs, auth: tokens, tokens, people: null, webhooks: null, cluster: null, nodeId: null, keepsImpact: false });
}

export async function openRelay(deps: FanionDeps, settings: RelayConfig): Promise<RelayParts> {
  const { config, log } = deps;
  const { folder, engine, checkpointer, closeSource } = await openEdgeFolder(deps);
  return closingOnFailure(closeSource, async () => {
    const tokens = await openTokens(deps, engine, folder);
    const core = edgeCore(deps, { engine, checkpointer }, folder.replayed.ms, tokens.tokens);
    // A relay is a change source like the admin API: what it applies is served by all of the above.
    const relay = new Relay({ engine, config: settings, log, hasher: tokens.hasher, metrics: core.metrics, readiness: core.readiness, maxAnswerBytes: config.http.importBodyLimit });
    relay.registerMetrics(core.operations.registry);
    relay.start();
    // The relay first: no change arrives after it.
    const { close, closingStep } = closer(core.push, [
      ['the relay', () => relay.close()],
      ['the last SDK metrics', () => core.flusher.stop()],
      ['the write-ahead log', closeSource],
    ]);
    return { ...core, ...tokens, engine, checkpointer, relay, close, closingStep };
  });
}

export async function startRelay(deps: FanionDeps, settings: RelayConfig): Promise<RunningServer> {
  const { config } = deps;
  const upstream = settings.upstreamUrl;
  const fields = { upstream, dataDir: config.dataDir };
  const port = await openPort(deps, {
    mode: 'relay', fields, doing: `replaying the relay's copy in ${config.dataDir}, then following the upstream ${upstream}`,
    waitingFor: 'the data folder replayed and every route mounted', startingMessage: 'Fanion is starting: its data folder is being replayed. Try again in a moment.',
  });
  const parts = await port.opening(() => openRelay({ ...deps, readiness: port.readiness }, settings));
  const { relay } = parts;
  const ctx = port.context({ engine: parts.engine, auth: parts.tokens, operations: parts.operations });
  // POST /edge/validate asks this relay's upstream about tokens it has not seen (each hop grants no more than the one above).
  const sdk = validateThroughUpstream(sdkRoutes(ctx, parts), (tokens) => relay.admitAll(tokens));
  await port.serve({
    ctx,
    frontDoor: parts.frontDoor,
    routes: edgeSideRoutes(ctx, parts, sdk, () => relay.pendingTokens()),
    elsewhere: { flagsAt: `its upstream ${upstream}`, refusal: `This is a Fanion relay: change flags on its upstream ${upstream}` },
    // A token the relay does not hold yet is checked with the upstream first (the request waits,
    // bounded); then the request goes on as any other, and authentication decides. A TOKENS entry
    // whose flags the relay does not have yet (its upstream not reached since it started) is not a
    // wrong token: 503, which SDKs retry, not the 401 authentication would give.
    gate: (req, res, next) => {
      const afterAdmit = () => {
        const waiting = relay.notReadyFor(req);
        if (waiting === null) next(req, res);
        else port.unavailable(req, res, `This relay is not ready for the token ${waiting}…: it has not had its flags from the upstream ${upstream} yet. Try again in a moment.`);
      };
      const wait = relay.admit(req);
      if (wait) void wait.then(afterAdmit);
      else next(req, res);
    },
  });
  return port.running(parts, { summary: `a relay of the upstream ${upstream} (its copy in ${config.dataDir})`, fields: { ...fields, walSync: config.walSync } });
}
