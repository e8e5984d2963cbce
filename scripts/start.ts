/**
 * `npm start`: the whole API on one local port, on DynamoDB Local (in memory unless `DATA_DIR` or
 * `--data DIR` says where to keep it), with mock mode on. Set `DYNAMODB_ENDPOINT` to use a
 * DynamoDB that is already running instead.
 */
import { parseArgs } from 'node:util';
import { startDynamoDbLocal, localCredentials, localDynamoDbClient, localRegion, type DynamoDbLocal } from '../local/dynamodb-local';
import { ensureTable } from '../local/ensure-table';
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

const env = process.env;
const port = Number(values.port ?? env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`PORT must be a port number; got ${values.port ?? env.PORT}.`);
  process.exit(1);
}
const dataDir = values.data ?? env.DATA_DIR ?? null;

let dynamoDb: DynamoDbLocal | undefined;
let server: LocalServer | undefined;
let stopping = false;

const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await server?.close().catch(() => undefined);
  await dynamoDb?.stop().catch(() => undefined);
  process.exit(code);
};

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (!stopping) console.log(`\n${signal}: stopping`);
    void stop(0);
  });
}

try {
  if (!env.DYNAMODB_ENDPOINT) {
    console.log(dataDir ? `Starting DynamoDB Local (data in ${dataDir})…` : 'Starting DynamoDB Local (in memory)…');
    dynamoDb = await startDynamoDbLocal({ dataDir, verbose: values.verbose });
    env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
  }
  // Set before the first handler is imported: shared/config.ts and shared/db read them at load.
  env.TABLE_NAME ||= 'magazines';
  env.AWS_ACCESS_KEY_ID ||= localCredentials.accessKeyId;
  env.AWS_SECRET_ACCESS_KEY ||= localCredentials.secretAccessKey;
  env.AWS_REGION ||= localRegion;
  env.MOCK_ENABLED ||= 'true';

  const client = localDynamoDbClient(env.DYNAMODB_ENDPOINT);
  const table = await ensureTable(client, env.TABLE_NAME);
  client.destroy();
  console.log(`DynamoDB at ${env.DYNAMODB_ENDPOINT}, table ${env.TABLE_NAME} (${table})`);

  server = await startLocalServer({ port, quiet: values.quiet });
  console.log(`Magazine API listening on ${server.url}`);
  console.log(`Try: curl -i '${server.url}/magazines?mock=True'   (Ctrl-C stops the server and DynamoDB Local)`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await stop(1);
}
