import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { tableAccess } from '../../../shared/db/table-access';
import { listTags } from '../../../shared/db/tags';
import { threeBlocksOfTags } from '../../support/tags-fixture';

/**
 * Review finding: `TAGS` keeps every tag a generation ever had, at zero once no magazine carries
 * it, so a block can hold no tag in use at all. A page of /tags whose ranks run across such a
 * block (or a cursor page that walks past it) reads it anyway: a page's bytes (and, with enough
 * tags that came and went, its BatchGetItem calls) grow with the tags of the past, not with the
 * page. Here 800 tags fill three blocks; the middle one's tags all go out of use.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const options = { marshallOptions: { removeUndefinedValues: true } };
const tableName = `tag-blocks-${randomUUID()}`;
const writer = DynamoDBDocumentClient.from(client, options);
const writes = () => tableAccess(writer, tableName, Date.now() + 30_000);

/** A reader whose BatchGetItem calls are noted: the block keys each asks for. */
const reader = DynamoDBDocumentClient.from(localDynamoDbClient(inject('dynamoDbEndpoint')), options);
const blocksAsked: string[] = [];
reader.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName === 'BatchGetItemCommand') {
      // Keys as the document client sent them, or already marshalled.
      const keys = JSON.stringify(args.input).match(/"B#[^"]+"/g) ?? [];
      blocksAsked.push(...keys);
    }
    return next(args);
  },
  { step: 'initialize', name: 'noteBlocks' },
);
const reads = () => tableAccess(reader, tableName, Date.now() + 30_000);

const tag = (i: number) => ({ id: `t${String(i).padStart(3, '0')}`, name: `T${i}` });

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  // Tags 192–415 go out of use (the whole middle block, 200–399), and the folder takes it in.
  await threeBlocksOfTags(writes, tag);
  await foldList(writes(), await readGeneration(writes()), 'TAGS');
}, 60_000);

const inUse = [
  ...Array.from({ length: 192 }, (_, i) => tag(i).id),
  ...Array.from({ length: 384 }, (_, i) => tag(416 + i).id),
];

describe('a page of /tags across a block of tags no longer in use', () => {
  it('by offset reads only the blocks holding its tags', async () => {
    blocksAsked.length = 0;
    const page = await listTags(reads(), { start: { offset: 150 }, limit: 100, sort: 'asc' });
    expect(page.count).toBe(576);
    expect(page.items.map((t) => t.id)).toEqual(inUse.slice(150, 250));
    expect(blocksAsked).toHaveLength(2);
  });

  it('by cursor reads only the blocks holding its tags', async () => {
    blocksAsked.length = 0;
    const page = await listTags(reads(), { start: { after: tag(191).id, offset: 192 }, limit: 10, sort: 'asc' });
    expect(page.items.map((t) => t.id)).toEqual(inUse.slice(192, 202));
    expect(blocksAsked).toHaveLength(2);
  });
});
