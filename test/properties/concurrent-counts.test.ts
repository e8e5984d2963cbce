import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import { yearOf } from '../../shared/db/counts';
import { foldList } from '../../shared/db/folder';
import { type CountedList, FIRST_GENERATION, tagList } from '../../shared/db/keys';
import { listMagazines } from '../../shared/db/magazine-list';
import { createMagazine, deleteMagazine, getMagazine, replaceMagazine } from '../../shared/db/magazines';
import { tableAccess } from '../../shared/db/table-access';
import { getTag, listTags } from '../../shared/db/tags';
import type { Magazine } from '../../shared/domain/magazine';
import { casesFor, fuzzSettings } from '../support/properties/run';

/**
 * Counts stay exact under any interleaving (issue 18's ghost tag: a delete's −1 folded before its
 * create's +1, and dropped). Creates, replaces, deletes and folds of a few magazines and tags run
 * concurrently against DynamoDB Local; fast-check's scheduler decides the order in which their
 * DynamoDB calls go out, one call at a time, so writes and folds interleave at every call. Then
 * every count a reader is shown (the collection, each year, each tag, each tag and year, `/tags`,
 * each tag's own) must equal a recount of the magazines stored, with the tickets still pending
 * and again once every list is folded.
 */

const IDS = ['m0', 'm1', 'm2'] as const;
const TAGS = ['a', 'b', 'c'] as const;
const YEARS = { 2020: 1_577_836_800, 2021: 1_609_459_200 } as const;
const LISTS: readonly CountedList[] = ['ALL', 'TAGS', ...TAGS.map(tagList)];

type Command =
  | {
      readonly kind: 'create' | 'replace';
      readonly id: string;
      readonly tags: readonly string[];
      readonly year: 2020 | 2021;
    }
  | { readonly kind: 'delete'; readonly id: string }
  | { readonly kind: 'fold'; readonly list: CountedList };

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('create' as const, 'replace' as const),
    id: fc.constantFrom(...IDS),
    tags: fc.subarray([...TAGS]),
    year: fc.constantFrom(2020 as const, 2021 as const),
  }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...IDS) }),
  fc.record({ kind: fc.constant('fold' as const), list: fc.constantFrom(...LISTS) }),
);

const dynamoDb = localDynamoDbClient(inject('dynamoDbEndpoint'));
afterAll(() => dynamoDb.destroy());

// One table for every case, emptied between them: creating and deleting a table per case slows
// DynamoDB Local for every other test file of the run.
const tableName = `concurrent-counts-${randomUUID()}`;
beforeAll(() => ensureTable(dynamoDb, tableName, { stream: false }));
const emptyTable = async () => {
  const documents = DynamoDBDocumentClient.from(dynamoDb);
  const { Items = [] } = await documents.send(
    new ScanCommand({ TableName: tableName, ProjectionExpression: 'PK, SK', ConsistentRead: true }),
  );
  for (let start = 0; start < Items.length; start += 25)
    await documents.send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName]: Items.slice(start, start + 25).map((Key) => ({ DeleteRequest: { Key } })),
        },
      }),
    );
};

/**
 * A client whose every call waits for the scheduler to let it go. A client of its own: a document
 * client shares its base client's middleware stack, so one made from `dynamoDb` would hold up
 * every later call too.
 */
const scheduledClient = (scheduler: fc.Scheduler, base: DynamoDBClient) => {
  const client = DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      await scheduler.schedule(Promise.resolve(), context.commandName);
      return next(args);
    },
    { step: 'initialize', name: 'scheduledCall' },
  );
  return client;
};

const run = async (access: ReturnType<typeof tableAccess>, command: Command) => {
  const draft = (c: Extract<Command, { tags: readonly string[] }>) => ({
    id: c.id,
    title: `${c.kind} ${c.id}`,
    tags: c.tags.map((id) => ({ id, name: id.toUpperCase() })),
    created: YEARS[c.year],
  });
  switch (command.kind) {
    case 'create':
      return createMagazine(access, draft(command), { id: command.id });
    case 'replace':
      return replaceMagazine(access, draft(command), undefined);
    case 'delete':
      return deleteMagazine(access, command.id, undefined);
    case 'fold':
      return foldList(access, FIRST_GENERATION, command.list);
  }
};

/** Every count a reader is shown, against a recount of the stored magazines. */
const countsDiffer = async (access: ReturnType<typeof tableAccess>): Promise<string[]> => {
  const stored: Magazine[] = [];
  for (const id of IDS) {
    const magazine = await getMagazine(access, id).catch(() => undefined);
    if (magazine) stored.push(magazine);
  }
  const wrong: string[] = [];
  const page = { start: { offset: 0 }, limit: 10, sort: 'asc' as const };
  const check = async (what: string, filter: { tag?: string; year?: number }, want: Magazine[]) => {
    const shown = await listMagazines(access, filter, page);
    const ids = shown.items.map((m) => m.id).join(',');
    const wanted = want.map((m) => m.id).join(',');
    if (shown.count !== want.length || ids.split(',').sort().join(',') !== wanted.split(',').sort().join(','))
      wrong.push(`${what}: count ${shown.count} [${ids}], stored ${want.length} [${wanted}]`);
  };
  const inYear = (m: Magazine, year: number) => yearOf(m.created) === String(year);
  const tagged = (m: Magazine, tag: string) => m.tags.some((t) => t.id === tag);
  await check('all', {}, stored);
  for (const year of [2020, 2021])
    await check(
      `year ${year}`,
      { year },
      stored.filter((m) => inYear(m, year)),
    );
  for (const tag of TAGS) {
    const carrying = stored.filter((m) => tagged(m, tag));
    await check(`tag ${tag}`, { tag }, carrying);
    for (const year of [2020, 2021])
      await check(
        `tag ${tag}, year ${year}`,
        { tag, year },
        carrying.filter((m) => inYear(m, year)),
      );
    const summary = await getTag(access, tag).catch(() => undefined);
    const shown = summary?.magazineCount ?? 0;
    if (shown !== carrying.length || (carrying.length === 0) !== (summary === undefined))
      wrong.push(`/tags/${tag}: ${summary ? `count ${shown}` : '404'}, stored ${carrying.length}`);
  }
  const inUse = TAGS.filter((tag) => stored.some((m) => tagged(m, tag)));
  const tags = await listTags(access, page);
  const shownTags = tags.items.map((t) => `${t.id}:${t.magazineCount}`).join(',');
  const wantedTags = inUse.map((tag) => `${tag}:${stored.filter((m) => tagged(m, tag)).length}`).join(',');
  if (tags.count !== inUse.length || shownTags !== wantedTags)
    wrong.push(`/tags: count ${tags.count} [${shownTags}], stored [${wantedTags}]`);
  return wrong;
};

describe('counts under concurrent writes and folds, in any order of their DynamoDB calls', () => {
  const settings = fuzzSettings();
  it('every count equals a recount of what is stored, before and after the last folds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(commandArbitrary, { minLength: 2, maxLength: 7 }),
        async (scheduler, commands) => {
          await emptyTable();
          try {
            const base = localDynamoDbClient(inject('dynamoDbEndpoint'));
            const client = scheduledClient(scheduler, base);
            const access = tableAccess(client, tableName, Date.now() + 60_000);
            let settled = false;
            // Refusals (a create of a magazine that exists, a delete of one that does not) are outcomes, not failures.
            const all = Promise.all(commands.map((command) => run(access, command).catch(() => undefined))).then(() => {
              settled = true;
            });
            // The calls of the commands still to come are scheduled as earlier ones answer: release one at a time.
            while (!settled) {
              if (scheduler.count() > 0) await scheduler.waitOne();
              else await new Promise((resolve) => setTimeout(resolve, 1));
            }
            await all;
            base.destroy();

            const reader = DynamoDBDocumentClient.from(dynamoDb);
            const readAccess = tableAccess(reader, tableName, Date.now() + 60_000);
            const pending = await countsDiffer(readAccess);
            for (const list of LISTS) await foldList(readAccess, FIRST_GENERATION, list);
            const folded = await countsDiffer(readAccess);
            expect({ pending, folded }, `${scheduler.report().length} calls`).toEqual({ pending: [], folded: [] });
          } finally {
            await emptyTable();
          }
        },
      ),
      {
        numRuns: casesFor(0.002, 40, settings),
        seed: settings.seed,
        endOnFailure: true,
      },
    );
  }, 240_000);
});
