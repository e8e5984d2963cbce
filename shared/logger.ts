/**
 * The one structured logger of every function: one JSON object per line, which CloudWatch Logs
 * Insights reads field by field. Powertools' Logger did the same for 20 KiB of every bundle
 * (6 % of the size budget) while the functions log only failures; see README, "Bundle budget".
 */
import { config, type LogLevel } from './config';

const LEVELS: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 };

const serializable = (value: unknown): unknown =>
  value instanceof Error
    ? {
        name: value.name,
        message: value.message,
        stack: value.stack,
        ...(value.cause !== undefined && { cause: serializable(value.cause) }),
      }
    : value;

const write = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
  if (LEVELS[level] < LEVELS[config().logLevel]) return;
  const entry = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: 'magazine-api',
    ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, serializable(v)])),
  };
  process.stdout.write(`${JSON.stringify(entry)}\n`);
};

export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => write('DEBUG', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('INFO', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('WARN', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('ERROR', message, fields),
};
