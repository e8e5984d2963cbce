import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { readGeneration } from '../../../shared/db/generation';
import { countsOf, readList } from '../../../shared/db/lists';
import { createMagazine, deleteMagazine } from '../../../shared/db/magazines';
import { tableAccess } from '../../../shared/db/table-access';

/**
 * Review finding: a list's snapshot is one Query only while its partition fits in one page. When
 * the tickets waiting exceed a page (1 MB: the folder stopped or failing for a while), the Query
 * takes several, and the stamps cannot see a ticket committed between them: a write that took its
 * ticket's time before the reader passed that key, and committed after (its transaction retried
 * on conflicts), lands behind the reader, and a later write on the same magazine lands ahead of
 * it. The reader then counts the delete of a magazine whose create it never saw: one less than
 * any state the list was ever in. Pages are made small here (a `Limit` on the reader's Query, as
 * DynamoDB's 1 MB page would cut a big partition); the interleaving is forced, not waited for.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const options = { marshallOptions: { removeUndefinedValues: true } };
const tableName = `paged-${randomUUID()}`;
// One client each: a document client shares its client's middleware stack.
const writer = DynamoDBDocumentClient.from(client, options);
const writes = () => tableAccess(writer, tableName, Date.now() + 20_000);

/** A writer whose transactions wait for `gate` while it is set: a write slowed by conflicts. */
const slow = DynamoDBDocumentClient.from(localDynamoDbClient(inject('dynamoDbEndpoint')), options);
let gate: Promise<void> | undefined;
slow.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName === 'TransactWriteItemsCommand' && gate) await gate;
    return next(args);
  },
  { step: 'initialize', name: 'slowTransactions' },
);

/** A reader whose Queries come back in pages of 3 items, and which lets `betweenPages` happen after the first. */
const reader = DynamoDBDocumentClient.from(localDynamoDbClient(inject('dynamoDbEndpoint')), options);
let betweenPages: (() => Promise<void>) | undefined;
reader.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName !== 'QueryCommand') return next(args);
    (args.input as { Limit?: number }).Limit = 3;
    const result = await next(args);
    const run = betweenPages;
    betweenPages = undefined;
    await run?.();
    return result;
  },
  { step: 'initialize', name: 'smallPages' },
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
});

describe('a list snapshot whose Query takes more than one page', () => {
  it('counts a state the list was in, whatever commits between its pages', async () => {
    const generation = await readGeneration(writes());
    // A write takes its ticket's time now, and commits only later.
    let open = () => {};
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const late = createMagazine(tableAccess(slow, tableName, Date.now() + 20_000), {
      id: 'late',
      title: 'Late',
      tags: [],
      created: 1_600_000_000,
    });
    await sleep(20);
    // Six writes after it, in the list's partition (nothing folded: no folder runs here).
    for (let i = 0; i < 6; i++)
      await createMagazine(writes(), { id: `m${i}`, title: `M ${i}`, tags: [], created: 1_600_000_100 + i });
    // After the reader's first page: the slow write commits (behind the reader), then the same magazine is deleted (ahead of it).
    betweenPages = async () => {
      gate = undefined;
      open();
      await late;
      await deleteMagazine(writes(), 'late', undefined);
    };
    const snapshot = await readList(tableAccess(reader, tableName, Date.now() + 20_000), generation, 'ALL');
    expect(betweenPages).toBeUndefined();
    // The list held 6, then 7, then 6 magazines: never 5.
    expect([6, 7]).toContain(countsOf(snapshot).total);
  });
});
