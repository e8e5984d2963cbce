/**
 * `npm run invoke -- <operation> [event-file]`: what `sam local invoke` does, without Docker. Runs
 * one function's handler in this process on an API Gateway event and prints its response.
 *
 * `<operation>` is a handler module (`get-magazine`) or an operation id (`getMagazine`); the event
 * defaults to `events/<handler>.json`. The table is DynamoDB at `DYNAMODB_ENDPOINT` when set, else
 * a DynamoDB Local started (and stopped) for this call; `TABLE_NAME` defaults to `magazines`.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, Handler } from 'aws-lambda';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { localCredentials, localDynamoDbClient, localRegion, startDynamoDbLocal, type DynamoDbLocal } from '../local/dynamodb-local';
import { ensureTable } from '../local/ensure-table';
import { expandRoutes, operations } from '../shared/routes';

const root = path.resolve(import.meta.dirname, '..');

export const resolveHandler = (name: string): string | undefined => {
  const handlers = new Set(expandRoutes().map((route) => route.handler));
  if (handlers.has(name)) return name;
  return operations.find((operation) => operation.id === name)?.handler;
};

export const lambdaContext = (functionName: string, requestId: string, timeoutMs = 10_000): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${localRegion}:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

/** Imports the handler after the environment is set: modules read their config when loaded. */
export const loadHandler = async (handler: string) => {
  const module = (await import(pathToFileURL(path.join(root, 'functions', `${handler}.ts`)).href)) as {
    handler: Handler<APIGatewayProxyEvent, APIGatewayProxyResult>;
  };
  return module.handler;
};

const main = async () => {
  const [name, eventArgument] = process.argv.slice(2);
  const handler = name ? resolveHandler(name) : undefined;
  if (!name || !handler) {
    process.stderr.write(`Usage: npm run invoke -- <operation> [event-file]\nOperations: ${[...new Set(expandRoutes().map((r) => r.handler))].join(', ')}\n`);
    process.exit(2);
  }
  const eventFile = path.resolve(eventArgument ?? path.join(root, 'events', `${handler}.json`));
  if (!existsSync(eventFile)) throw new Error(`No event file at ${eventFile}; run \`npm run events\`.`);
  const event = JSON.parse(readFileSync(eventFile, 'utf8')) as APIGatewayProxyEvent;

  const access = operations.find((operation) => operation.handler === handler)?.access ?? 'none';
  let dynamoDb: DynamoDbLocal | undefined;
  process.env.TABLE_NAME ||= 'magazines';
  process.env.AWS_REGION ||= localRegion;
  if (access !== 'none') {
    if (!process.env.DYNAMODB_ENDPOINT) {
      dynamoDb = await startDynamoDbLocal();
      process.env.DYNAMODB_ENDPOINT = dynamoDb.endpoint;
    }
    process.env.AWS_ACCESS_KEY_ID ||= localCredentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY ||= localCredentials.secretAccessKey;
    await ensureTable(localDynamoDbClient(process.env.DYNAMODB_ENDPOINT), process.env.TABLE_NAME);
  }
  try {
    const run = await loadHandler(handler);
    const response = await run(event, lambdaContext(handler, event.requestContext.requestId), () => undefined);
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
  } finally {
    await dynamoDb?.stop();
  }
};

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
