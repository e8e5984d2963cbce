/**
 * `npm start`: the whole API on one local port, on DynamoDB Local (in memory unless `DATA_DIR` or
 * `--data DIR` says where to keep it), with mock mode on. Set `DYNAMODB_ENDPOINT` to use a
 * DynamoDB that is already running instead.
 */
import { parseArgs } from 'node:util';
import { prepareHandlerTable, type HandlerTable } from '../local/handler-table';
import { startLocalServer, type LocalServer } from '../local/server';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    port: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
  allowPositionals: false,
});

const port = Number(values.port ?? process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number; got ${values.port ?? process.env.PORT}.`);
  process.exit(1);
}
const dataDir = values.data ?? process.env.DATA_DIR ?? null;

let table: HandlerTable | undefined;
let server: LocalServer | undefined;
let stopping = false;

const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await server?.close().catch(() => undefined);
  await table?.stop().catch(() => undefined);
  process.exit(code);
};

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (!stopping) console.log(`\n${signal}: stopping`);
    void stop(0);
  });
}

try {
  // Before the first handler is imported: their modules read their settings when they load.
  table = await prepareHandlerTable({
    dataDir,
    verbose: values.verbose,
    onStartingLocal: () => console.log(dataDir ? `Starting DynamoDB Local (data in ${dataDir})…` : 'Starting DynamoDB Local (in memory)…'),
  });
  console.log(`DynamoDB at ${table.endpoint}, table ${table.tableName} (${table.table})`);

  server = await startLocalServer({ port, quiet: values.quiet });
  console.log(`Magazine API listening on ${server.url}`);
  console.log(`Try: curl -i '${server.url}/magazines?mock=True'   (Ctrl-C stops the server and DynamoDB Local)`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await stop(1);
}
