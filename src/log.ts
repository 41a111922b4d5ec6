// pino: structured JSON logs, cheap enough to leave on in the hot path's error branches,
// and its redaction keeps Authorization headers out of every line.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { app: 'fanion' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', 'secret', '*.secret'], censor: '[redacted]' },
  });
}
