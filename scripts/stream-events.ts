import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { localAccountId } from '../local/api-gateway-event';
import { localRegion } from '../local/dynamodb-local';
import { passesFilter } from '../local/stream-reader';
import { attr, FIRST_GENERATION } from '../shared/db/keys';
import { magazineItem } from '../shared/db/magazine-item';
import { tableDefinition } from '../shared/db/table';
import type { Item } from '../shared/db/table-access';
import { ticketPuts } from '../shared/db/tickets';
import { type Magazine, toDraft } from '../shared/domain/magazine';
import { prefixesOf, type StreamTask } from '../shared/operation/row';
import { streamTasks } from '../shared/routes/tasks';

/**
 * The stream tasks' sample events (events/stream/<handler>.json): the items that the sample
 * create-magazine event writes on a fresh table, as the table's stream carries them and each
 * task's event source mapping hands them over, its filter applied (in AWS, a folder's lanes may
 * split them into several batches). Fixed times and tokens, so that `npm run events -- --check`
 * can hold the files to this code, and test/events/ holds them to what the create writes.
 */

export interface StreamSampleSource {
  /** The body of the create-magazine sample. */
  readonly body: { readonly id: string; readonly title: string; readonly tags: readonly { readonly name: string }[] };
  /** Its request's id and time (Unix ms). */
  readonly requestId: string;
  readonly at: number;
}

/** A stream of a table named as CloudFormation names the stack's. */
const STREAM_ARN = `arn:aws:dynamodb:${localRegion}:${localAccountId}:table/MagazineApi-dev-TableCD117FA1-1Q2W3E4R5T6Y/stream/2024-05-01T00:00:00.000`;

/** The magazine and ticket items the create writes (its guard is a condition, no write). */
const itemsWritten = ({ body, requestId, at }: StreamSampleSource): Item[] => {
  const draft = toDraft({ ...body, tags: [...body.tags] });
  const seconds = Math.floor(at / 1000);
  const magazine: Magazine = {
    ...draft,
    id: body.id,
    created: seconds,
    updated: seconds,
    revision: 'c2FtcGxlLXJldmlz',
  };
  const created = magazineItem(FIRST_GENERATION, magazine, 'sample', {
    [attr.writeToken]: 'sample-write-token',
    [attr.requestId]: requestId,
  });
  const tickets = ticketPuts('table', FIRST_GENERATION, undefined, magazine, 'sample-ticket', at).flatMap((item) =>
    'Put' in item && item.Put ? [item.Put.Item as Item] : [],
  );
  return [created, ...tickets];
};

const asRecord = (item: Item, index: number, at: number): DynamoDBRecord => {
  const image = marshall(item, { removeUndefinedValues: true });
  return {
    eventID: `${(index + 1).toString(16).padStart(8, '0')}${'0'.repeat(24)}`,
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: localRegion,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(at / 1000),
      Keys: { PK: image.PK, SK: image.SK },
      NewImage: image,
      SequenceNumber: String(100_000_000_000_000_000_000n + BigInt(index)),
      SizeBytes: Buffer.byteLength(JSON.stringify(image)),
      StreamViewType: tableDefinition.streamView,
    } as DynamoDBRecord['dynamodb'],
    eventSourceARN: STREAM_ARN,
  };
};

/** Each stream task's sample event, by handler module name. */
export const streamEvents = (source: StreamSampleSource): Record<string, DynamoDBStreamEvent> => {
  const records = itemsWritten(source).map((item, index) => asRecord(item, index, source.at));
  return Object.fromEntries(
    (streamTasks as readonly StreamTask[]).map((task) => [
      task.handler,
      {
        Records: records.filter((record) =>
          passesFilter(record as Parameters<typeof passesFilter>[0], prefixesOf(task), task.changes),
        ),
      },
    ]),
  );
};
