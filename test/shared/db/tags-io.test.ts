import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countChanges, shownName } from '../../../shared/db/counts';
import { foldList } from '../../../shared/db/folder';
import { encodeFresh } from '../../../shared/db/fresh-tags';
import { decodeStamp, encodeDeltas } from '../../../shared/db/items';
import { endMarkKey, tagStateKey, ticketKey } from '../../../shared/db/keys';
import type { Item, TableAccess } from '../../../shared/db/table-access';
import { listTags } from '../../../shared/db/tags';
import type { Magazine } from '../../../shared/domain/magazine';
import { fakeTableWithWrites } from '../../support/fake-table';
import { recountTags, taggedMagazine } from '../../support/tag-recount';

/**
 * The real folder and the real `/tags` reader on an in-memory table: writes (their TAGS tickets),
 * folds, and reads with a fold landing between a reader's calls; every read equals a recount.
 */
const magazine = taggedMagazine;

const recount = (magazines: Iterable<Magazine>) =>
  recountTags(magazines).map((entry) => ({
    id: entry.key,
    magazineCount: entry.n,
    name: shownName(entry.names ?? []) ?? entry.key,
  }));

const TAGS = Array.from({ length: 1500 }, (_, i) => `t${String(i).padStart(4, '0')}`);

describe('TAGS through the real folder and reader', () => {
  it('reads as a recount, with folds between and inside reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            {
              weight: 6,
              arbitrary: fc.tuple(
                fc.constant('write' as const),
                fc.integer({ min: 0, max: 59 }),
                fc.option(
                  fc.uniqueArray(fc.tuple(fc.constantFrom(...TAGS), fc.constantFrom('X', 'x')), {
                    selector: ([t]) => t,
                    minLength: 8,
                    maxLength: 32,
                  }),
                  { nil: undefined, freq: 4 },
                ),
                // Its tags with no state item marked fresh, with a stamp read this many folds before.
                fc.option(fc.nat(3), { nil: undefined, freq: 3 }),
              ),
            },
            { weight: 2, arbitrary: fc.tuple(fc.constant('fold' as const)) },
            // A folder that stops after a merge: its tags' state items are never written by it.
            { weight: 1, arbitrary: fc.tuple(fc.constant('fold, no state items' as const)) },
            {
              weight: 2,
              arbitrary: fc.tuple(
                fc.constant('read' as const),
                fc.integer({ min: 0, max: 3 }),
                fc.integer({ min: 0, max: 2000 }),
                fc.boolean(),
              ),
            },
          ),
          { minLength: 60, maxLength: 160 },
        ),
        async (ops) => {
          const { access, put, setHook, items } = fakeTableWithWrites();
          const stored = new Map<string, Magazine>();
          let ms = 1_700_000_000_000;
          const fold = () => foldList(access, '0', 'TAGS', Date.now() + 60_000);
          const isStates = (command: { input?: { TransactItems?: { Put?: { Item?: Item } }[] } }) =>
            (command.input?.TransactItems ?? []).some((item) => String(item.Put?.Item?.SK ?? '').startsWith('S#'));
          const stopping: TableAccess = {
            ...access,
            send: (request) =>
              access.send((sdk, options) =>
                request(
                  {
                    send: (command: Parameters<typeof isStates>[0]) => {
                      if (isStates(command)) throw Object.assign(new Error('stopped'), { name: 'InternalServerError' });
                      return sdk.send(command as never, options);
                    },
                  } as never,
                  options,
                ),
              ),
          };
          for (const op of ops) {
            if (op[0] === 'write') {
              const [, m, tags, staleness] = op;
              const id = `m${m}`;
              const before = stored.get(id);
              const after = tags === undefined ? undefined : magazine(id, tags);
              if (!before && !after) continue;
              const deltas = countChanges(before, after).get('TAGS');
              const stamp = decodeStamp(items.get(`${endMarkKey('0', 'TAGS').PK}\u0000#U`));
              const fresh = (deltas ?? [])
                .map((delta) => delta.key)
                .filter((key) => !items.has(`${tagStateKey('0', key).PK}\u0000${tagStateKey('0', key).SK}`));
              if (deltas)
                put({
                  ...ticketKey('0', 'TAGS', ms++, `w${ms}`),
                  changes: encodeDeltas(deltas),
                  ...(staleness !== undefined &&
                    fresh.length > 0 && {
                      fresh: encodeFresh(
                        { stamp: Math.max(0, stamp - staleness), ids: fresh },
                        deltas.map((delta) => delta.key),
                      ),
                    }),
                });
              if (after) stored.set(id, after);
              else stored.delete(id);
            } else if (op[0] === 'fold') {
              await fold();
            } else if (op[0] === 'fold, no state items') {
              await foldList(stopping, '0', 'TAGS', Date.now() + 60_000).catch((error: Error) => {
                if (error.message !== 'stopped') throw error;
              });
            } else {
              const [, foldAt, offsetSeed, desc] = op;
              const expected = recount(stored.values());
              let n = 0;
              setHook(async () => {
                if (n++ === foldAt) await fold();
              });
              const offset = expected.length === 0 ? 0 : offsetSeed % (expected.length + 1);
              const page = await listTags(access, { start: { offset }, limit: 60, sort: desc ? 'desc' : 'asc' });
              setHook(undefined);
              const ordered = desc ? [...expected].reverse() : expected;
              expect(page.count).toBe(expected.length);
              expect(page.items).toEqual(ordered.slice(offset, offset + 60));
            }
          }
          await fold();
          const page = await listTags(access, { start: { offset: 0 }, limit: 5000, sort: 'asc' });
          expect(page.items).toEqual(recount(stored.values()));
        },
      ),
      { numRuns: 60 },
    );
  }, 500_000);
});
