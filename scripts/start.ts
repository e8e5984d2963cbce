/**
 * `npm start`: the whole API on one local port, on DynamoDB Local (in memory unless `DATA_DIR` or
 * `--data DIR` says where to keep it), with mock mode on. `DYNAMODB_ENDPOINT` names a DynamoDB
 * that is already running instead. `--bundled` serves the functions bundled as they deploy.
 * `--keys` checks API keys as a deployment with keys does (the usage plans of infra/usage-plans.ts)
 * and prints a key of each plan; without it the server is open, as the README's examples expect.
 */
import { createServer } from 'node:net';
import path from 'node:path';
import { planNames, usagePlans } from '../infra/usage-plans';
import { LocalApiKeys } from '../local/api-keys';
import { type BackgroundTasks, startBackgroundTasks } from '../local/background';
import { bundleFunctions, projectRoot } from '../local/bundle-functions';
import { bundledHandlers } from '../local/bundled-handlers';
import { type LocalEnvironment, prepareLocalEnvironment } from '../local/environment';
import { sourceHandlers } from '../local/load-handler';
import { loadSampleData } from '../local/sample-data';
import { type LocalServer, startLocalServer } from '../local/server';
import { runWatched } from '../local/watch';
import { handlerNames } from '../shared/routes/table';
import { streamTasks } from '../shared/routes/tasks';
import { readCommandLine } from './support/cli';

const usage = `Usage: npm start [-- options]

Serves the whole API on http://127.0.0.1:PORT, each route by the handler it deploys, on DynamoDB
Local (started here and stopped by Ctrl-C) with mock mode on.

Options:
  --port N      port of the local server (0 picks a free one)          [PORT, else 3000]
  --data DIR    keep DynamoDB Local's data in DIR across restarts      [DATA_DIR, else in memory]
  --bundled     serve the functions bundled as cdk deploy bundles them, each in a worker of its own
  --verbose     also print DynamoDB Local's own output
  --quiet       print no line per request
  --keys        check API keys (x-api-key) and apply the usage plans' rate, burst and daily quota,
                as API Gateway does; prints a working key of each plan
  --seed        load the sample data (npm run seed) once the API listens
  --watch       restart the API when a file under functions/, shared/ or local/ changes; DynamoDB
                Local keeps running, and so the data is kept
  --help        this text; runs nothing

Environment: DYNAMODB_ENDPOINT (use that DynamoDB Local instead of starting one; never an AWS
endpoint), TABLE_NAME [magazines], MOCK_ENABLED [true].
`;

const parse = () =>
  readCommandLine({
    command: 'npm start',
    usage,
    options: {
      data: { type: 'string' },
      port: { type: 'string' },
      bundled: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      keys: { type: 'boolean', default: false },
      seed: { type: 'boolean', default: false },
      watch: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values;

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

async function serve() {
  try {
    await ensurePortFree(port);
    environment = await prepareLocalEnvironment({
      dataDir,
      verbose: values.verbose,
      onStartingDynamoDbLocal: () =>
        console.log(dataDir ? `Starting DynamoDB Local (data in ${dataDir})…` : 'Starting DynamoDB Local (in memory)…'),
    });
    console.log(`DynamoDB at ${environment.endpoint}, table ${environment.tableName} (${environment.table})`);
    const table = environment.tableName === 'magazines' ? '' : `TABLE_NAME=${environment.tableName} `;
    console.log(
      `One function on this data: ${table}npm run invoke -- list-magazines --endpoint ${environment.endpoint}`,
    );

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
    const apiKeys = values.keys ? new LocalApiKeys() : undefined;
    server = await startLocalServer({
      port,
      quiet: values.quiet,
      handlers,
      apiKeys,
      events: () => background?.eventBus,
    });
    // The folder reads the table's stream, as its event source mapping does in AWS.
    background = await startBackgroundTasks(environment, handlers, {
      baseUrl: server.url,
      onError: (task, error) => console.error(`${task}: ${error instanceof Error ? error.message : String(error)}`),
    });
    console.log(`Magazine API listening on ${server.url}`);
    if (values.seed) {
      const made = await loadSampleData(server.url);
      console.log(`Loaded the sample data: ${made.magazines} magazines, ${made.articles} articles`);
    }
    if (apiKeys) {
      const keys = planNames.map((plan) => ({ plan, key: apiKeys.issue(plan) }));
      console.log('API keys are checked (x-api-key); the documentation and /openapi.json are open. Keys of this run:');
      for (const { plan, key } of keys) console.log(`  ${plan}: ${key}   (${usagePlans[plan].description})`);
      console.log(
        `Try: curl -i -H 'x-api-key: ${keys[0]!.key}' '${server.url}/magazines'   (Ctrl-C stops the server and DynamoDB Local)`,
      );
    } else console.log(`Try: curl -i '${server.url}/magazines'   (Ctrl-C stops the server and DynamoDB Local)`);
    console.log(`Change events as they are published: curl -N '${server.url}/v1/events' (Server-Sent Events)`);
  } catch (error) {
    console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
    await stop(1);
  }
}

if (values.watch) {
  try {
    await ensurePortFree(port);
    await runWatched({
      projectRoot,
      args: [
        '--port',
        String(port),
        ...(values.bundled ? ['--bundled'] : []),
        ...(values.quiet ? ['--quiet'] : []),
        ...(values.verbose ? ['--verbose'] : []),
        ...(values.keys ? ['--keys'] : []),
      ],
      firstOnly: values.seed ? ['--seed'] : [],
      dataDir,
      verbose: values.verbose,
    });
  } catch (error) {
    console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
} else {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!stopping && !process.env.WATCHED) console.log(`\n${signal}: stopping`);
      void stop(0);
    });
  }
  await serve();
}
