import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { localCredentials, localRegion } from './dynamodb-local';

/**
 * What Lambda's event source mapping does for a stream function in AWS, on this machine: reads the
 * table's stream (DynamoDB Local keeps one), keeps the records the function's filter lets through,
 * and hands them to the function in batches, again and again while there are new ones.
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
  /** Only items whose sort key starts with one of these (the stream task's filter). */
  readonly prefixes: readonly string[];
  /** The kinds of change handed over; new items only unless given. */
  readonly changes?: readonly string[];
  readonly handle: (event: DynamoDBStreamEvent) => Promise<unknown>;
  /** How long to wait after a read that found nothing. */
  readonly idleMs?: number;
  /** Batches handed over at once, by partition key (the task's `parallelization`); 1 unless given. */
  readonly parallelization?: number;
  /** Records in one batch at most (the task's `batchSize`); 1,000 unless given. */
  readonly batchSize?: number;
  /** Lanes handing a batch over at the same time, at most (all of them unless given). */
  readonly concurrency?: number;
  readonly onError?: (error: unknown) => void;
}

/** Whether the stream task's filter lets a record through: its kind of change (new items only unless given) and sort key. */
export const passesFilter = (
  record: StreamRecord,
  prefixes: readonly string[],
  changes: readonly string[] = ['INSERT'],
) =>
  changes.includes(record.eventName ?? '') &&
  prefixes.some((prefix) => (record.dynamodb?.Keys?.SK?.S ?? '').startsWith(prefix));

/** The lane of `lanes` a record goes to: always the same for one partition key, so a list's changes stay in order. */
export const laneIndex = (record: StreamRecord, lanes: number) => {
  const key = record.dynamodb?.Keys?.PK?.S ?? '';
  let hash = 0;
  for (let index = 0; index < key.length; index++) hash = (Math.imul(hash, 31) + key.charCodeAt(index)) >>> 0;
  return hash % lanes;
};

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * A record as Lambda hands it over: the SDK reads a record's creation time as a Date, Lambda's
 * event carries it in seconds (change events' `occurredAt` read a Date as seconds: the year 58,000).
 */
const asLambdaRecord = (record: StreamRecord) => {
  const created: unknown = record.dynamodb?.ApproximateCreationDateTime;
  return created instanceof Date
    ? { ...record, dynamodb: { ...record.dynamodb, ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) } }
    : record;
};

/** Records one read of a shard returns at most. */
const READ_LIMIT = 1000;

/**
 * A table's stream, read as a consumer reads it: each shard from its start (TRIM_HORIZON), each
 * read going on where the last one stopped, new shards picked up as they appear.
 */
export const openStream = async (options: {
  readonly endpoint: string;
  readonly tableName: string;
  readonly dynamoDbClient: DynamoDBClient;
}) => {
  const { Table } = await options.dynamoDbClient.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream.`);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: localRegion,
    credentials: localCredentials,
  });
  /** Open shards, by id: where to read next. */
  const iterators = new Map<string, string | undefined>();
  /** The last record read of each shard: where a consumer resumes, as an event source mapping checkpoints. */
  const lastRead = new Map<string, string>();
  const iteratorOf = async (id: string, after: string | undefined) => {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: id,
        ...(after
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return ShardIterator;
  };
  const refreshShards = async () => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId;
      if (!id || iterators.has(id)) continue;
      iterators.set(id, await iteratorOf(id, lastRead.get(id)));
    }
  };
  /**
   * One read of a shard. An iterator DynamoDB Local no longer honours (trimmed or expired, as it
   * answers while several tables' streams are read at once) is taken again after the last record
   * read: read on, it failed again and again and no record was ever handed over.
   */
  const dropped = (error: unknown) =>
    ['TrimmedDataAccessException', 'ExpiredIteratorException'].includes((error as Error).name);
  const records = (iterator: string) =>
    streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: READ_LIMIT }));
  const getRecords = async (id: string, iterator: string): Promise<GetRecordsCommandOutput | undefined> => {
    try {
      return await records(iterator);
    } catch (error) {
      if (!dropped(error)) throw error;
    }
    // After the last record read; from the shard's oldest record when that one is gone too.
    for (const after of [lastRead.get(id), undefined]) {
      try {
        const again = await iteratorOf(id, after);
        return again ? await records(again) : undefined;
      } catch (error) {
        if (!dropped(error) || after === undefined) throw error;
      }
    }
    return undefined;
  };
  return {
    /** The records written since the last read: a batch of each shard, or with `drain` all of them. */
    read: async (drain = false): Promise<StreamRecord[]> => {
      await refreshShards();
      const records: StreamRecord[] = [];
      for (const [id, first] of iterators) {
        for (let iterator = first; iterator; ) {
          const result = await getRecords(id, iterator);
          records.push(...(result?.Records ?? []));
          const last = result?.Records?.at(-1)?.dynamodb?.SequenceNumber;
          if (last) lastRead.set(id, last);
          iterators.set(id, result?.NextShardIterator);
          iterator = drain && result?.Records?.length ? result.NextShardIterator : undefined;
        }
      }
      return records;
    },
    close: () => streams.destroy(),
  };
};

export const startStreamReader = async (options: StreamReaderOptions): Promise<StreamReader> => {
  const stream = await openStream(options);
  const idleMs = options.idleMs ?? 200;
  const batchSize = options.batchSize ?? 1000;
  let stopped = false;
  /** Passes begun so far; a wait for catching up is met by a quiet pass begun after it was asked for. */
  let passes = 0;
  let waiting: { readonly after: number; readonly done: () => void }[] = [];

  const wanted = (record: StreamRecord) => passesFilter(record, options.prefixes, options.changes);

  /**
   * The event source mapping's concurrent batches of one shard: each record goes to the lane of
   * its partition key, and each lane hands its records over in order, one batch at a time, while
   * the others carry on. A batch whose handling failed stays first in its lane and is handed over
   * again (the lane waits), so a fold that failed is made later, not only when its list is
   * written again.
   */
  const lanes = Array.from({ length: Math.max(1, options.parallelization ?? 1) }, () => ({
    queue: [] as StreamRecord[],
    running: undefined as Promise<void> | undefined,
  }));
  type Lane = (typeof lanes)[number];
  const laneOf = (record: StreamRecord): Lane => lanes[laneIndex(record, lanes.length)] as Lane;
  // At most this many lanes hand batches over at once: one machine's DynamoDB Local, not AWS's.
  // A lane gives its turn up after each batch, and the lane with the most waiting goes next, so a
  // busy list is never left behind lanes that keep receiving records.
  const most = Math.max(1, options.concurrency ?? lanes.length);
  const running = () => lanes.filter((lane) => lane.running !== undefined).length;
  const kick = () => {
    const waiting = lanes
      .filter((lane) => lane.running === undefined && lane.queue.length > 0)
      .sort((a, b) => b.queue.length - a.queue.length);
    for (const lane of waiting) {
      if (stopped || running() >= most) return;
      lane.running = (async () => {
        const batch = lane.queue.slice(0, batchSize);
        try {
          await options.handle({ Records: batch.map(asLambdaRecord) } as unknown as DynamoDBStreamEvent);
          lane.queue.splice(0, batch.length);
        } catch (error) {
          options.onError?.(error);
          await delay(idleMs);
        }
        lane.running = undefined;
        kick();
      })();
    }
  };
  const idle = () => lanes.every((lane) => lane.running === undefined && lane.queue.length === 0);

  /** One read of the shards: the records found, queued in their lanes; whether there were any. */
  const pass = async (): Promise<boolean> => {
    // A lane far behind holds the reading back, as a shard's batches wait for their handler.
    const behind = lanes.find((lane) => lane.queue.length >= 5 * batchSize);
    if (behind?.running) await behind.running;
    const records = await stream.read();
    for (const record of records.filter(wanted)) laneOf(record).queue.push(record);
    kick();
    return records.length > 0;
  };

  const loop = (async () => {
    while (!stopped) {
      const number = ++passes;
      let busy = true;
      try {
        busy = await pass();
      } catch (error) {
        options.onError?.(error);
      }
      if (!busy && idle()) {
        for (const wait of waiting) if (wait.after < number) wait.done();
        waiting = waiting.filter((wait) => wait.after >= number);
      }
      await delay(busy ? 0 : idleMs);
    }
    await Promise.all(lanes.map((lane) => lane.running));
  })();

  return {
    caughtUp: () => new Promise<void>((done) => waiting.push({ after: passes, done })),
    stop: async () => {
      stopped = true;
      await loop;
      for (const wait of waiting) wait.done();
      stream.close();
    },
  };
};
