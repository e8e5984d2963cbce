import { NotFound, StoreUnavailable } from '../domain/errors';
import { isIdentifier } from '../domain/fields';
import type { Page, PageQuery } from '../domain/paging';
import type { TagSummary } from '../domain/tag';
import { shownName, versionWith, withTickets } from './counts';
import { lastGeneration, readInGeneration } from './generation';
import { tagList } from './keys';
import { GenerationMoved, pageMembers, readList, tagsInUse, type Window } from './lists';
import type { TableAccess } from './table-access';

/**
 * Tags in use: the `TAGS` list holds each tag id with how many magazines carry it and the
 * spellings of its name, in id order; a tag's own list (`TAG#<id>`) holds its counts. A tag is in
 * use from its first magazine's write to its last one's, at once: readers add the tickets in.
 */

/** One tag: its list's counts with the tickets in, and the head in a second call (two calls). */
export const getTag = async (access: TableAccess, id: string): Promise<TagSummary> => {
  if (!isIdentifier(id)) throw new NotFound('tag', id);
  for (let attempt = 0; ; attempt++) {
    const generation = await lastGeneration(access);
    const [snapshot, head] = await Promise.all([
      readList(access, generation, tagList(id)),
      readInGeneration(access, () => []),
    ]);
    if (head.generation !== generation) {
      if (attempt < 2) continue;
      throw new StoreUnavailable('collection-busy');
    }
    const counts = withTickets(snapshot.folded, snapshot.tickets);
    const name = shownName(counts.names);
    if (counts.total <= 0 || name === undefined) throw new NotFound('tag', id);
    return {
      id,
      name,
      magazineCount: counts.total,
      lastModified: counts.lastModified,
      revision: `${generation}.${counts.writes}`,
    };
  }
};

/**
 * One page of the tags in use, by id: the `TAGS` snapshot, the counts of the tags its tickets
 * change (only when there are tickets), then the page's blocks with the head: two or three calls.
 */
export const listTags = async (access: TableAccess, page: PageQuery): Promise<Page<TagSummary>> => {
  const offset = page.start.offset;
  for (let attempt = 0; ; attempt++) {
    const generation = await lastGeneration(access);
    try {
      const snapshot = await readList(access, generation, 'TAGS', { directory: true });
      const { count, sizes, read } = await tagsInUse(access, snapshot);
      let window: Window | undefined;
      if ('after' in page.start) window = { after: page.start.after, take: page.limit, forward: page.sort === 'asc' };
      else if (offset < count)
        window =
          page.sort === 'asc'
            ? { from: offset, to: Math.min(count, offset + page.limit) }
            : { from: Math.max(0, count - offset - page.limit), to: count - offset };
      const { members, headChecked } = window
        ? await pageMembers(access, snapshot, window, sizes, read)
        : { members: [], headChecked: false };
      if (!headChecked && (await readInGeneration(access, () => [])).generation !== generation)
        throw new GenerationMoved();
      if (page.sort === 'desc') members.reverse();
      const counts = versionWith(snapshot.folded, snapshot.tickets);
      const tags = members.map((member) => ({
        id: member.key,
        name: shownName(member.names ?? []) ?? member.key,
        magazineCount: member.n,
      }));
      const last = tags.at(-1);
      return {
        items: tags,
        count,
        offset,
        ...(last !== undefined && offset + tags.length < count && { next: last.id }),
        lastModified: counts.lastModified,
        revision: `${generation}.${counts.writes}`,
      };
    } catch (error) {
      if (!(error instanceof GenerationMoved)) throw error;
      if (attempt >= 2) throw new StoreUnavailable('collection-busy');
    }
  }
};
