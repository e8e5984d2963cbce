import { marshall } from '@aws-sdk/util-dynamodb';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { articleKey, deletionKey, headKey, type Key, magazineKey } from '../../shared/db/keys';
import { articleLookupKey, changeEventNames, eventsOf } from '../../shared/events/change-events';
import { entryOf } from '../../shared/events/publish';
import { linksAt } from '../../shared/http/links';
import { openApiDocument } from '../../shared/openapi/document';

const document = openApiDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document, 'api');
const validate = (name: string, value: unknown) => {
  const check = ajv.compile({ $ref: `api#/components/schemas/${name}Event` });
  return check(value) ? [] : check.errors;
};

let sequence = 1;
const record = (
  eventName: 'INSERT' | 'MODIFY',
  key: Key,
  before: object | undefined,
  after: object,
): DynamoDBRecord => ({
  eventName,
  dynamodb: {
    Keys: marshall(key) as never,
    ...(before && { OldImage: marshall({ ...key, ...before }) as never }),
    NewImage: marshall({ ...key, ...after }) as never,
    ApproximateCreationDateTime: 1_750_000_000,
    SequenceNumber: String(sequence++),
  },
});
const magazine = (revision: string, articles = 0) => ({
  id: 'm1',
  title: 'T',
  tags: [{ id: 'go', name: 'Go' }],
  created: 1,
  updated: 2,
  revision,
  incarnation: 'inc1',
  articles,
  writeToken: 'w',
  requestId: 'r',
});

describe('the change events in the OpenAPI document', () => {
  it('has a webhook and a schema for each of the six events', () => {
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual([...changeEventNames].sort());
    for (const name of changeEventNames) {
      expect(document.components.schemas[`${name}Event`], name).toBeDefined();
      expect(document.components.schemas[`${name}Detail`], name).toBeDefined();
    }
  });

  it('describes every event the producer makes, as EventBridge delivers it', () => {
    const article = {
      ...articleKey('inc1', 1),
      id: 'm1~inc1~1',
      magazineId: 'm1',
      title: 'A',
      author_first_name: 'A',
      author_last_name: 'B',
      author_email: 'a@example.com',
      date: '2025-01-01',
      text: 'x',
      created: 3,
      writeToken: 'w',
    };
    const events = eventsOf(
      [
        record('INSERT', magazineKey('0', 'm1'), undefined, magazine('r1')),
        record('MODIFY', magazineKey('0', 'm1'), magazine('r1'), magazine('r2')),
        record('MODIFY', magazineKey('0', 'm1'), magazine('r2'), magazine('r2', 1)),
        record('INSERT', deletionKey('0', 'm1', 'inc1'), undefined, { id: 'm1', revision: 'r2', requestId: 'r' }),
        record('MODIFY', headKey(0), { generation: '0' }, { generation: 'g1', members: 2, requestId: 'r' }),
        record('MODIFY', headKey(0), { generation: 'g1' }, { generation: 'g2', members: 0, requestId: 'r' }),
      ],
      {
        links: linksAt('https://api.example.com'),
        articles: new Map([[articleLookupKey(articleKey('inc1', 1)), article]]),
      },
    );
    expect(events.map((event) => event.type).sort()).toEqual([...changeEventNames].sort());
    for (const event of events) {
      const entry = entryOf(event);
      const delivered = {
        version: '0',
        id: 'eventbridge-id',
        source: entry.Source,
        'detail-type': entry.DetailType,
        account: '123456789012',
        time: event.detail.occurredAt,
        region: 'eu-west-1',
        resources: [],
        detail: JSON.parse(entry.Detail),
      };
      expect(validate(event.type, delivered), event.type).toEqual([]);
    }
  });

  it('refuses an event that breaks its schema', () => {
    expect(
      validate('MagazineDeleted', { source: 'magazine-api', 'detail-type': 'MagazineDeleted', detail: {} }),
    ).not.toEqual([]);
  });
});
