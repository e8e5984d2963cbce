/**
 * `npm run invoke -- <operation> [event-file] [--endpoint URL]`: what `sam local invoke` does,
 * without Docker. Runs one function's handler in this process on an event and prints its response.
 *
 * `<operation>` is a handler module (`get-magazine`) or an operation id (`getMagazine`); the event
 * defaults to its sample (`eventFileOf`): an API Gateway proxy event, the janitor's scheduled
 * event, or a stream task's batch, the publisher's put on a bus of this machine and printed. The
 * table is DynamoDB at `--endpoint` or `DYNAMODB_ENDPOINT` when set, else a DynamoDB Local started
 * (and stopped) for this call; the table is `TABLE_NAME` (default `magazines`), created when
 * missing. It never reaches AWS: see local/environment.ts.
 */

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { APIGatewayProxyEvent, DynamoDBStreamEvent } from 'aws-lambda';
import { prepareLocalEnvironment } from '../local/environment';
import { type LocalEventBus, startLocalEventBus } from '../local/event-bus';
import { lambdaContext } from '../local/lambda-context';
import { sourceHandlers } from '../local/load-handler';
import { functionNames, operations, timeoutSecondsOf } from '../shared/routes/table';
import { scheduledTaskOfHandler, streamTaskOfHandler } from '../shared/routes/tasks';
import { eventFileOf, sampleBaseUrl } from './make-events';
import { nearest, readCommandLine, refuse } from './support/cli';

export const resolveHandler = (name: string): string | undefined => {
  if (functionNames().includes(name)) return name;
  return operations.find((operation) => operation.id === name)?.handler;
};

const readJson = (file: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
};

const refuseUnless = (file: string, kind: string, problems: readonly (string | false)[]) => {
  const found = problems.filter(Boolean);
  if (found.length > 0)
    throw new Error(`${file} is not ${kind}: ${found.join('; ')}. The files in events/ are examples.`);
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The event file, refused with the reason when it is not an API Gateway REST proxy event. */
export const readEvent = (file: string): APIGatewayProxyEvent => {
  const event = readJson(file);
  const fields = event as Partial<Record<keyof APIGatewayProxyEvent, unknown>> | null;
  refuseUnless(file, 'an API Gateway REST (v1) proxy event', [
    !isObject(fields) && 'it is not a JSON object',
    typeof fields?.httpMethod !== 'string' && '`httpMethod` is not a string',
    typeof fields?.path !== 'string' && '`path` is not a string',
    !isObject(fields?.requestContext) && '`requestContext` is missing',
    fields?.headers !== null && typeof fields?.headers !== 'object' && '`headers` is neither an object nor null',
  ]);
  return event as APIGatewayProxyEvent;
};

/** The event file of a stream task, refused with the reason when it is not a batch of DynamoDB stream records. */
export const readStreamEvent = (file: string): DynamoDBStreamEvent => {
  const event = readJson(file);
  const records = isObject(event) ? event.Records : undefined;
  // The keys as the stream writes them, typed (`{"S": …}`): plain ones would name no list and no magazine, silently.
  const keyed = (record: unknown) =>
    isObject(record) &&
    typeof record.eventName === 'string' &&
    isObject(record.dynamodb) &&
    isObject(record.dynamodb.Keys) &&
    ['PK', 'SK'].every((name) => {
      const key = (record.dynamodb as { Keys: Record<string, unknown> }).Keys[name];
      return isObject(key) && typeof key.S === 'string';
    });
  refuseUnless(file, "a DynamoDB stream event (a batch of the table's stream)", [
    !Array.isArray(records) && '`Records` is not an array',
    Array.isArray(records) && records.length === 0 && '`Records` is empty (Lambda never hands over an empty batch)',
    ...(Array.isArray(records) ? records : []).map(
      (record: unknown, index) =>
        !keyed(record) &&
        `\`Records[${index}]\` has no \`eventName\`, or no \`dynamodb.Keys\` with \`PK\` and \`SK\` as \`{"S": …}\``,
    ),
  ]);
  return event as DynamoDBStreamEvent;
};

/**
 * The event a function takes, as its trigger hands it over, and its invocation's request id: a
 * scheduled task EventBridge's event as it is (its id), a stream task a batch of the stream (Lambda
 * makes one up), an operation an API Gateway proxy event (API Gateway's).
 */
const invocationOf = (handler: string, file: string): { readonly event: unknown; readonly requestId: string } => {
  if (scheduledTaskOfHandler(handler)) {
    const event = readJson(file) as { id?: unknown };
    return { event, requestId: String(event.id) };
  }
  if (streamTaskOfHandler(handler)) return { event: readStreamEvent(file), requestId: randomUUID() };
  const event = readEvent(file);
  return { event, requestId: event.requestContext.requestId };
};

const usage = () => `Usage: npm run invoke -- <function> [event-file] [--endpoint URL]

Runs one function's handler in this process on an event, as \`sam local invoke\` does without
Docker, and prints its response. <function> is a handler module (get-magazine) or an operation id
(getMagazine); the event defaults to events/<function>.json (events/scheduled/ for the janitor,
events/stream/ for the stream's folder and publisher: the publisher's change events are printed).

Options:
  --endpoint URL   the DynamoDB to use, such as the DynamoDB Local of a running \`npm start\`
                   (it prints "DynamoDB at URL")     [DYNAMODB_ENDPOINT, else one started for this call]
  --help           this text; runs nothing

Functions: ${functionNames().join(', ')}
`;

const main = async () => {
  const { values, positionals } = readCommandLine({
    command: 'npm run invoke',
    usage: usage(),
    options: { endpoint: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    positionals: 2,
  });
  const [name, eventArgument] = positionals;
  if (!name) return refuse('npm run invoke', 'name the function to invoke', usage());
  const handler = resolveHandler(name);
  if (!handler) {
    const guess = nearest(name, [...functionNames(), ...operations.map((operation) => operation.id)]);
    return refuse('npm run invoke', `no function ${name}${guess ? `; did you mean ${guess}?` : ''}`, usage());
  }
  const streamTask = streamTaskOfHandler(handler);
  // npm runs scripts from the project root; a path the user typed is relative to where they typed it.
  const eventFile = eventArgument
    ? path.resolve(process.env.INIT_CWD ?? process.cwd(), eventArgument)
    : eventFileOf(handler);
  if (!existsSync(eventFile)) throw new Error(`No event file at ${eventFile}; run \`npm run events\`.`);
  const { event, requestId } = invocationOf(handler, eventFile);

  const environment = await prepareLocalEnvironment({ endpoint: values.endpoint });
  let eventBus: LocalEventBus | undefined;
  try {
    // The publisher reads where its bus is when its module loads: a bus of this machine, here for the call.
    eventBus = streamTask?.publishes ? await startLocalEventBus() : undefined;
    // Its links point where the stack points them (the API's URL): here the API the sample events came in to.
    if (eventBus)
      Object.assign(process.env, {
        EVENT_BUS_NAME: eventBus.busName,
        EVENTBRIDGE_ENDPOINT: eventBus.endpoint,
        EVENTS_BASE_URL: process.env.EVENTS_BASE_URL || sampleBaseUrl,
      });
    const run = await sourceHandlers(environment)(handler);
    const response = await run(
      event as APIGatewayProxyEvent,
      lambdaContext(handler, requestId, { timeoutMs: timeoutSecondsOf(handler) * 1000 }),
    );
    process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    if (eventBus)
      process.stderr.write(
        `Put on the event bus (${eventBus.events.length}):\n${eventBus.events.map((put) => JSON.stringify(put)).join('\n')}\n`,
      );
  } finally {
    await eventBus?.stop();
    await environment.stop();
  }
};

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    process.stderr.write(`npm run invoke: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
