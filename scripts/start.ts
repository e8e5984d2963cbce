/**
 * `npm start`: the whole API on one local port, on DynamoDB Local (in memory unless `DATA_DIR` or
 * `--data DIR` says where to keep it), with mock mode on. `DYNAMODB_ENDPOINT` names a DynamoDB
 * that is already running instead. `--bundled` serves the functions bundled as they deploy.
 */
import { createServer } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type BackgroundTasks, startBackgroundTasks } from '../local/background';
import { bundleFunctions, projectRoot } from '../local/bundle-functions';
import { bundledHandlers } from '../local/bundled-handlers';
import { type LocalEnvironment, prepareLocalEnvironment } from '../local/environment';
import { sourceHandlers } from '../local/load-handler';
import { type LocalServer, startLocalServer } from '../local/server';
import { handlerNames } from '../shared/routes/table';
import { streamTasks } from '../shared/routes/tasks';

const usage = 'Usage: npm start [-- --data DIR] [--port N] [--bundled] [--verbose] [--quiet]';

const parse = () => {
  try {
    return parseArgs({
      options: {
        data: { type: 'string' },
        port: { type: 'string' },
        bundled: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
};

const values = parse();
// An empty variable is an unset one (`PORT= npm start`), not port 0.
const portSetting = values.port ?? (process.env.PORT || '3000');
const port = /^\d+$/.test(portSetting) ? Number(portSetting) : Number.NaN;
if (!Number.isInteger(port) || port > 65_535) {
  console.error(`PORT must be a port number (0 to 65535); got ${portSetting}.`);
  process.exit(2);
}
// npm runs scripts from the project root; a relative folder is relative to where the user typed it.
const dataSetting = values.data ?? (process.env.DATA_DIR || null);
const dataDir = dataSetting === null ? null : path.resolve(process.env.INIT_CWD ?? process.cwd(), dataSetting);

/** Fails at once when the port is taken, before DynamoDB Local takes seconds to start. */
const ensurePortFree = (wanted: number) =>
  new Promise<void>((resolve, reject) => {
    if (wanted === 0) return resolve();
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `port ${wanted} is in use by another program; choose another with PORT=3001 npm start or npm start -- --port 3001.`
            : `cannot listen on 127.0.0.1:${wanted}: ${error.message}`,
        ),
      ),
    );
    probe.listen(wanted, '127.0.0.1', () => probe.close(() => resolve()));
  });

let environment: LocalEnvironment | undefined;
let server: LocalServer | undefined;
let background: BackgroundTasks | undefined;
let stopping = false;

const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await server?.close().catch(() => undefined);
  await background?.stop().catch(() => undefined);
  await environment?.stop().catch(() => undefined);
  process.exit(code);
};

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (!stopping) console.log(`\n${signal}: stopping`);
    void stop(0);
  });
}

try {
  await ensurePortFree(port);
  environment = await prepareLocalEnvironment({
    dataDir,
    verbose: values.verbose,
    onStartingDynamoDbLocal: () =>
      console.log(dataDir ? `Starting DynamoDB Local (data in ${dataDir})…` : 'Starting DynamoDB Local (in memory)…'),
  });
  console.log(`DynamoDB at ${environment.endpoint}, table ${environment.tableName} (${environment.table})`);

  let handlers = sourceHandlers(environment);
  if (values.bundled) {
    // The routes' functions and the stream's: the janitor runs with `npm run invoke -- sweep-garbage`.
    const bundles = await bundleFunctions(path.join(projectRoot, 'dist', 'functions'), {
      names: [...handlerNames(), ...streamTasks.map((task) => task.handler)],
    });
    console.log(
      `Serving ${bundles.names.length} functions bundled as they deploy (${path.relative(process.cwd(), bundles.dir)}, ${Math.round(bundles.milliseconds)} ms)`,
    );
    handlers = bundledHandlers(environment, bundles);
  }
  server = await startLocalServer({ port, quiet: values.quiet, handlers });
  // The folder reads the table's stream, as its event source mapping does in AWS.
  background = await startBackgroundTasks(environment, handlers, {
    onError: (task, error) => console.error(`${task}: ${error instanceof Error ? error.message : String(error)}`),
  });
  console.log(`Magazine API listening on ${server.url}`);
  console.log(`Try: curl -i '${server.url}/magazines'   (Ctrl-C stops the server and DynamoDB Local)`);
} catch (error) {
  console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
  await stop(1);
}
