/**
 * The one structured logger of every function: one JSON object per line, which CloudWatch Logs
 * Insights reads field by field. Powertools' Logger did the same for 20 KiB of every bundle
 * (6 % of the size budget) while the functions log only failures; see docs/benchmarks.md, "Bundle budget".
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { config, type LogLevel } from './config';

const LEVELS: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 };

/** What ties a line to its request: API Gateway's request id, Lambda's, the X-Ray trace, the operation. */
export interface LogContext {
  readonly requestId?: string | undefined;
  readonly awsRequestId?: string | undefined;
  readonly traceId?: string | undefined;
  readonly operation?: string | undefined;
}

/**
 * Per request rather than per module: the local server runs many requests of one handler module
 * at once in one process, and a line must never carry another request's ids.
 */
const requestContext = new AsyncLocalStorage<LogContext>();

/**
 * From here on (this call and everything it awaits) every line carries `context`. Called by the
 * first middleware of the stack, synchronously, so that the whole invocation runs inside it.
 */
export const enterLogContext = (context: LogContext) => requestContext.enterWith(context);

/** The current request's context (empty outside one). */
export const logContext = (): LogContext => requestContext.getStore() ?? {};

const serializable = (value: unknown): unknown =>
  value instanceof Error
    ? {
        name: value.name,
        message: value.message,
        stack: value.stack,
        ...(value.cause !== undefined && { cause: serializable(value.cause) }),
      }
    : value;

const SERVICE = 'magazine-api';

/** What every line starts with: level, message, time, service, and the request's context. */
const head = (level: LogLevel, message: string) => ({
  level,
  message,
  timestamp: new Date().toISOString(),
  service: SERVICE,
  ...requestContext.getStore(),
});

const line = (level: LogLevel, message: string, fields: Record<string, unknown>) => {
  const entry: Record<string, unknown> = head(level, message);
  for (const name of Object.keys(fields)) entry[name] = serializable(fields[name]);
  process.stdout.write(`${JSON.stringify(entry)}\n`);
};

const write = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
  if (LEVELS[level] < LEVELS[config().logLevel]) return;
  line(level, message, fields);
};

export const logger = {
  debug: (message: string, fields?: Record<string, unknown>) => write('DEBUG', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('INFO', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('WARN', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('ERROR', message, fields),
};

/**
 * A line in CloudWatch's embedded metric format (`_aws` and the values at the top level), which
 * CloudWatch turns into metrics; written whatever the log level, since a level that hid it would
 * silently stop the metrics and the alarms built on them. Its fields come as JSON object text,
 * never empty since `_aws` is always among them (shared/metrics.ts writes their constant part once, not on every request), after the head as
 * every line's, whose names they never take. Every request writes one, so its head is written as
 * text rather than built as an object and serialised: the same bytes, for a third of the time.
 */
export const metricsLine = (fieldsJson: string) => {
  let text = `{"level":"METRICS","message":"metrics","timestamp":"${new Date().toISOString()}","service":"${SERVICE}"`;
  const context = requestContext.getStore();
  // Own keys only, and only the string ids a context holds: nothing inherited or unserialisable reaches the line.
  if (context)
    for (const name of Object.keys(context)) {
      const value = context[name as keyof LogContext];
      if (typeof value === 'string') text += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
    }
  process.stdout.write(`${text},${fieldsJson.slice(1)}\n`);
};
