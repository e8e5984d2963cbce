import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Magazine } from '../../../shared/db/../domain/magazine';
import {
  countChanges,
  type Delta,
  listsOf,
  noCounts,
  shownName,
  type Ticket,
  versionWith,
  withTickets,
} from '../../../shared/db/counts';
import { type Folded, foldInto } from '../../../shared/db/fold';
import { type CountedList, listPosition, tagList } from '../../../shared/db/keys';
import { isClosing } from '../../../shared/db/magazine-item';
import { type Entry, emptyDirectory, withDeltas } from '../../../shared/db/ranked';
import { CLOSING_MS } from '../../../shared/timing';

/**
 * The count arithmetic on its own: what a write changes in each list, and folding. The property:
 * however the changes of any sequence of writes are split into folds, in whatever order, the
 * folded lists (and, at any moment, the folded part with the rest added by a reader) equal a
 * recount of the magazines the writes left.
 */

const magazine = (id: string, created: number, tags: [string, string][], title = 'T'): Magazine => ({
  id,
  title,
  created,
  tags: tags.map(([tagId, name]) => ({ id: tagId, name })),
  updated: created,
  revision: 'r',
});

describe('countChanges: what one write changes in each list', () => {
  it('a create counts the magazine into all magazines, each of its tags, and the tags in use', () => {
    const changes = countChanges(undefined, magazine('m', 1_700_000_000, [['sci', 'Science']]));
    const at = listPosition(1_700_000_000, 'm');
    expect(Object.fromEntries(changes)).toEqual({
      ALL: [{ key: at, n: 1 }],
      'TAG#sci': [{ key: at, n: 1, names: [['Science', 1]] }],
      TAGS: [{ key: 'sci', n: 1, names: [['Science', 1]] }],
    });
  });

  it('a title change touches every list the magazine is in, changing no count, and not the tags in use', () => {
    const before = magazine('m', 1, [['sci', 'Science']], 'Old');
    const changes = countChanges(before, { ...before, title: 'New' });
    expect(Object.fromEntries(changes)).toEqual({ ALL: [], 'TAG#sci': [] });
  });

  it('a new spelling of a tag moves one name count, not the magazine', () => {
    const before = magazine('m', 1, [['sci', 'Science']]);
    const changes = countChanges(before, magazine('m', 1, [['sci', 'science']]));
    expect(changes.get('TAG#sci')).toEqual([
      {
        key: listPosition(1, 'm'),
        n: 0,
        names: [
          ['Science', -1],
          ['science', 1],
        ],
      },
    ]);
    expect(changes.get('ALL')).toEqual([]);
  });

  it('a new created time moves the magazine in every list: out of its old place, into its new one', () => {
    const changes = countChanges(magazine('m', 1, [['sci', 'S']]), magazine('m', 2, [['sci', 'S']]));
    expect(changes.get('ALL')).toEqual([
      { key: listPosition(1, 'm'), n: -1 },
      { key: listPosition(2, 'm'), n: 1 },
    ]);
    expect(changes.has('TAGS')).toBe(false);
  });

  it('a delete counts the magazine out of every list it was in', () => {
    const changes = countChanges(magazine('m', 1, [['a', 'A']]), undefined);
    expect(changes.get('TAGS')).toEqual([{ key: 'a', n: -1, names: [['A', -1]] }]);
  });
});

describe('versionWith: the version of a list whose keys are not positions (TAGS)', () => {
  it('adds one write per ticket and the latest change, and reads no year out of a tag id', () => {
    const tickets: Ticket[] = [
      { sk: 't1', at: 50, deltas: [{ key: 'news', n: 1 }] },
      { sk: 't2', at: 40, deltas: [{ key: '2024-review', n: 1 }] },
    ];
    const counts = versionWith({ ...noCounts, total: 3, writes: 7, lastModified: 45 }, tickets);
    expect(counts).toEqual({ ...noCounts, total: 3, writes: 9, lastModified: 50 });
    expect(counts.years.size).toBe(0);
  });
});

describe('listsOf: the lists a magazine is in', () => {
  it('is all magazines and one list per tag, each with the tag it counts', () => {
    const lists = listsOf(
      magazine('m', 1_700_000_000, [
        ['sci', 'Science'],
        ['art', 'Art'],
      ]),
    );
    expect(lists).toEqual([
      { list: 'ALL' },
      { list: tagList('sci'), tag: { id: 'sci', name: 'Science' } },
      { list: tagList('art'), tag: { id: 'art', name: 'Art' } },
    ]);
  });

  it('names exactly the lists, but TAGS, whose counts a create changes', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 }),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        (tags, created) => {
          const made = magazine(
            'm',
            created,
            tags.map((tag) => [tag, tag.toUpperCase()]),
          );
          const changed = [...countChanges(undefined, made).keys()].filter((list) => list !== 'TAGS');
          expect(changed).toEqual(listsOf(made).map(({ list }) => list));
        },
      ),
    );
  });
});

describe('isClosing: whether a magazine refuses articles because its deletion has begun', () => {
  const record = (closing: number | undefined) => ({
    magazine: magazine('m', 1_700_000_000, []),
    incarnation: 'i',
    articles: 3,
    lastArticleCreated: 0,
    articlesModified: undefined,
    closing,
    writeToken: undefined,
  });

  it('is so from the mark until CLOSING_MS after it, when a deletion that crashed stops refusing them', () => {
    const now = Date.now();
    expect(isClosing(record(undefined))).toBe(false);
    expect(isClosing(record(now))).toBe(true);
    expect(isClosing(record(now - CLOSING_MS + 5_000))).toBe(true);
    expect(isClosing(record(now - CLOSING_MS - 1))).toBe(false);
  });
});

describe('shownName', () => {
  it('is the spelling most magazines carry; on a tie the first in alphabetical order; none when no count is left', () => {
    expect(
      shownName(
        new Map([
          ['b', 2],
          ['a', 2],
          ['c', 1],
        ]),
      ),
    ).toBe('a');
    expect(
      shownName(
        new Map([
          ['b', 3],
          ['a', 2],
        ]),
      ),
    ).toBe('b');
    expect(shownName(new Map([['a', 0]]))).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// The property

const ids = ['a', 'b', 'c', 'd', 'e'];
const tagIds = ['x', 'y', 'z'];
const spellings = ['X', 'x'];
const times = [0, 1_600_000_000, 1_600_000_000, 1_700_000_000];

const magazineArbitrary = (id: string) =>
  fc
    .record({
      created: fc.constantFrom(...times),
      tags: fc.uniqueArray(fc.tuple(fc.constantFrom(...tagIds), fc.constantFrom(...spellings)), {
        selector: ([tagId]) => tagId,
        maxLength: 3,
      }),
      title: fc.constantFrom('T', 'U'),
    })
    .map(({ created, tags, title }) => magazine(id, created, tags, title));

/** A write: the magazine `id` made to be `after` (a create or a replace), or deleted (undefined). */
const writeArbitrary = fc
  .constantFrom(...ids)
  .chain((id) => fc.tuple(fc.constant(id), fc.option(magazineArbitrary(id), { nil: undefined, freq: 3 })));

/** What a recount of `magazines` gives for a list: its members in order, with counts and spellings. */
const recount = (magazines: readonly Magazine[], list: CountedList): Entry[] => {
  const members = new Map<string, { n: number; names: Map<string, number> }>();
  for (const m of magazines) {
    for (const tag of list === 'ALL' ? [undefined] : m.tags) {
      if (list !== 'ALL' && list !== 'TAGS' && tagList(tag?.id ?? '') !== list) continue;
      const key = list === 'TAGS' ? (tag?.id ?? '') : listPosition(m.created, m.id);
      const member = members.get(key) ?? { n: 0, names: new Map() };
      members.set(key, member);
      member.n += 1;
      if (list === 'TAGS' && tag) member.names.set(tag.name, (member.names.get(tag.name) ?? 0) + 1);
    }
  }
  return [...members]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, { n, names }]) => ({ key, n, ...(names.size > 0 && { names: [...names].sort() }) }));
};

const lists: CountedList[] = ['ALL', 'TAGS', ...tagIds.map(tagList)];

/** A list's folded state and the blocks it wrote, as the table would hold them. */
class ListState {
  folded: Folded = { stamp: 0, counts: noCounts, directory: emptyDirectory };
  readonly blocks = new Map<string, Entry[]>();

  constructor(readonly list: CountedList) {}

  fold(tickets: readonly Ticket[]) {
    const result = foldInto(this.list, this.folded, tickets, this.blocks, 0, 4);
    for (const id of result.deleted) this.blocks.delete(id);
    for (const written of result.written) this.blocks.set(written.id, [...written.entries]);
    this.folded = { stamp: result.stamp, counts: result.counts, directory: result.directory };
  }

  /** Members as a reader sees them: the folded blocks in the directory's order, with `pending` added. */
  members(pending: readonly Delta[]): Entry[] {
    const folded = this.folded.directory.blocks.flatMap((block) => this.blocks.get(block.id) ?? []);
    return withDeltas(folded, this.list === 'TAGS' ? pending : pending.map(({ key, n }) => ({ key, n })))
      .filter((entry) => entry.n > 0)
      .map(({ key, n, names }) => ({
        key,
        n,
        ...(this.list === 'TAGS' && names && { names: names.filter(([, c]) => c !== 0).sort() }),
      }));
  }
}

const shown = (entries: readonly Entry[]) =>
  entries.map(({ key, n, names }) => ({ key, n, ...(names && names.length > 0 && { names: [...names].sort() }) }));

describe('folding: any split and order of the changes equals a recount', () => {
  it('holds for the folded lists and, at every fold, for the folded part with the pending rest added', () => {
    fc.assert(
      fc.property(
        fc.array(writeArbitrary, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 40 }),
        fc.func(fc.integer()),
        (writes, batchSizes, order) => {
          const stored = new Map<string, Magazine>();
          const tickets = new Map<CountedList, Ticket[]>(lists.map((list) => [list, []]));
          let at = 0;
          for (const [id, after] of writes) {
            const before = stored.get(id);
            if (!before && !after) continue;
            for (const [list, deltas] of countChanges(before, after))
              tickets.get(list)?.push({ sk: `t${++at}`, at, deltas });
            if (after) stored.set(id, after);
            else stored.delete(id);
          }
          const magazines = [...stored.values()];
          for (const list of lists) {
            const state = new ListState(list);
            // Folds take tickets in any order (a delete's before its create's), in batches of any size.
            const pending = [...(tickets.get(list) ?? [])].sort(
              (a, b) => order(a.sk) - order(b.sk) || (a.sk < b.sk ? -1 : 1),
            );
            let batch = 0;
            while (pending.length > 0) {
              const rest = pending.flatMap((ticket) => ticket.deltas);
              expect(shown(state.members(rest)), `${list}, before fold ${batch}`).toEqual(recount(magazines, list));
              if (list !== 'TAGS') {
                const counts = withTickets(state.folded.counts, pending);
                expect(counts.total, list).toBe(recount(magazines, list).length);
              }
              state.fold(pending.splice(0, batchSizes[batch++ % batchSizes.length] ?? 1));
            }
            expect(shown(state.members([])), list).toEqual(recount(magazines, list));
            const inUse = recount(magazines, list);
            if (list === 'TAGS') expect(state.folded.counts.total).toBe(inUse.length);
            else {
              expect(state.folded.counts.total).toBe(inUse.length);
              const years = new Map<string, number>();
              for (const member of inUse) {
                const year = String(new Date(Number(member.key.slice(0, 12)) * 1000).getUTCFullYear()).padStart(4, '0');
                years.set(year, (years.get(year) ?? 0) + 1);
              }
              expect(Object.fromEntries(state.folded.counts.years)).toEqual(Object.fromEntries(years));
            }
            if (list.startsWith('TAG#')) {
              const spelled = new Map<string, number>();
              for (const m of magazines)
                for (const tag of m.tags)
                  if (tagList(tag.id) === list) spelled.set(tag.name, (spelled.get(tag.name) ?? 0) + 1);
              expect(Object.fromEntries(state.folded.counts.names)).toEqual(Object.fromEntries(spelled));
            }
            // Directory sizes agree with the blocks they name, and each bound parts a block from the one before.
            let last: string | undefined;
            for (const [index, block] of state.folded.directory.blocks.entries()) {
              const entries = state.blocks.get(block.id) ?? [];
              expect(block.size).toBe(entries.reduce((sum, entry) => sum + entry.n, 0));
              if (index > 0) expect(block.first > (last ?? '')).toBe(true);
              expect(block.first <= (entries[0]?.key ?? '')).toBe(true);
              last = entries.at(-1)?.key;
              expect(entries.length).toBeLessThanOrEqual(4);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a delete folded before its create leaves no tag behind (the ghost tag of a count dropped for arriving early)', () => {
    const m = magazine('m', 1, [['x', 'X']]);
    const [create] = [...countChanges(undefined, m)].filter(([list]) => list === 'TAGS');
    const [remove] = [...countChanges(m, undefined)].filter(([list]) => list === 'TAGS');
    const state = new ListState('TAGS');
    state.fold([{ sk: 't2', at: 2, deltas: remove?.[1] ?? [] }]);
    state.fold([{ sk: 't1', at: 1, deltas: create?.[1] ?? [] }]);
    expect(state.members([])).toEqual([]);
    expect(state.folded.counts.total).toBe(0);
  });
});
