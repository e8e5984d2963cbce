/**
 * `npm start -- --watch`: DynamoDB Local runs in this process for the whole session, and the API
 * server runs in a child process that is started again whenever a file under functions/, shared/
 * or local/ changes. The data lives in DynamoDB Local, so it outlives every restart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import { startDynamoDbLocal } from './dynamodb-local';

export interface WatchOptions {
  readonly projectRoot: string;
  /** The server's own arguments (without `--watch`); `firstOnly` is added to the first start alone. */
  readonly args: readonly string[];
  readonly firstOnly: readonly string[];
  readonly dataDir: string | null;
  readonly verbose: boolean;
}

const WATCHED = ['functions', 'shared', 'local'];

export const runWatched = async (options: WatchOptions): Promise<void> => {
  const given = process.env.DYNAMODB_ENDPOINT;
  if (!given)
    console.log(
      options.dataDir
        ? `Starting DynamoDB Local (data in ${options.dataDir})…`
        : 'Starting DynamoDB Local (in memory)…',
    );
  const dynamoDb = given ? undefined : await startDynamoDbLocal({ dataDir: options.dataDir, verbose: options.verbose });
  const endpoint = given || dynamoDb!.endpoint;
  const tsx = path.join(options.projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const script = path.join(options.projectRoot, 'scripts', 'start.ts');

  let child: ChildProcess | undefined;
  let first = true;
  const startServer = () => {
    child = spawn(process.execPath, [tsx, script, ...options.args, ...(first ? options.firstOnly : [])], {
      stdio: 'inherit',
      // WATCHED: the watcher says why it stops the server, which need not say it again.
      env: { ...process.env, DYNAMODB_ENDPOINT: endpoint, WATCHED: '1' },
    });
    first = false;
  };
  const stopServer = () =>
    new Promise<void>((resolve) => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve();
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });

  let timer: NodeJS.Timeout | undefined;
  let restarting = Promise.resolve();
  const changed = (file: string) => {
    clearTimeout(timer);
    // An editor's save is often several events; one restart for them all.
    timer = setTimeout(() => {
      restarting = restarting.then(async () => {
        console.log(`\n${file} changed: restarting the API (the data is kept)`);
        await stopServer();
        startServer();
      });
    }, 250);
  };
  const watchers: FSWatcher[] = WATCHED.map((dir) =>
    watch(path.join(options.projectRoot, dir), { recursive: true }, (_, name) => {
      if (name && /\.(ts|json)$/.test(name)) changed(path.join(dir, name));
    }),
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    for (const watcher of watchers) watcher.close();
    clearTimeout(timer);
    await stopServer();
    await dynamoDb?.stop().catch(() => undefined);
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop());

  console.log(
    `Watching ${WATCHED.map((dir) => `${dir}/`).join(', ')}: a change restarts the API; DynamoDB at ${endpoint}`,
  );
  startServer();
};
