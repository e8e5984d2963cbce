import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { decodeTicket } from '../../../shared/db/items';
import { countsKey } from '../../../shared/db/keys';
import { createMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';
import { listTags } from '../../../shared/db/tags';
import { eightHundredTags } from '../../support/tags-fixture';

/**
 * A `/tags` read while creates of scattered new tags wait for the folder: their ids fall among the
 * tags already in blocks, so without the fresh mark every one is a state item to look up (560 of
 * them, six calls and a block read whole). 800 tags made by a bulk write (three blocks), then 280
 * magazines of 2 new tags each, none of it folded yet.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const options = { marshallOptions: { removeUndefinedValues: true } };
const tableName = `tag-fresh-${randomUUID()}`;
const writer = DynamoDBDocumentClient.from(client, options);
const writes = () => tableAccess(writer, tableName, Date.now() + 30_000);

const reader = DynamoDBDocumentClient.from(localDynamoDbClient(inject('dynamoDbEndpoint')), options);
const calls: string[] = [];
reader.middlewareStack.add(
  (next, context) => async (args) => {
    calls.push(context.commandName ?? '');
    return next(args);
  },
  { step: 'initialize', name: 'noteCalls' },
);
const reads = () => tableAccess(reader, tableName, Date.now() + 30_000);

const tag = (i: number) => ({ id: `t${String(i).padStart(4, '0')}`, name: `T${i}` });
// Between tag(i) and tag(i + 1): `t0123n`.
const scattered = (i: number) => ({ id: `${tag(i).id}n`, name: `N${i}` });
const NEW = 280;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  await eightHundredTags(writes, tag);
  for (let i = 0; i < NEW; i++)
    await createMagazine(writes(), {
      id: `n${i}`,
      title: `N ${i}`,
      tags: [scattered(i), scattered(400 + i)],
      created: 1_700_000_000 + i,
    });
}, 120_000);

const inUse = [
  ...Array.from({ length: 800 }, (_, i) => tag(i).id),
  ...Array.from({ length: NEW }, (_, i) => scattered(i).id),
  ...Array.from({ length: NEW }, (_, i) => scattered(400 + i).id),
].sort();

describe('a page of /tags with hundreds of creates of scattered new tags waiting', () => {
  it('marks their tickets fresh', async () => {
    const generation = await readGeneration(writes());
    const { items } = await writes().query({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :t)',
      ExpressionAttributeValues: { ':pk': countsKey(generation, 'TAGS').PK, ':t': '#T' },
    });
    // All but the first: that instance had read no end mark before.
    const fresh = items.map(decodeTicket).filter((ticket) => ticket.fresh);
    expect(fresh.length).toBe(NEW - 1);
    expect(fresh[0]?.fresh).toEqual({ stamp: 0, ids: [scattered(1).id, scattered(401).id] });
  });

  it('counts and pages exactly in two calls, looking up none of them, before the folder and after it', async () => {
    for (const folded of [false, true]) {
      if (folded) await foldList(writes(), await readGeneration(writes()), 'TAGS');
      for (const offset of [0, 500, 1000]) {
        calls.length = 0;
        const page = await listTags(reads(), { start: { offset }, limit: 25, sort: 'asc' });
        const where = `${folded ? 'folded' : 'waiting'}, offset ${offset}: ${calls.join(', ')}`;
        expect(page.count, where).toBe(inUse.length);
        expect(
          page.items.map((t) => t.id),
          where,
        ).toEqual(inUse.slice(offset, offset + 25));
        expect(calls, where).toEqual(['QueryCommand', 'BatchGetItemCommand']);
      }
    }
  });
});
