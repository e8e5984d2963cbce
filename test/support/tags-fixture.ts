import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { replaceAllMagazines } from '../../shared/db/bulk';
import { foldList } from '../../shared/db/folder';
import { readGeneration } from '../../shared/db/generation';
import { deleteMagazine } from '../../shared/db/magazines';
import { type TableAccess, tableAccess } from '../../shared/db/table-access';
import { listTags } from '../../shared/db/tags';
import type { TagRef } from '../../shared/domain/tag';

/**
 * 25 magazines of 32 tags each (`tag(0)` to `tag(799)`), `idOf(0)` to `idOf(24)`, made by a bulk
 * write: 800 tags merged into three blocks of `TAGS` (200, 200 and 400 tags).
 */
export const eightHundredTags = (
  writes: () => TableAccess,
  tag: (i: number) => TagRef,
  idOf: (m: number) => string = (m) => `m${m}`,
) =>
  replaceAllMagazines(
    writes(),
    Array.from({ length: 25 }, (_, m) => ({
      id: idOf(m),
      title: `M ${m}`,
      tags: Array.from({ length: 32 }, (_, k) => tag(m * 32 + k)),
      created: 1_600_000_000 + m,
    })),
    undefined,
  );

/**
 * `eightHundredTags`, then magazines 6 to 12 deleted, so that tags 192–415 (the whole middle
 * block, and more) go out of use.
 */
export const threeBlocksOfTags = async (writes: () => TableAccess, tag: (i: number) => TagRef) => {
  await eightHundredTags(writes, tag, (m) => `m${String(m).padStart(2, '0')}`);
  for (let m = 6; m <= 12; m++) await deleteMagazine(writes(), `m${String(m).padStart(2, '0')}`, undefined);
};

/**
 * A new table's name on DynamoDB Local at `endpoint`, a writer's access to it, and a reader's whose
 * calls are noted in `calls`, by command.
 */
export const tableWithNotedReads = (endpoint: string, prefix: string) => {
  const client = localDynamoDbClient(endpoint);
  const options = { marshallOptions: { removeUndefinedValues: true } };
  const tableName = `${prefix}-${randomUUID()}`;
  const writer = DynamoDBDocumentClient.from(client, options);
  const reader = DynamoDBDocumentClient.from(localDynamoDbClient(endpoint), options);
  const calls: string[] = [];
  reader.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize', name: 'noteCalls' },
  );
  return {
    client,
    tableName,
    calls,
    writes: () => tableAccess(writer, tableName, Date.now() + 30_000),
    reads: () => tableAccess(reader, tableName, Date.now() + 30_000),
  };
};

/**
 * Pages of 25 of `/tags` at offsets 0, 500 and 1,000, before the folder runs and after it: each
 * exactly `inUse` there, and its calls as `check` asks.
 */
export const pagesAroundAFold = async (
  table: Pick<ReturnType<typeof tableWithNotedReads>, 'writes' | 'reads' | 'calls'>,
  inUse: readonly string[],
  check: (calls: readonly string[], where: string) => void,
) => {
  const { writes, reads, calls } = table;
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
      check(calls, where);
    }
  }
};
