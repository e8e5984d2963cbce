import { spawn } from 'node:child_process';
import { closeSync, createWriteStream, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ApiServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly pid: number;
  /** The server's own output, kept in a file. */
  readonly logFile: string;
  /**
   * Answers of 500 and more since the last call, from the metrics line the server writes for
   * each request (its operation, status, and the reason a 503 gave up: `timeout`, `conflict`,
   * `collection-busy`…), as `createMagazine 503 collection-busy` → count.
   */
  takeServerErrors(): Record<string, number>;
  /** How the server ended, with the end of what it wrote to stderr, if it ended before `stop`. */
  stopped(): string | undefined;
  stop(): Promise<void>;
}

const STDERR_KEPT = 8_000;

const START_TIMEOUT_MS = 120_000;

/**
 * The API as users start it, `npm start` (scripts/start.ts of `tree`, its handlers from source,
 * and whatever it runs beside them), in a process of its own on a free port, against the DynamoDB
 * at `endpoint` (the measuring proxy) and table `tableName`, with its metrics lines on. Its
 * output goes to `logFile`: a line per request would drown the benchmark's own.
 */
export const startApiServer = async (options: {
  readonly tree: string;
  readonly endpoint: string;
  readonly tableName: string;
  readonly logFile: string;
}): Promise<ApiServer> => {
  const { tree, endpoint, tableName, logFile } = options;
  const log = createWriteStream(logFile);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join('scripts', 'start.ts'), '--port', '0', '--quiet'],
    {
      cwd: tree,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DYNAMODB_ENDPOINT: endpoint,
        TABLE_NAME: tableName,
        LOG_LEVEL: 'ERROR',
        // As deployed (on in Lambda): each request's metrics line says why an answer was a 5xx.
        METRICS: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stderr.pipe(log);
  // What a crash leaves (a stack, an out-of-memory report) is on stderr: its end is kept to say why.
  let stderrTail = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  let ended: string | undefined;
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!stopping) ended = `npm start exited (${signal ?? `code ${code}`}); its stderr ended with:\n${stderrTail}`;
      resolve();
    }),
  );
  let seen = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not listen within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      log.write(chunk);
      if (seen.length < 10_000) seen += chunk.toString('utf8');
      const listening = /listening on (http:\/\/\S+)/.exec(seen);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before it listened; see ${logFile}`));
    });
  });
  let read = 0;
  /** The whole lines written since the last call (the log grows by a line per request: only the new part is read). */
  const freshLines = () => {
    const size = statSync(logFile).size;
    if (size <= read) return '';
    const bytes = Buffer.alloc(size - read);
    const file = openSync(logFile, 'r');
    try {
      readSync(file, bytes, 0, bytes.length, read);
    } finally {
      closeSync(file);
    }
    const whole = bytes.lastIndexOf(0x0a) + 1;
    read += whole;
    return bytes.subarray(0, whole).toString('utf8');
  };
  const takeServerErrors = () => {
    const fresh = freshLines();
    const errors: Record<string, number> = {};
    for (const line of fresh.split('\n')) {
      if (!line.startsWith('{') || !/"statusCode":5/.test(line)) continue;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        const what = [entry.Operation, entry.statusCode, entry.Reason ?? entry.ErrorCode].filter(Boolean).join(' ');
        errors[what] = (errors[what] ?? 0) + 1;
      } catch {
        // Not a metrics line.
      }
    }
    return errors;
  };
  return {
    url,
    pid: child.pid!,
    logFile,
    takeServerErrors,
    stopped: () => ended,
    stop: async () => {
      stopping = true;
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      log.end();
    },
  };
};
