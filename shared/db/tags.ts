import { NotFound, StoreUnavailable } from '../domain/errors';
import { isIdentifier } from '../domain/fields';
import type { Page, PageQuery } from '../domain/paging';
import type { TagSummary } from '../domain/tag';
import { listCounts, readCounts, shownName } from './counters';
import { knownGeneration, readGeneration, readInGeneration } from './generation';
import { decodeAggregate, type Ticket } from './items';
import { tagIndexPartition, tagKey, tagList } from './keys';
import type { Item, TableAccess } from './table-access';

/**
 * Tags in use: one item per tag (its name spellings and counts, folded), an index of their ids
 * (keys only, cheap to step over), and the pending tickets, which readers add in so that a tag
 * appears with its first magazine and disappears with its last at once.
 */

const summaryOf = (
  generation: string,
  id: string,
  item: Item | undefined,
  tickets: readonly Ticket[],
): TagSummary | undefined => {
  const counts = listCounts(decodeAggregate(item), tickets, tagList(id));
  const name = shownName(counts.names);
  if (counts.total <= 0 || name === undefined) return undefined;
  return {
    id,
    name,
    magazineCount: counts.total,
    lastModified: counts.lastModified,
    revision: `${generation}.${counts.writes}`,
  };
};

/** The tag's item with the head, beside the pending tickets: two calls, side by side. */
export const getTag = async (access: TableAccess, id: string): Promise<TagSummary> => {
  if (!isIdentifier(id)) throw new NotFound('tag', id);
  const generation = knownGeneration() ?? (await readGeneration(access));
  const [{ generation: current, items }, { tickets }] = await Promise.all([
    readInGeneration(access, (g) => [tagKey(g, id)]),
    readCounts(access, generation),
  ]);
  const summary =
    current === generation
      ? summaryOf(generation, id, items.get(tagKey(generation, id)), tickets)
      : summaryOf(current, id, items.get(tagKey(current, id)), (await readCounts(access, current)).tickets);
  if (!summary) throw new NotFound('tag', id);
  return summary;
};

/** Ids of the index from the page's start: the first `skip` stepped over (keys only), then `take`. */
const indexIds = async (
  access: TableAccess,
  generation: string,
  forward: boolean,
  skip: number,
  take: number,
  after?: string,
) => {
  const ids: string[] = [];
  let start = after === undefined ? undefined : { PK: tagIndexPartition(generation), SK: after };
  do {
    const { items, next } = await access.query({
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
      ExpressionAttributeValues: { ':pk': tagIndexPartition(generation) },
      ProjectionExpression: '#sk',
      ScanIndexForward: forward,
      Limit: skip + take - ids.length,
      ...(start && { ExclusiveStartKey: start }),
    });
    ids.push(...items.map((item) => String(item.SK)));
    start = next;
  } while (start && ids.length < skip + take);
  return ids.slice(skip);
};

/**
 * One page of the tags in use, by id. The counts (pending tickets) and the index from the page's
 * start are read side by side, then the page's tags and the head in one BatchGetItem: three calls.
 * When pending tickets bring a tag in or take one out that the index does not show yet, the page
 * is made from the index and those tags together.
 */
export const listTags = async (access: TableAccess, page: PageQuery): Promise<Page<TagSummary>> => {
  for (let attempt = 0; ; attempt++) {
    const generation = knownGeneration() ?? (await readGeneration(access));
    const forward = page.sort === 'asc';
    const offset = page.start.offset;
    const after = 'after' in page.start ? page.start.after : undefined;
    const [counts, window] = await Promise.all([
      readCounts(access, generation),
      indexIds(access, generation, forward, after === undefined ? offset : 0, page.limit + 1, after),
    ]);
    const pendingTags = [
      ...new Set(
        counts.tickets.flatMap((ticket) => ticket.changes.flatMap((change) => change.tags.map((tag) => tag.id))),
      ),
    ];
    const { generation: current, items } = await readInGeneration(access, (g) =>
      [...new Set([...window, ...pendingTags])].map((id) => tagKey(g, id)),
    );
    if (current !== generation) {
      if (attempt < 2) continue;
      throw new StoreUnavailable('collection-busy');
    }
    const summary = (id: string) => summaryOf(generation, id, items.get(tagKey(generation, id)), counts.tickets);
    const folded = (id: string) => items.get(tagKey(generation, id)) !== undefined;
    // Pending tickets that bring in a tag the index lacks, or take out one it holds.
    const added = pendingTags.filter((id) => !folded(id) && summary(id) !== undefined);
    const removed = pendingTags.filter((id) => folded(id) && summary(id) === undefined);
    const all = listCounts(counts.aggregate, counts.tickets, 'ALL');
    const count = counts.aggregate.tagsInUse + added.length - removed.length;
    const version = { lastModified: all.lastModified, revision: `${generation}.${all.writes}` };
    let ids: string[];
    if (added.length === 0 && removed.length === 0) {
      ids = window.slice(0, page.limit);
    } else {
      // Rare (a tag's first or last magazine, not yet folded): the index up to the page's end, and the pending tags with it.
      const order = (a: string, b: string) => (forward ? (a < b ? -1 : 1) : a < b ? 1 : -1);
      const upTo = await indexIds(access, generation, forward, 0, offset + page.limit + removed.length, after);
      const merged = [...new Set([...upTo, ...added])].filter((id) => !removed.includes(id)).sort(order);
      const from = after === undefined ? offset : merged.findIndex((id) => order(id, after) > 0);
      ids = merged.slice(Math.max(0, from), Math.max(0, from) + page.limit);
      const missing = ids.filter((id) => !items.get(tagKey(generation, id)) && !added.includes(id));
      if (missing.length > 0)
        for (const item of (await access.getMany(missing.map((id) => tagKey(generation, id)))).values())
          items.set(item);
    }
    const tags = ids.flatMap((id) => summary(id) ?? []);
    const last = ids.at(-1);
    return {
      items: tags,
      count,
      offset,
      ...(last !== undefined && offset + ids.length < count && { next: last }),
      ...version,
    };
  }
};
