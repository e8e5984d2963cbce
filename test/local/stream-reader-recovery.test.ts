import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { openStream } from '../../local/stream-reader';

/**
 * DynamoDB Local answers TrimmedDataAccessException to an iterator it no longer honours while
 * several tables' streams are read at once (test files run in parallel): the reader must take the
 * shard again after the last record it read, as an event source mapping resumes from its checkpoint.
 */
const tables = mockClient(DynamoDBClient);
const streams = mockClient(DynamoDBStreamsClient);
afterEach(() => {
  tables.reset();
  streams.reset();
});

const record = (sequence: string) => ({ eventName: 'INSERT' as const, dynamodb: { SequenceNumber: sequence } });

describe('the local stream reader, when DynamoDB Local drops its iterator', () => {
  it('reads on after the last record it read, neither losing nor repeating one', async () => {
    tables.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: 'arn:stream' } });
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
    streams
      .on(GetShardIteratorCommand, { ShardIteratorType: 'TRIM_HORIZON' })
      .resolves({ ShardIterator: 'from-start' })
      .on(GetShardIteratorCommand, { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '100' })
      .resolves({ ShardIterator: 'after-100' });
    streams
      .on(GetRecordsCommand, { ShardIterator: 'from-start' })
      .resolves({ Records: [record('100')], NextShardIterator: 'dropped' })
      .on(GetRecordsCommand, { ShardIterator: 'dropped' })
      .rejects(new TrimmedDataAccessException({ message: 'past the oldest stream record', $metadata: {} }))
      .on(GetRecordsCommand, { ShardIterator: 'after-100' })
      .resolves({ Records: [record('101')], NextShardIterator: 'next' })
      .on(GetRecordsCommand, { ShardIterator: 'next' })
      .resolves({ Records: [], NextShardIterator: 'next' });

    const stream = await openStream({
      endpoint: 'http://127.0.0.1:1',
      tableName: 't',
      dynamoDbClient: new DynamoDBClient({}),
    });
    try {
      const sequences = async () => (await stream.read()).map((r) => r.dynamodb?.SequenceNumber);
      expect(await sequences()).toEqual(['100']);
      expect(await sequences()).toEqual(['101']);
      expect(await sequences()).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('reads the shard from its oldest record when even the last one it read is gone', async () => {
    tables.on(DescribeTableCommand).resolves({ Table: { LatestStreamArn: 'arn:stream' } });
    streams.on(DescribeStreamCommand).resolves({ StreamDescription: { Shards: [{ ShardId: 'shard-1' }] } });
    const trimmed = new TrimmedDataAccessException({ message: 'past the oldest stream record', $metadata: {} });
    streams
      .on(GetShardIteratorCommand, { ShardIteratorType: 'TRIM_HORIZON' })
      .resolvesOnce({ ShardIterator: 'from-start' })
      .resolves({ ShardIterator: 'from-oldest' })
      .on(GetShardIteratorCommand, { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' })
      .rejects(trimmed);
    streams
      .on(GetRecordsCommand, { ShardIterator: 'from-start' })
      .resolves({ Records: [record('100')], NextShardIterator: 'dropped' })
      .on(GetRecordsCommand, { ShardIterator: 'dropped' })
      .rejects(trimmed)
      .on(GetRecordsCommand, { ShardIterator: 'from-oldest' })
      .resolves({ Records: [record('205')], NextShardIterator: 'next' });

    const stream = await openStream({
      endpoint: 'http://127.0.0.1:1',
      tableName: 't',
      dynamoDbClient: new DynamoDBClient({}),
    });
    try {
      expect((await stream.read()).map((r) => r.dynamodb?.SequenceNumber)).toEqual(['100']);
      expect((await stream.read()).map((r) => r.dynamodb?.SequenceNumber)).toEqual(['205']);
    } finally {
      stream.close();
    }
  });
});
