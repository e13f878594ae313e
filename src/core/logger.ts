import pino, { type Logger } from 'pino';
import type { Config } from '../config/load.js';

/** The process logger: structured JSON lines on stdout at CDN_LOG_LEVEL. */
export function createLogger(config: Pick<Config, 'logLevel'>, name = 'cdn'): Logger {
  return pino({ name, level: config.logLevel, base: { pid: process.pid } });
}
