// pino: structured JSON logs, cheap enough to leave on in the hot path's error branches, and its
// redaction keeps Authorization headers out of every line. Timestamps are ISO 8601 so a line reads
// the same in a terminal, a log shipper and a spreadsheet. LOG_FORMAT=pretty renders lines for
// people with pino-pretty (synchronously: a crash must not swallow the last lines).
import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { LogFormat } from './config.js';

// pino-pretty and its dependencies (about 1.3 MB of memory) are loaded only for LOG_FORMAT=pretty;
// createLogger is synchronous, and pino-pretty a CommonJS module, hence require.
const require = createRequire(import.meta.url);

export type { Logger };

/** The one logger of a Fanion process; `destination` is for tests that read what is written. */
export function createLogger(level: string, format: LogFormat = 'json', destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { app: 'fanion' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'secret', '*.secret'], censor: '[redacted]' },
  };
  if (format === 'pretty') {
    const pretty = require('pino-pretty') as typeof PinoPretty;
    return pino(options, pretty({ sync: true, translateTime: 'SYS:standard', ignore: 'pid,hostname,app', destination: destination ?? 1 }));
  }
  return destination ? pino(options, destination) : pino(options);
}
