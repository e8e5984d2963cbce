import { randomUUID } from 'node:crypto';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { prefixesOf, type StreamTask } from '../shared/operation/row';
import { streamTasks, timeoutSecondsOf } from '../shared/routes/table';
import { localDynamoDbClient } from './dynamodb-local';
import type { LocalEnvironment } from './environment';
import { lambdaContext } from './lambda-context';
import type { HandlerLoader } from './load-handler';
import { type StreamReader, startStreamReader } from './stream-reader';

/**
 * The functions no route serves that run by themselves in AWS, run here too: each stream task on
 * the table's stream, as its event source mapping runs it. (The janitor's schedule is not kept
 * here: `npm run invoke -- sweep-garbage` runs it.)
 */
export interface BackgroundTasks {
  /** Resolves once every change written so far has been handled by the stream tasks. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export const startBackgroundTasks = async (
  environment: LocalEnvironment,
  handlers: HandlerLoader,
  options: { readonly onError?: (task: string, error: unknown) => void } = {},
): Promise<BackgroundTasks> => {
  const client = localDynamoDbClient(environment.endpoint);
  const readers: StreamReader[] = [];
  for (const task of streamTasks as readonly StreamTask[]) {
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
    caughtUp: async () => {
      await Promise.all(readers.map((reader) => reader.caughtUp()));
    },
    stop: async () => {
      await Promise.all(readers.map((reader) => reader.stop()));
      client.destroy();
    },
  };
};
