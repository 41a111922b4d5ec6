#!/usr/bin/env node
// `npm start`: read the environment, start serving, shut down cleanly on SIGTERM/SIGINT.
import { ConfigError, loadConfig, type Config } from '../core/config.js';
import { CannotStartError } from '../core/errors.js';
import { createLogger } from '../core/logger.js';
import { keepTickEntryShape } from './runtime-quirks.js';
import { compositionFor, type Composition } from './compositions.js';
import { checkSeedTokens } from '../concepts/tokens/seed.js';
import { FANION_VERSION } from '../core/version.js';

let config: Config;
let composition: Composition;
try {
  config = loadConfig();
  checkSeedTokens(config);
  // The mode the settings ask for, chosen once; its own settings checked before anything is opened.
  composition = compositionFor(config);
  await composition.check(config);
} catch (err) {
  // Before anything is opened or replayed: one line a person can act on, no stack trace.
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`Fanion cannot start: ${err.message}\n`);
  process.exit(2);
}
const log = createLogger(config.logLevel, config.logFormat);
// Before serving: SDK answers stay as fast after an idle spell as before it (runtime-quirks.ts).
await keepTickEntryShape();

/** A signal this soon after the one that started the stop is a copy of it, not a second request. */
const SAME_STOP_MS = 1_000;

/** Where a person on this machine opens the console: a wildcard bind is reached as localhost. */
function browserUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}/`;
}

composition.start({
  config,
  log,
  onFatal: (message) => {
    log.fatal(message);
    process.exit(1);
  },
})
  .then((running) => {
    // One line says which mode runs and on what; a relay has no console to point to.
    const consoleUrl = running.console ? browserUrl(config.host, running.port) : undefined;
    log.info(
      {
        version: FANION_VERSION, port: running.port, host: config.host, mode: running.mode, ...running.fields,
        authType: config.authType, maxConnections: running.connections.cap, console: consoleUrl,
      },
      `Fanion listening on port ${running.port}: ${running.summary}${consoleUrl ? `; the console is at ${consoleUrl}` : ''}`,
    );
    let stoppingSince: number | null = null;
    const stop = (signal: string) => {
      if (stoppingSince !== null) {
        // One stop sent to the process group (Ctrl-C in a terminal, systemd's KillMode=control-group,
        // `kill -- -<pgid>`) reaches node twice when npm runs it: once from the group, once passed
        // on by npm. A copy that soon is the same request, and it must drain, not cut requests.
        if (performance.now() - stoppingSince < SAME_STOP_MS) {
          log.info({ signal, withinMs: SAME_STOP_MS }, 'the same stop again (a process group\'s copy of the signal): still finishing in-flight requests');
          return;
        }
        // A later signal: the person wants it gone. What was acknowledged is durable already.
        log.warn({ signal, waitingFor: running.closingStep() }, 'stopping at once (second signal)');
        process.exit(1);
      }
      stoppingSince = performance.now();
      log.info({ signal }, 'shutting down: finishing in-flight requests and closing the write-ahead log');
      // A stop that hangs (a peer that never lets go, a bug) must not keep the process, its port
      // and its data folder's lock for ever: exiting is as safe as a kill -9, which Fanion survives.
      setTimeout(() => {
        log.error({ waitingFor: running.closingStep(), ms: config.http.shutdownTimeoutMs }, `shutdown did not finish within SHUTDOWN_TIMEOUT_MS (${config.http.shutdownTimeoutMs} ms); exiting anyway`);
        process.exit(1);
      }, config.http.shutdownTimeoutMs).unref();
      running.close().then(
        () => {
          log.info('stopped cleanly');
          process.exit(0);
        },
        (err) => {
          log.error({ err }, 'error while shutting down');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  })
  .catch((err) => {
    if (err instanceof CannotStartError) {
      // Something in the data a person must fix: one line saying what and where, and status 2.
      log.fatal(`Fanion cannot start: ${err.message}`);
      process.exit(2);
    }
    // Settings that cannot work (found only once the database answered): status 2, as for a bad setting.
    if (err instanceof ConfigError) {
      log.fatal({ err: err.message }, `Fanion cannot start: ${err.message}`);
      process.exit(2);
    }
    log.fatal({ err: err instanceof Error ? err.message : String(err) }, 'Fanion could not start');
    process.exit(1);
  });
