/**
 * What the table's stream becomes for others: one change event per committed change, and none for
 * anything else. A pure mapping (records in, events out), so a redelivered batch gives the same
 * events with the same ids, and the stream function, the local server and the tests share it.
 *
 * Which records are changes, and why:
 * - A magazine item INSERTed by a request (it carries a write token; a bulk write's new generation
 *   carries none) is `MagazineCreated`.
 * - A magazine MODIFY that changed its revision is `MagazineReplaced`; one that took the next
 *   article number is `ArticleAdded` (the article is read by its key: the magazine's partition
 *   keeps the magazine's events in commit order, which the article's own partition would not).
 * - A deletion note's INSERT is `MagazineDeleted` (the magazine's REMOVE is ignored: a generation
 *   swept after a bulk write removes magazines too, and a REMOVE cannot say who asked).
 * - The first head replica's switch to another generation is `CollectionReplaced`, or
 *   `CollectionDeleted` when the new generation is empty: one event, not one per magazine.
 * Everything else (guards, tickets, counts, blocks, trash, idempotency keys, bulk records, the
 * other head replicas, a deletion's closing mark, time-to-live removals) is bookkeeping.
 */
import { createHash } from 'node:crypto';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { decodeArticle, decodeMagazine } from '../db/items';
import { articleKey, attr, DELETION_PREFIX, headKey, type Key } from '../db/keys';
import type { Item } from '../db/table-access';
import type { Links } from '../http/links';
import { toArticleRepresentation } from '../http/representations/article';
import { toMagazineRepresentation } from '../http/representations/magazine';
import type { ArticleRepresentation, MagazineRepresentation } from '../http/representations/schemas';
import type { ChangeEventName } from './names';

export { type ChangeEventName, changeEventNames, EVENT_SOURCE } from './names';

interface Envelope {
  /** The same for every delivery of the same change: made from the change, never from the delivery. */
  readonly eventId: string;
  /** RFC 3339: when the table recorded the change. */
  readonly occurredAt: string;
  /** The id of the request that made the change (`x-amzn-RequestId`). */
  readonly requestId: string;
  /** The stream's sequence number of the change: increasing along one magazine's changes, for a consumer that must reorder. */
  readonly sequence: string;
}

export type ChangeDetail =
  | (Envelope & { readonly magazineId: string; readonly magazine: MagazineRepresentation; readonly revision: string })
  | (Envelope & { readonly magazineId: string; readonly deleted: { readonly id: string; readonly revision: string } })
  | (Envelope & { readonly magazineId: string; readonly article: ArticleRepresentation | { readonly id: string } })
  | (Envelope & {
      readonly collection: { readonly count: number; readonly href: string; readonly generation: string };
    })
  | Envelope;

export interface ChangeEvent {
  readonly type: ChangeEventName;
  readonly detail: ChangeDetail;
}

const keyText = (key: Key) => `${key.PK}\u0000${key.SK}`;

/** A UUID-shaped digest of what identifies a change. */
const eventId = (...parts: string[]) => {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

const imageOf = (image: unknown): Item | undefined =>
  image === undefined ? undefined : (unmarshall(image as Parameters<typeof unmarshall>[0]) as Item);

const isMagazinePartition = (pk: string) => /^G#[^#]+#MAG#/.test(pk);
const FIRST_HEAD = headKey(0);

/** Keys of the articles a batch's `ArticleAdded` events show: the caller reads them before `eventsOf`. */
export const articleKeysOf = (records: readonly DynamoDBRecord[]): Key[] =>
  records.flatMap((record) => {
    const added = articleAddition(record);
    return added ? [articleKey(added.incarnation, added.seq)] : [];
  });

const articleAddition = (record: DynamoDBRecord) => {
  if (record.eventName !== 'MODIFY') return undefined;
  const keys = record.dynamodb?.Keys;
  if (keys?.SK?.S !== 'MAGAZINE' || !isMagazinePartition(keys.PK?.S ?? '')) return undefined;
  const before = imageOf(record.dynamodb?.OldImage);
  const after = imageOf(record.dynamodb?.NewImage);
  if (!before || !after) return undefined;
  const seq = Number(after[attr.articles] ?? 0);
  if (seq !== Number(before[attr.articles] ?? 0) + 1) return undefined;
  return { incarnation: String(after[attr.incarnation]), seq, after };
};

export interface EventsOptions {
  readonly links: Links;
  /** The articles named by `articleKeysOf`, as read (absent if gone since). */
  readonly articles?: ReadonlyMap<string, Item>;
}

export const articleLookupKey = keyText;

/** The change events of a batch of stream records, in the batch's order. */
export const eventsOf = (records: readonly DynamoDBRecord[], options: EventsOptions): ChangeEvent[] =>
  records.flatMap((record) => {
    const event = eventOf(record, options);
    return event ? [event] : [];
  });

/**
 * When the change was committed: Lambda hands over seconds; a batch replayed by hand from
 * `aws dynamodbstreams get-records` (AWS CLI v2's default) carries ISO text, and seconds may come as text.
 */
const occurredAt = (created: number | string | undefined) =>
  new Date(
    typeof created === 'string' && !/^\d+(\.\d+)?$/.test(created) ? created : Number(created ?? 0) * 1000,
  ).toISOString();

const eventOf = (record: DynamoDBRecord, options: EventsOptions): ChangeEvent | undefined => {
  const stream = record.dynamodb;
  const pk = stream?.Keys?.PK?.S;
  const sk = stream?.Keys?.SK?.S;
  if (!stream || pk === undefined || sk === undefined) return undefined;
  const envelope = (id: string, requestId: unknown) => ({
    eventId: id,
    occurredAt: occurredAt(stream.ApproximateCreationDateTime),
    requestId: typeof requestId === 'string' ? requestId : 'none',
    sequence: stream.SequenceNumber ?? '',
  });
  const after = imageOf(stream.NewImage);
  const before = imageOf(stream.OldImage);

  if (pk === FIRST_HEAD.PK && sk === FIRST_HEAD.SK) {
    const generation = after?.[attr.generation];
    if (typeof generation !== 'string' || generation === before?.[attr.generation]) return undefined;
    const count = Number(after?.[attr.members] ?? 0);
    const base = envelope(eventId('Collection', generation), after?.[attr.requestId]);
    return count === 0
      ? { type: 'CollectionDeleted', detail: base }
      : {
          type: 'CollectionReplaced',
          detail: { ...base, collection: { count, generation, href: options.links.to('/magazines') } },
        };
  }
  if (!isMagazinePartition(pk)) return undefined;

  if (sk.startsWith(DELETION_PREFIX)) {
    if (record.eventName !== 'INSERT' || !after) return undefined;
    const id = String(after[attr.id]);
    const revision = String(after[attr.revision]);
    return {
      type: 'MagazineDeleted',
      detail: {
        ...envelope(eventId('MagazineDeleted', sk, id), after[attr.requestId]),
        magazineId: id,
        deleted: { id, revision },
      },
    };
  }
  if (sk !== 'MAGAZINE' || !after) return undefined;

  const added = articleAddition(record);
  if (added) {
    const { magazine } = decodeMagazine(after);
    const key = articleKey(added.incarnation, added.seq);
    const stored = options.articles?.get(keyText(key));
    const { writeToken: _, ...article } = stored ? decodeArticle(stored) : { writeToken: undefined };
    return {
      type: 'ArticleAdded',
      detail: {
        ...envelope(eventId('ArticleAdded', key.PK, key.SK), after[attr.requestId]),
        magazineId: magazine.id,
        article:
          'id' in article
            ? toArticleRepresentation(article)
            : { id: `${magazine.id}~${added.incarnation}~${added.seq}` },
      },
    };
  }

  const { magazine, incarnation } = decodeMagazine(after);
  const shown = (type: 'MagazineCreated' | 'MagazineReplaced'): ChangeEvent => ({
    type,
    detail: {
      ...envelope(eventId(type, incarnation, magazine.revision), after[attr.requestId]),
      magazineId: magazine.id,
      revision: magazine.revision,
      magazine: toMagazineRepresentation(options.links, magazine),
    },
  });
  if (record.eventName === 'INSERT') return after[attr.writeToken] === undefined ? undefined : shown('MagazineCreated');
  if (record.eventName === 'MODIFY' && before && before[attr.revision] !== after[attr.revision])
    return shown('MagazineReplaced');
  return undefined;
};
