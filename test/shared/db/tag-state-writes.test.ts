import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../../local/dynamodb-local';
import { ensureTable } from '../../../local/ensure-table';
import { FOLD_TICKETS, foldList } from '../../../shared/db/folder';
import { readGeneration } from '../../../shared/db/generation';
import { decodeOverlay, decodeTagStates } from '../../../shared/db/items';
import { COUNTS_SK, overlayKey, tagStateKey } from '../../../shared/db/keys';
import { createMagazine, deleteMagazine } from '../../../shared/db/magazines';
import { type TableAccess, tableAccess } from '../../../shared/db/table-access';
import { writeTagStates } from '../../../shared/db/tag-state-writes';
import { listTags } from '../../../shared/db/tags';
import { threeBlocksOfTags } from '../../support/tags-fixture';

/**
 * A stream of new tags through `TAGS`: a merge's tag state items are written after it, not in its
 * transaction of 100 items, so a fold takes its full share of tickets however many new tags they
 * bring. Before, under 4 new tags a ticket, a fold took 15 to 30 tickets (the state items filled
 * the rest), and on DynamoDB Local under 24 writers `/tags` read 73–82 KB when the writers
 * stopped, the tickets the folder had not reached yet.
 */
const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
const writer = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const tableName = `tag-states-${randomUUID()}`;
const writes = () => tableAccess(writer, tableName, Date.now() + 60_000);
const tag = (i: number) => ({ id: `t${String(i).padStart(4, '0')}`, name: `T${i}` });

/** The transactions an access sends, by whether they fold (put a list's counts) or write tag states. */
const counting = (access: TableAccess, failStates = false) => {
  const seen = { folds: 0, states: 0 };
  const counted: TableAccess = {
    ...access,
    send: async (request) =>
      access.send(async (sdk, options) => {
        const wrapped = {
          send: async (command: { input?: { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] } }) => {
            const items = command.input?.TransactItems ?? [];
            if (items.some((item) => item.Put?.Item?.SK === COUNTS_SK)) seen.folds++;
            else if (items.some((item) => String(item.Put?.Item?.SK ?? '').startsWith('S#'))) {
              seen.states++;
              if (failStates) throw Object.assign(new Error('lost'), { name: 'InternalServerError', $retryable: {} });
            }
            return sdk.send(command as never, options);
          },
        };
        return request(wrapped as never, options);
      }),
  };
  return { counted, seen };
};

const NEW = 3 * FOLD_TICKETS;
const inUse: string[] = [];

beforeAll(async () => {
  await ensureTable(client, tableName, { stream: false });
  await threeBlocksOfTags(writes, tag);
  inUse.push(
    ...Array.from({ length: 192 }, (_, i) => tag(i).id),
    ...Array.from({ length: 384 }, (_, i) => tag(416 + i).id),
  );
  // Magazines of 4 new tags each, none folded.
  for (let start = 0; start < NEW; start += 16)
    await Promise.all(
      Array.from({ length: 16 }, (_, k) => {
        const i = start + k;
        const tags = [0, 1, 2, 3].map((j) => tag(1000 + 4 * i + j));
        inUse.push(...tags.map((t) => t.id));
        return createMagazine(writes(), { id: `n${i}`, title: `N ${i}`, tags, created: 1_700_000_000 + i });
      }),
    );
  inUse.sort();
}, 120_000);

describe('TAGS under a stream of new tags', () => {
  it('stays exact while the state items of a merge are not written, and a later fold writes them', async () => {
    const generation = await readGeneration(writes());
    // State items cannot be written: the first fold merges, its successor fails before its own transaction.
    const failing = counting(writes(), true);
    await expect(foldList(failing.counted, generation, 'TAGS')).rejects.toThrow();
    expect(failing.seen.folds).toBe(1);
    const { merged } = decodeOverlay((await writes().get(overlayKey(generation))) ?? {});
    expect(merged.length).toBeGreaterThan(0);
    // A new tag merged: the bulk write's tags have state items from the start.
    const unwritten = merged.find((key) => key >= tag(1000).id) ?? '';
    expect(await writes().get(tagStateKey(generation, unwritten))).toBeUndefined();
    // A magazine whose four tags were all merged goes: its tickets name tags found only in the overlay.
    const gone = Array.from({ length: NEW }, (_, i) => i).find((i) =>
      [0, 1, 2, 3].every((j) => merged.includes(tag(1000 + 4 * i + j).id)),
    );
    expect(gone).toBeDefined();
    await deleteMagazine(writes(), `n${gone}`, undefined);
    const left = inUse.filter((id) => ![0, 1, 2, 3].some((j) => tag(1000 + 4 * (gone ?? 0) + j).id === id));
    inUse.splice(0, inUse.length, ...left);
    for (const offset of [0, 600, 1100]) {
      const page = await listTags(writes(), { start: { offset }, limit: 25, sort: 'asc' });
      expect(page.count).toBe(inUse.length);
      expect(page.items.map((t) => t.id)).toEqual(inUse.slice(offset, offset + 25));
    }

    const working = counting(writes());
    await foldList(working.counted, generation, 'TAGS');
    // 240 tickets of 4 new tags: a fold takes 80 (the folds that only merge, or drop what was merged, come on top).
    const folds = working.seen.folds;
    expect(folds).toBeLessThanOrEqual(NEW / FOLD_TICKETS + 3);
    const state = await writes().get(tagStateKey(generation, unwritten));
    // Its first merge: the state item also says it was at zero before, for readers of older snapshots.
    expect(state && decodeTagStates(state).map(({ n, stamp }) => [n, stamp > 0])).toEqual([
      [1, true],
      [0, false],
    ]);
    expect(decodeOverlay((await writes().get(overlayKey(generation))) ?? {}).merged).toEqual([]);
    const page = await listTags(writes(), { start: { offset: 0 }, limit: 2000, sort: 'asc' });
    expect(page.items.map((t) => t.id)).toEqual(inUse);
  }, 120_000);

  it('never puts back an older state than the one a tag state item holds', async () => {
    const generation = await readGeneration(writes());
    const entry = (key: string, n: number) => ({ key, n, names: [['Late', n] as [string, number]] });
    await writeTagStates(writes(), generation, [entry('late', 3)], 900);
    // A folder that read the overlay before another dropped its tags, writing late.
    await writeTagStates(writes(), generation, [entry('late', 1)], 899);
    await writeTagStates(writes(), generation, [entry('late', 1)], 900);
    const item = await writes().get(tagStateKey(generation, 'late'));
    expect(item && decodeTagStates(item)).toEqual([{ stamp: 900, n: 3, names: [['Late', 3]] }]);
    await writeTagStates(writes(), generation, [entry('late', 5)], 901);
    const newer = await writes().get(tagStateKey(generation, 'late'));
    expect(newer && decodeTagStates(newer)[0]).toEqual({ stamp: 901, n: 5, names: [['Late', 5]] });
  });

  it('tells an older state item written without its stamp (by functions before it) from a newer one', async () => {
    const generation = await readGeneration(writes());
    const access = writes();
    const legacy = (key: string, stamp: number) =>
      access.send((sdk, options) =>
        sdk.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...tagStateKey(generation, key), states: JSON.stringify([[stamp, 7, [['Old', 7]]]]) },
          }),
          options,
        ),
      );
    await legacy('old-newer', 950);
    await legacy('old-older', 850);
    // 150 states (two transactions), a newer one among each: the others are all written.
    const keys = Array.from({ length: 150 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await writeTagStates(
      access,
      generation,
      [keys[2] ?? '', keys[102] ?? ''].map((key) => ({ key, n: 9 })),
      920,
    );
    const entries = [...keys, 'old-newer', 'old-older'].map((key) => ({ key, n: 1 }));
    await writeTagStates(access, generation, entries, 900);
    const stateOf = async (key: string) => {
      const found = await access.get(tagStateKey(generation, key));
      return found && decodeTagStates(found)[0];
    };
    expect(await stateOf('old-newer')).toEqual({ stamp: 950, n: 7, names: [['Old', 7]] });
    expect(await stateOf('old-older')).toEqual({ stamp: 900, n: 1 });
    const states = await Promise.all(keys.map(stateOf));
    expect(states.filter((state) => state?.stamp === 920).length).toBe(2);
    expect(states.filter((state) => state?.stamp === 900 && state.n === 1).length).toBe(148);

    // An older release's fold writes a newer state between the read and the replace: it stays.
    await legacy('raced', 850);
    const racing: TableAccess = {
      ...access,
      getMany: async (wanted) => {
        const found = await access.getMany(wanted);
        await legacy('raced', 990);
        return found;
      },
    };
    await writeTagStates(racing, generation, [{ key: 'raced', n: 1 }], 900);
    expect(await stateOf('raced')).toEqual({ stamp: 990, n: 7, names: [['Old', 7]] });
  });

  it('leaves no state item behind in a generation a bulk write swept', async () => {
    const swept = `swept-${randomUUID()}`;
    await expect(writeTagStates(writes(), swept, [{ key: 'orphan', n: 1 }], 5)).rejects.toThrow();
    expect(await writes().get(tagStateKey(swept, 'orphan'))).toBeUndefined();
  });
});
