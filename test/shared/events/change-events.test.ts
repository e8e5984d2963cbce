import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  articleKey,
  deletionKey,
  guardKey,
  headKey,
  idempotencyKey,
  type Key,
  magazineKey,
  ticketKey,
  trashKey,
} from '../../../shared/db/keys';
import { articleKeysOf, articleLookupKey, eventsOf } from '../../../shared/events/change-events';
import { linksAt } from '../../../shared/http/links';

const links = linksAt('https://api.example.com');
let sequence = 100;

type Image = Record<string, unknown>;
const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  key: Key,
  images: { before?: Image; after?: Image },
): DynamoDBRecord => ({
  eventID: `e${sequence}`,
  eventName,
  dynamodb: {
    Keys: marshall(key) as never,
    ...(images.before && {
      OldImage: marshall({ ...key, ...images.before }, { removeUndefinedValues: true }) as never,
    }),
    ...(images.after && { NewImage: marshall({ ...key, ...images.after }, { removeUndefinedValues: true }) as never }),
    ApproximateCreationDateTime: 1_750_000_000,
    SequenceNumber: String(sequence++),
  },
});

const magazine = (revision: string, extra: Image = {}): Image => ({
  id: 'm1',
  title: `Title ${revision}`,
  tags: [{ id: 'go', name: 'Go' }],
  created: 1_700_000_000,
  updated: 1_700_000_100,
  revision,
  incarnation: 'inc1',
  articles: 0,
  ...extra,
});
const mag = magazineKey('0', 'm1');

describe('eventsOf', () => {
  it('reads the commit time as Lambda hands it over (seconds), as a replay by AWS CLI v2 prints it (ISO text), and as seconds in text', () => {
    const inserted = record('INSERT', mag, { after: magazine('r1', { writeToken: 't', requestId: 'req-1' }) });
    const printed = {
      ...inserted,
      dynamodb: { ...inserted.dynamodb, ApproximateCreationDateTime: '2025-06-15T15:06:40+00:00' },
    };
    // Seconds as text, as a hand-made batch or another tool may carry them.
    const asText = { ...inserted, dynamodb: { ...inserted.dynamodb, ApproximateCreationDateTime: '1750000000' } };
    for (const given of [inserted, printed as unknown as DynamoDBRecord, asText as unknown as DynamoDBRecord])
      expect(eventsOf([given], { links })[0]?.detail.occurredAt).toBe('2025-06-15T15:06:40.000Z');
  });

  it('makes a request’s insert of a magazine MagazineCreated, with its representation and request id', () => {
    const [event, ...rest] = eventsOf(
      [record('INSERT', mag, { after: magazine('r1', { writeToken: 't', requestId: 'req-1' }) })],
      { links },
    );
    expect(rest).toEqual([]);
    expect(event?.type).toBe('MagazineCreated');
    expect(event?.detail).toMatchObject({
      magazineId: 'm1',
      requestId: 'req-1',
      occurredAt: '2025-06-15T15:06:40.000Z',
      revision: 'r1',
      magazine: {
        id: 'm1',
        type: 'magazine',
        title: 'Title r1',
        tags: [{ id: 'go', name: 'Go', url: 'https://api.example.com/v1/tags/go' }],
      },
    });
    expect(event?.detail.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('makes a revision change MagazineReplaced and a closing mark nothing', () => {
    const events = eventsOf(
      [
        record('MODIFY', mag, {
          before: magazine('r1', { writeToken: 't' }),
          after: magazine('r2', { writeToken: 'u', requestId: 'req-2' }),
        }),
        record('MODIFY', mag, { before: magazine('r2'), after: magazine('r2', { closing: 5 }) }),
      ],
      { links },
    );
    expect(events.map((e) => [e.type, e.detail.requestId])).toEqual([['MagazineReplaced', 'req-2']]);
  });

  it('makes the next article number ArticleAdded, showing the article read by its key', () => {
    const added = record('MODIFY', mag, {
      before: magazine('r1', { articles: 2 }),
      after: magazine('r1', { articles: 3, requestId: 'req-3' }),
    });
    const key = articleKey('inc1', 3);
    expect(articleKeysOf([added])).toEqual([key]);
    const article = {
      ...key,
      id: 'm1~inc1~3',
      magazineId: 'm1',
      title: 'A',
      author_first_name: 'Ada',
      author_last_name: 'L',
      author_email: 'ada@example.com',
      date: '2025-01-01',
      text: 'Text',
      created: 1_700_000_200,
      writeToken: 'w',
    };
    const [event] = eventsOf([added], { links, articles: new Map([[articleLookupKey(key), article]]) });
    expect(event?.type).toBe('ArticleAdded');
    expect(event?.detail).toMatchObject({
      magazineId: 'm1',
      requestId: 'req-3',
      article: { id: 'm1~inc1~3', type: 'article', title: 'A' },
    });
    expect(JSON.stringify(event)).not.toContain('writeToken');
  });

  it('makes a deletion note MagazineDeleted, and ignores the magazine’s own removal', () => {
    const events = eventsOf(
      [
        record('REMOVE', mag, { before: magazine('r2', { writeToken: 't' }) }),
        record('INSERT', deletionKey('0', 'm1', 'inc1'), { after: { id: 'm1', revision: 'r2', requestId: 'req-4' } }),
        record('REMOVE', deletionKey('0', 'm1', 'inc1'), { before: { id: 'm1', revision: 'r2' } }),
      ],
      { links },
    );
    expect(events.map((e) => [e.type, e.detail])).toEqual([
      [
        'MagazineDeleted',
        expect.objectContaining({ magazineId: 'm1', requestId: 'req-4', deleted: { id: 'm1', revision: 'r2' } }),
      ],
    ]);
  });

  it('makes a head switch one CollectionReplaced (or CollectionDeleted when empty), from the first replica only', () => {
    const switchTo = (generation: string, members: number) =>
      Array.from({ length: 16 }, (_, replica) =>
        record('MODIFY', headKey(replica), {
          before: { generation: '0' },
          after: { generation, members, requestId: 'req-5' },
        }),
      );
    const replaced = eventsOf(switchTo('g1', 36), { links });
    expect(replaced.map((e) => e.type)).toEqual(['CollectionReplaced']);
    expect(replaced[0]?.detail).toMatchObject({
      requestId: 'req-5',
      collection: { count: 36, generation: 'g1', href: 'https://api.example.com/v1/magazines' },
    });
    expect(replaced[0]?.detail).not.toHaveProperty('magazineId');
    expect(eventsOf(switchTo('g2', 0), { links }).map((e) => e.type)).toEqual(['CollectionDeleted']);
  });

  it('ignores every bookkeeping item and a bulk write’s new generation', () => {
    const events = eventsOf(
      [
        record('INSERT', magazineKey('g1', 'm1'), { after: magazine('r9') }),
        record('INSERT', guardKey('0', 3), { after: { leaseUntil: 1 } }),
        record('INSERT', ticketKey('0', 'ALL', 1, 'tok'), { after: { changes: 'x' } }),
        record('INSERT', { PK: 'G#0#L#ALL', SK: '#A' }, { after: { total: 1 } }),
        record('INSERT', { PK: 'G#0#L#ALL', SK: 'B#1' }, { after: { entries: '' } }),
        record('INSERT', trashKey(1, 'x'), { after: { kind: 'generation' } }),
        record('INSERT', idempotencyKey('h'), { after: { state: 'done' } }),
        record('INSERT', { PK: 'BULK#0', SK: 'BULK' }, { after: { bulkId: 'b' } }),
        record('INSERT', articleKey('inc1', 1), { after: { id: 'a' } }),
        record('MODIFY', headKey(3), { before: { generation: '0' }, after: { generation: 'g1' } }),
        record('REMOVE', magazineKey('0', 'm2'), { before: magazine('r1', { writeToken: 't' }) }),
      ],
      { links },
    );
    expect(events).toEqual([]);
  });

  it('gives a redelivered batch the same events with the same ids, in the same order', () => {
    const batch = [
      record('INSERT', mag, { after: magazine('r1', { writeToken: 't', requestId: 'a' }) }),
      record('MODIFY', mag, { before: magazine('r1'), after: magazine('r2', { requestId: 'b' }) }),
      record('INSERT', deletionKey('0', 'm1', 'inc1'), { after: { id: 'm1', revision: 'r2', requestId: 'c' } }),
    ];
    const first = eventsOf(batch, { links });
    const again = eventsOf(structuredClone(batch), { links });
    expect(again).toEqual(first);
    expect(first.map((e) => e.type)).toEqual(['MagazineCreated', 'MagazineReplaced', 'MagazineDeleted']);
    expect(new Set(first.map((e) => e.detail.eventId)).size).toBe(3);
  });
});
