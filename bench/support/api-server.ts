import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
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
  stop(): Promise<void>;
}

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
  let seen = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
  const takeServerErrors = () => {
    const text = readFileSync(logFile, 'utf8');
    const fresh = text.slice(read, text.lastIndexOf('\n') + 1);
    read += fresh.length;
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
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      log.end();
    },
  };
};
