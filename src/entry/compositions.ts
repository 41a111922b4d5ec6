// The one place that reads which runtime mode the settings ask for. Each mode is a composition in
// its own file, assembled top to bottom over the shared core (core.ts) and HTTP server (server.ts):
//
//   embedded.ts  a server on its data folder: the admin API, people, webhooks, the console
//   cluster.ts   a cluster node: the same, over the log in PostgreSQL, one node delivering webhooks
//   relay.ts     a relay of an upstream: the SDK routes and Unleash Edge's, no admin API
//   offline.ts   offline mode: a relay whose upstream is a features file
//
// A further mode is a further file and one more line below; nothing else asks which mode runs.
import type { Config } from '../core/config.js';
import { clusterNode } from './cluster.js';
import type { FanionDeps } from './core.js';
import type { RunningServer } from './server.js';
import { offline } from './offline.js';
import { relay } from './relay.js';
import { server } from './embedded.js';

/** Which mode runs (the start-up lines say it). */
export type Mode = 'server' | 'cluster node' | 'relay' | 'offline';

export interface Composition {
  mode: Mode;
  /** Refuses settings this mode cannot start with (a ConfigError), before anything is opened. */
  check(config: Config): Promise<void>;
  /** Opens the port, then the mode's parts, and serves them. */
  start(deps: FanionDeps): Promise<RunningServer>;
}

export function compositionFor(config: Config): Composition {
  if (config.relay) return relay(config.relay);
  if (config.offline) return offline(config.offline);
  if (config.cluster) return clusterNode(config.cluster);
  return server;
}

/** The mode the settings ask for, its settings checked, started: what in-process tests call (main.ts does the same in two steps). */
export async function startFanion(deps: FanionDeps): Promise<RunningServer> {
  const composition = compositionFor(deps.config);
  await composition.check(deps.config);
  return composition.start(deps);
}
