import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { listMagazines } from '../../../shared/db/magazine-list';
import { createMagazine, deleteMagazine, replaceMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';
import type { Magazine } from '../../../shared/domain/magazine';

/**
 * Review finding: a page's members come from the list's snapshot (first call), its magazines from a
 * later BatchGetItem (third call). A write landing between them shows: a magazine deleted meanwhile
 * leaves the page one short of what `count` says it holds; one replaced meanwhile (its tag taken off,
 * or its `created` moved to another year) is shown in a list it is no longer in. No state of the
 * collection ever looked like that.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const writer = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `page-race-${randomUUID()}`;
const writes = () => tableAccess(writer, tableName, Date.now() + 20_000);

/** A reader whose next BatchGetItem of magazines first lets `between` happen (once). */
const reader = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
let between: (() => Promise<unknown>) | undefined;
reader.middlewareStack.add(
  (next, context) => async (args) => {
    const batchOfMagazines =
      context.commandName === 'BatchGetItemCommand' && JSON.stringify(args.input).includes('#MAG#');
    if (batchOfMagazines && between) {
      const write = between;
      between = undefined;
      await write();
    }
    return next(args);
  },
  { step: 'initialize', name: 'writeBetween' },
);
const reads = () => tableAccess(reader, tableName, Date.now() + 20_000);

const YEAR_2020 = 1_577_836_800;
const YEAR_2021 = 1_609_459_200;

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  for (let i = 0; i < 10; i++)
    await createMagazine(writes(), {
      id: `m${i}`,
      title: `M ${i}`,
      tags: [{ id: 'news', name: 'News' }],
      created: YEAR_2020 + i,
    });
});

const expectWhole = (page: { items: readonly Magazine[]; count: number; offset: number }, limit: number) =>
  expect(page.items.length, `count ${page.count}, ${page.items.map((m) => m.id).join(' ')}`).toBe(
    Math.max(0, Math.min(limit, page.count - page.offset)),
  );

describe('a page read while a write lands between its list and its magazines', () => {
  it('holds as many magazines as its count says (a delete)', async () => {
    between = () => deleteMagazine(writes(), 'm1', undefined);
    const page = await listMagazines(reads(), {}, { start: { offset: 0 }, limit: 5, sort: 'asc' });
    expect(between).toBeUndefined();
    expectWhole(page, 5);
  });

  it('shows no magazine that no longer carries the tag (a replace)', async () => {
    between = () => replaceMagazine(writes(), { id: 'm3', title: 'M 3', tags: [], created: YEAR_2020 + 3 }, undefined);
    const page = await listMagazines(reads(), { tag: 'news' }, { start: { offset: 0 }, limit: 5, sort: 'asc' });
    expect(between).toBeUndefined();
    for (const magazine of page.items)
      expect(
        magazine.tags.map((t) => t.id),
        magazine.id,
      ).toContain('news');
    expectWhole(page, 5);
  });

  it('shows no magazine of another year (created moved)', async () => {
    between = () =>
      replaceMagazine(
        writes(),
        { id: 'm5', title: 'M 5', tags: [{ id: 'news', name: 'News' }], created: YEAR_2021 },
        undefined,
      );
    const page = await listMagazines(reads(), { year: 2020 }, { start: { offset: 0 }, limit: 10, sort: 'asc' });
    expect(between).toBeUndefined();
    for (const magazine of page.items) expect(magazine.created, magazine.id).toBeLessThan(YEAR_2021);
    expectWhole(page, 10);
  });
});
