import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countChanges, shownName } from '../../../shared/db/counts';
import { foldList } from '../../../shared/db/folder';
import {
  decodeFresh,
  decodeLeft,
  encodeFresh,
  encodeLeft,
  filterOf,
  LEFT_MOST_BYTES,
  leftAfter,
  mayHold,
  provenNew,
} from '../../../shared/db/fresh-tags';
import { decodeOverlay, encodeDeltas } from '../../../shared/db/items';
import { endMarkKey, overlayKey, tagStateKey, ticketKey } from '../../../shared/db/keys';
import { ItemsByKey, type TableAccess } from '../../../shared/db/table-access';
import { listTags } from '../../../shared/db/tags';
import { freshMarker } from '../../../shared/db/tickets';
import type { Magazine } from '../../../shared/domain/magazine';
import { fakeTableWithWrites } from '../../support/fake-table';
import { recountTags, taggedMagazine } from '../../support/tag-recount';

const ids = fc.uniqueArray(
  fc.string({ minLength: 1, maxLength: 64 }).filter((s) => !/[ ;:]/.test(s)),
  {
    maxLength: 500,
  },
);

const changes = (keys: readonly string[]) => keys.map((key) => ({ key }));

describe('the filter of the tags a fold dropped', () => {
  it('finds every tag it was made of', () => {
    fc.assert(fc.property(ids, (keys) => keys.every((key) => mayHold(filterOf(keys), key))));
  });

  it('finds a tag it was not made of about once in a hundred', () => {
    const dropped = Array.from({ length: 400 }, (_, i) => `tag-${i}`);
    const filter = filterOf(dropped);
    const others = Array.from({ length: 20_000 }, (_, i) => `other-${i}`);
    expect(others.filter((key) => mayHold(filter, key)).length / others.length).toBeLessThan(0.02);
    expect(filter.length).toBe(500);
  });

  it('is stored and read back as written; anything else is no filter at all', () => {
    fc.assert(
      fc.property(ids, fc.nat(1000), fc.nat(5), (keys, floor, n) => {
        const left = {
          floor,
          filters: Array.from({ length: n }, (_, i) => ({ stamp: floor + i, bits: filterOf(keys) })),
        };
        expect(decodeLeft(encodeLeft(left))).toEqual(left);
      }),
    );
    for (const bad of ['x;1:AA', '', '1e3', '1;:AA', '1;2:', '1;2:A A', 7])
      expect(decodeLeft(bad), String(bad)).toBeUndefined();
  });

  it("names a ticket's fresh tags by their place among its changes", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 32 }),
        fc.nat(10_000),
        fc.func(fc.boolean()),
        (keys, stamp, isFresh) => {
          const ids = keys.filter((key) => isFresh(key));
          const stored = encodeFresh({ stamp, ids }, keys);
          expect(stored === undefined ? undefined : decodeFresh(stored, changes(keys))).toEqual(
            ids.length === 0 ? undefined : { stamp, ids },
          );
        },
      ),
    );
    expect(encodeFresh({ stamp: 4, ids: ['a', 'b'] }, ['a', 'b'])).toBe('4');
    expect(encodeFresh({ stamp: 4, ids: ['b'] }, ['a', 'b', 'c'])).toBe('4 2');
    expect(decodeFresh('4 2', changes(['a', 'b', 'c']))).toEqual({ stamp: 4, ids: ['b'] });
    for (const bad of ['-1', 'x', '4 Z', '4 1 1', '4 0', ''])
      expect(decodeFresh(bad, changes(['a', 'b'])), bad).toBeUndefined();
  });
});

describe('what a fold keeps of the filters', () => {
  const tags = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `t${from + i}`);

  const waiting = (...stamps: number[]) => stamps.map((stamp) => ({ fresh: { stamp, ids: ['w'] } }));
  const unmarked = [{}, {}];

  it('notes from its own stamp on when the overlay had none', () => {
    expect(leftAfter(undefined, 7, [], unmarked)).toEqual({ floor: 7, filters: [] });
    const left = leftAfter(undefined, 7, tags(3), waiting(6));
    expect(left.floor).toBe(7);
    expect(left.filters.map((f) => f.stamp)).toEqual([7]);
  });

  it('keeps the filters the fresh tickets left waiting need, and no more bytes than its bound', () => {
    let left = leftAfter(undefined, 1, tags(10), waiting(0));
    for (let stamp = 2; stamp <= 5; stamp++) left = leftAfter(left, stamp, tags(10, stamp * 10), waiting(0, 2));
    expect(left.floor).toBe(1);
    expect(left.filters.map((f) => f.stamp)).toEqual([1, 2, 3, 4, 5]);
    // Tickets waiting but none fresh among those read: later ones may need any filter.
    expect(leftAfter(left, 6, [], unmarked)).toEqual({ ...left, filters: left.filters });
    const later = leftAfter(left, 6, [], waiting(4, 3));
    expect(later.floor).toBe(4);
    expect(later.filters.map((f) => f.stamp)).toEqual([4, 5]);
    // None waiting: the last eight folds', for creates in flight.
    expect(leftAfter(later, 6, [], [])).toEqual(later);
    expect(leftAfter(later, 12, [], [])).toEqual({ floor: 5, filters: later.filters.slice(1) });
    let big = later;
    for (let stamp = 7; stamp <= 20; stamp++) big = leftAfter(big, stamp, tags(400, stamp * 1000), waiting(3));
    const bytes = big.filters.reduce((sum, f) => sum + f.bits.length, 0);
    expect(bytes).toBeLessThanOrEqual(LEFT_MOST_BYTES);
    expect(bytes).toBeGreaterThan(LEFT_MOST_BYTES - 500);
    expect(big.floor).toBe(big.filters[0]?.stamp);
    expect(big.filters.at(-1)?.stamp).toBe(20);
  });

  it('proves a fresh tag new only where every fold since its stamp is noted and none dropped it', () => {
    const left = { floor: 3, filters: [{ stamp: 4, bits: filterOf(['x']) }] };
    const ticket = (stamp: number, ...fresh: string[]) => ({ fresh: { stamp, ids: fresh } });
    expect([...provenNew([ticket(3, 'y', 'x')], left)]).toEqual(['y']);
    // Its stamp before the floor: a fold not noted may have dropped it.
    expect([...provenNew([ticket(1, 'y')], left)]).toEqual([]);
    // Dropped at 4, before the ticket read stamp 4: the drop is no concern of this ticket.
    expect([...provenNew([ticket(4, 'x')], left)]).toEqual(['x']);
    expect([...provenNew([ticket(3, 'y')], undefined)]).toEqual([]);
  });
});

describe('a fresh ticket waiting while a fold drops its tag', () => {
  it('reads the tag as its block has it, not as new', async () => {
    const { access, put, items } = fakeTableWithWrites();
    const stored = new Map<string, Magazine>();
    let ms = 1_700_000_000_000;
    const write = (magazine: Magazine, fresh?: { stamp: number; ids: string[] }) => {
      const deltas = countChanges(undefined, magazine).get('TAGS') ?? [];
      put({
        ...ticketKey('0', 'TAGS', ms++, `w${ms}`),
        changes: encodeDeltas(deltas),
        ...(fresh && {
          fresh: encodeFresh(
            fresh,
            deltas.map((delta) => delta.key),
          ),
        }),
      });
      stored.set(magazine.id, magazine);
    };
    const overlay = () => decodeOverlay(items.get(`${overlayKey('0').PK}\u0000#V`) ?? {});
    // A folder that stops after its first fold.
    const foldOnce = (writesStates: boolean) => {
      let folds = 0;
      const stopping: TableAccess = {
        ...access,
        send: (request) =>
          access.send((sdk, options) =>
            request(
              {
                send: (command: { input?: { TransactItems?: { Put?: { Item?: { SK?: unknown } } }[] } }) => {
                  const puts = (command.input?.TransactItems ?? []).map((item) => String(item.Put?.Item?.SK ?? ''));
                  const folding = puts.includes('#A');
                  if ((folding && ++folds > 1) || (!writesStates && puts.some((sk) => sk.startsWith('S#'))))
                    throw Object.assign(new Error('stopped'), { name: 'InternalServerError' });
                  return sdk.send(command as never, options);
                },
              } as never,
              options,
            ),
          ),
      };
      return expect(foldList(stopping, '0', 'TAGS', Date.now() + 60_000)).rejects.toThrow('stopped');
    };
    // 120 tags: the first fold puts them in the overlay and merges them into a block.
    write(
      taggedMagazine(
        'm0',
        Array.from({ length: 120 }, (_, i) => [`t${String(i).padStart(3, '0')}`, 'T'] as const),
      ),
    );
    await foldOnce(false);
    expect(overlay().merged).toContain('t050');
    // A create of t050 before its state item is written: fresh, as of fold 1. Then a full fold of
    // others ahead of it, which drops t050 from the overlay; the create's ticket still waits.
    const state = tagStateKey('0', 't050');
    expect(items.has(`${state.PK}\u0000${state.SK}`)).toBe(false);
    for (let i = 0; i < 80; i++) write(taggedMagazine(`f${i}`, [['u', 'U']]));
    write(taggedMagazine('late', [['t050', 'T']]), { stamp: 1, ids: ['t050'] });
    await foldOnce(true);
    expect(items.has(`${state.PK}\u0000${state.SK}`)).toBe(true);
    expect(overlay().entries.map((entry) => entry.key)).not.toContain('t050');
    const expected = recountTags(stored.values());
    const page = await listTags(access, { start: { offset: 0 }, limit: 500, sort: 'asc' });
    expect(page.count).toBe(expected.length);
    expect(page.items).toEqual(
      expected.map((entry) => ({ id: entry.key, magazineCount: entry.n, name: shownName(entry.names ?? []) })),
    );
  });
});

describe('the marks a create makes', () => {
  const read = (stamp: number, high: string | undefined, withState: readonly string[] = []) => {
    const items = new ItemsByKey();
    items.set({ ...endMarkKey('0', 'TAGS'), stamp, ...(high !== undefined && { high }) });
    for (const id of withState) items.set({ ...tagStateKey('0', id), states: '[[1,1,[]]]', stamp: 1 });
    return { generation: '0', items, switchedAt: 0 };
  };
  const tags = (...ids: string[]) => ids.map((id) => ({ id, name: id }));
  /** A create's reads in order: each made (`keys`), then finished (`noted`); its marks, of the last. */
  const create = (table: string, reads: ReturnType<typeof read>[], ids: string[]) => {
    const marker = freshMarker(table);
    for (const found of reads) {
      marker.keys('0', tags(...ids));
      marker.noted(found);
    }
    return marker.marks(reads.at(-1) ?? read(0, undefined), tags(...ids));
  };

  it("carries the stamp a read finished before its last one began found, never that read's own", () => {
    const table = `marks-${Math.random()}`;
    // The instance's first create, one read: no earlier stamp, no mark.
    expect(create(table, [read(3, 'm')], ['a'])).toBeUndefined();
    expect(create(table, [read(9, 'm')], ['a', 'b'])).toEqual({ stamp: 3, ids: ['a', 'b'] });
    // Held back, it reads again: each read's stamp serves the next.
    expect(create(table, [read(10, 'm'), read(14, 'm'), read(15, 'm')], ['a'])).toEqual({ stamp: 14, ids: ['a'] });
    // Two at once: the second began before the first's read finished.
    const first = freshMarker(table);
    const second = freshMarker(table);
    const keys = first.keys('0', tags('a'));
    second.keys('0', tags('a'));
    first.noted(read(20, 'm'));
    second.noted(read(21, 'm'));
    expect(keys.map((key) => key.SK)).toEqual(['#U', 'S#a']);
    expect(first.marks(read(20, 'm'), tags('a'))).toEqual({ stamp: 15, ids: ['a'] });
    expect(second.marks(read(21, 'm'), tags('a'))).toEqual({ stamp: 15, ids: ['a'] });
    // Another table's stamps are no concern of this one.
    expect(create(`${table}-other`, [read(30, 'm')], ['a'])).toBeUndefined();
    // A table made again under the same name: a stamp above what the read finds is not trusted.
    expect(create(table, [read(2, 'm')], ['a'])).toBeUndefined();
    expect(create(table, [read(2, 'm')], ['a'])).toEqual({ stamp: 2, ids: ['a'] });
  });

  it('marks only tags with no state item, at or before the last tag merged into a block', () => {
    const table = `marks-${Math.random()}`;
    create(table, [read(1, 'm')], []);
    expect(create(table, [read(2, 'm', ['b'])], ['a', 'b', 'm', 'n'])).toEqual({ stamp: 1, ids: ['a', 'm'] });
    expect(create(table, [read(2, undefined)], ['a'])).toBeUndefined();
    expect(create(table, [read(2, 'm')], ['z'])).toBeUndefined();
  });
});
