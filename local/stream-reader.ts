import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { localCredentials, localRegion } from './dynamodb-local';

/**
 * What Lambda's event source mapping does for a stream function in AWS, on this machine: reads the
 * table's stream (DynamoDB Local keeps one), keeps the records the function's filter lets through,
 * and hands them to the function as one event, again and again while there are new ones.
 */

export interface StreamReader {
  /** Resolves once every record written so far has been handed over and handled. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export interface StreamReaderOptions {
  readonly endpoint: string;
  readonly tableName: string;
  readonly dynamoDbClient: DynamoDBClient;
  /** Only new items whose sort key starts with this (the stream task's filter). */
  readonly newItemsPrefix: string;
  readonly handle: (event: DynamoDBStreamEvent) => Promise<unknown>;
  /** How long to wait after a read that found nothing. */
  readonly idleMs?: number;
  readonly onError?: (error: unknown) => void;
}

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export const startStreamReader = async (options: StreamReaderOptions): Promise<StreamReader> => {
  const { Table } = await options.dynamoDbClient.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream.`);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: localRegion,
    credentials: localCredentials,
  });
  const idleMs = options.idleMs ?? 200;
  /** Open shards, by id: where to read next. */
  const iterators = new Map<string, string | undefined>();
  let stopped = false;
  /** Passes begun so far; a wait for catching up is met by a quiet pass begun after it was asked for. */
  let passes = 0;
  let waiting: { readonly after: number; readonly done: () => void }[] = [];

  const refreshShards = async () => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      if (!id || iterators.has(id)) continue;
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: id, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      iterators.set(id, ShardIterator);
    }
  };

  const wanted = (record: StreamRecord) =>
    record.eventName === 'INSERT' && (record.dynamodb?.Keys?.SK?.S ?? '').startsWith(options.newItemsPrefix);

  /**
   * Records whose handling failed: handed over again before any newer ones, as an event source
   * mapping retries a failed batch (the shard waits), so that a fold that failed is made later
   * and not only when its list is written again.
   */
  let failed: StreamRecord[] = [];
  const handle = async (records: StreamRecord[]) => {
    try {
      await options.handle({ Records: records } as unknown as DynamoDBStreamEvent);
    } catch (error) {
      failed = records;
      throw error;
    }
  };

  /** One pass over the shards: the records found, handed over; whether there were any. */
  const pass = async (): Promise<boolean> => {
    if (failed.length > 0) {
      const again = failed;
      failed = [];
      await handle(again);
      return true;
    }
    await refreshShards();
    const records: StreamRecord[] = [];
    let read = 0;
    for (const [id, iterator] of iterators) {
      if (!iterator) continue;
      const result = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      read += result.Records?.length ?? 0;
      records.push(...(result.Records ?? []).filter(wanted));
      iterators.set(id, result.NextShardIterator);
    }
    if (records.length > 0) await handle(records);
    return read > 0;
  };

  const loop = (async () => {
    while (!stopped) {
      const number = ++passes;
      let busy = true;
      try {
        busy = await pass();
      } catch (error) {
        options.onError?.(error);
        await delay(idleMs);
      }
      if (!busy) {
        for (const wait of waiting) if (wait.after < number) wait.done();
        waiting = waiting.filter((wait) => wait.after >= number);
      }
      await delay(busy ? 0 : idleMs);
    }
  })();

  return {
    caughtUp: () => new Promise<void>((done) => waiting.push({ after: passes, done })),
    stop: async () => {
      stopped = true;
      await loop;
      for (const wait of waiting) wait.done();
      streams.destroy();
    },
  };
};
