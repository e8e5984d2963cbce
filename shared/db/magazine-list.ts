import { StoreUnavailable } from '../domain/errors';
import { isIdentifier } from '../domain/fields';
import type { Magazine } from '../domain/magazine';
import { type MagazineFilter, type Page, type PageQuery, yearBounds } from '../domain/paging';
import type { Version } from '../domain/store';
import { countBefore, countIn, listVersion } from './counts';
import { lastGeneration, readInGeneration } from './generation';
import { decodeMagazineView, MAGAZINE_VIEW, magazineIdOf } from './items';
import { idOfPosition, listPosition, type MagazineList, magazineKey, positionRange, tagList } from './keys';
import { countsOf, cursorPageOffset, GenerationMoved, magazinePage, readList, type Window } from './lists';
import type { TableAccess } from './table-access';

/**
 * A page of magazines, any filter, any depth, in three calls: the list's snapshot (counts, tickets,
 * directory), the blocks that hold the page, then the page's magazines with a head replica, which
 * proves the generation still current.
 */
export const listMagazines = async (
  access: TableAccess,
  filter: MagazineFilter,
  page: PageQuery,
): Promise<Page<Magazine>> => {
  // A tag id no tag can have (such as one longer than a key may be) is carried by no magazine: nothing to read.
  if (filter.tag !== undefined && !isIdentifier(filter.tag)) return { items: [], count: 0, offset: page.start.offset };
  const list: MagazineList = filter.tag ? tagList(filter.tag) : 'ALL';
  const year = filter.year === undefined ? undefined : String(filter.year).padStart(4, '0');
  const [low, high] = filter.year === undefined ? ['', '~'] : positionRange(...yearBounds(filter.year));
  const { start, limit, sort } = page;
  const offset = start.offset;
  for (let attempt = 0; ; attempt++) {
    const generation = await lastGeneration(access);
    try {
      const snapshot = await readList(access, generation, list, { directory: true });
      const counts = countsOf(snapshot);
      const total = countIn(counts, year);
      const before = year === undefined ? 0 : countBefore(counts, year);
      let window: Window | undefined;
      if ('after' in start) window = { after: start.after, take: limit, forward: sort === 'asc' };
      else if (offset < total)
        window =
          sort === 'asc'
            ? { from: before + offset, to: before + Math.min(total, offset + limit) }
            : { from: before + Math.max(0, total - offset - limit), to: before + total - offset };
      const { members, firstRank } = window
        ? await magazinePage(access, snapshot, window)
        : { members: [], firstRank: 0 };
      const at = 'after' in start ? cursorPageOffset(sort, firstRank, members.length, total, before) : offset;
      const positions = members.map((member) => member.key).filter((key) => key >= low && key <= high);
      if (sort === 'desc') positions.reverse();
      const ids = positions.map(idOfPosition);
      const {
        generation: current,
        items,
        switchedAt,
      } = await readInGeneration(
        access,
        (g) => ids.map((id) => magazineKey(g, id)),
        MAGAZINE_VIEW,
        (item, g) => magazineKey(g, magazineIdOf(item)),
      );
      if (current !== generation) throw new GenerationMoved();
      const magazines: Magazine[] = [];
      for (const [index, id] of ids.entries()) {
        const item = items.get(magazineKey(generation, id));
        const magazine = item ? decodeMagazineView(item) : undefined;
        // Deleted, moved or taken out of the list since the list was read: the page is read again.
        if (
          !magazine ||
          listPosition(magazine.created, magazine.id) !== positions[index] ||
          (filter.tag !== undefined && !magazine.tags.some((tag) => tag.id === filter.tag))
        )
          throw new ListMoved();
        magazines.push(magazine);
      }
      const last = positions.at(-1);
      return {
        items: magazines,
        count: total,
        offset: Math.max(0, at),
        ...(last !== undefined && at + positions.length < total && { next: last }),
        ...listVersion(generation, counts, switchedAt),
      };
    } catch (error) {
      const moved = error instanceof GenerationMoved || error instanceof ListMoved;
      if (!moved) throw error;
      if (attempt >= 2) throw new StoreUnavailable('collection-busy');
    }
  }
};

/** A magazine of a page changed its place in the list (or left it) between the list's read and its own. */
class ListMoved extends Error {
  override readonly name = 'ListMoved';
}

/** The collection's version as `GET /magazines` tells it (`ETag`, `Last-Modified`). */
export const collectionVersion = async (
  access: TableAccess,
  generation: string,
  switchedAt: number,
): Promise<Version> => {
  const { revision, lastModified } = listVersion(
    generation,
    countsOf(await readList(access, generation, 'ALL')),
    switchedAt,
  );
  return { revision, updated: lastModified };
};
