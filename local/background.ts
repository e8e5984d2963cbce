import { randomUUID } from 'node:crypto';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { prefixesOf, type StreamTask } from '../shared/operation/row';
import { timeoutSecondsOf } from '../shared/routes/table';
import { streamTasks } from '../shared/routes/tasks';
import { localDynamoDbClient } from './dynamodb-local';
import type { LocalEnvironment } from './environment';
import { type LocalEventBus, startLocalEventBus } from './event-bus';
import { lambdaContext } from './lambda-context';
import type { HandlerLoader } from './load-handler';
import { type StreamReader, startStreamReader } from './stream-reader';

/**
 * The functions no route serves that run by themselves in AWS, run here too: each stream task on
 * the table's stream, as its event source mapping runs it. (The janitor's schedule is not kept
 * here: `npm run invoke -- sweep-garbage` runs it.)
 */
export interface BackgroundTasks {
  /** The bus the change events go to, when a stream task publishes them. */
  readonly eventBus: LocalEventBus | undefined;
  /** Resolves once every change written so far has been handled by the stream tasks. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export const startBackgroundTasks = async (
  environment: LocalEnvironment,
  handlers: HandlerLoader,
  options: {
    readonly onError?: (task: string, error: unknown) => void;
    /** The API's address, which the change events' links start with. */
    readonly baseUrl?: string;
    /** Only these stream tasks (by handler); all unless given. */
    readonly tasks?: readonly string[];
  } = {},
): Promise<BackgroundTasks> => {
  const client = localDynamoDbClient(environment.endpoint);
  const readers: StreamReader[] = [];
  const tasks = (streamTasks as readonly StreamTask[]).filter(
    (task) => options.tasks === undefined || options.tasks.includes(task.handler),
  );
  // The publisher reads where its bus is when its module loads: the bus comes first.
  const eventBus = tasks.some((task) => task.publishes) ? await startLocalEventBus() : undefined;
  if (eventBus) {
    process.env.EVENT_BUS_NAME = eventBus.busName;
    process.env.EVENTBRIDGE_ENDPOINT = eventBus.endpoint;
    if (options.baseUrl) process.env.EVENTS_BASE_URL = options.baseUrl;
  }
  for (const task of tasks) {
    const handler = (await handlers(task.handler)) as unknown as (
      event: DynamoDBStreamEvent,
      context: Context,
    ) => Promise<unknown>;
    readers.push(
      await startStreamReader({
        endpoint: environment.endpoint,
        tableName: environment.tableName,
        dynamoDbClient: client,
        prefixes: prefixesOf(task),
        ...(task.changes && { changes: task.changes }),
        parallelization: task.parallelization,
        batchSize: task.batchSize,
        // In AWS each lane is a Lambda of its own; here they share one DynamoDB Local, and four at
        // once keep its other callers answered (the full test suite timed out beside ten).
        concurrency: Math.min(task.parallelization, 4),
        handle: (event) =>
          handler(
            event,
            lambdaContext(task.handler, randomUUID(), { timeoutMs: timeoutSecondsOf(task.handler) * 1000 }),
          ),
        onError: (error) => options.onError?.(task.handler, error),
      }),
    );
  }
  return {
    eventBus,
    caughtUp: async () => {
      await Promise.all(readers.map((reader) => reader.caughtUp()));
    },
    stop: async () => {
      await Promise.all(readers.map((reader) => reader.stop()));
      await eventBus?.stop();
      client.destroy();
    },
  };
};
