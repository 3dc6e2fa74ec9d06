import pino, { type Logger } from 'pino';
import type { Config } from './config';

/** Structured JSON logs on stdout, one object per line; secrets never reach them (redacted paths). */
export function createLogger(config: Pick<Config, 'logLevel'>, name = 'coopbank'): Logger {
  return pino({
    name,
    level: config.logLevel,
    redact: ['password', '*.password', 'req.headers.authorization', 'req.headers.cookie'],
  });
}
