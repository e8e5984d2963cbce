import { randomBytes, randomUUID } from 'node:crypto';
import { AlreadyExists, NotFound, PreconditionFailed, StoreUnavailable } from '../domain/errors';
import { isIdentifier, newId, nowInSeconds } from '../domain/fields';
import type { IdentifiedDraft, Magazine, MagazineDraft } from '../domain/magazine';
import { type MagazineFilter, type Page, type PageQuery, yearBounds } from '../domain/paging';
import { type Created, type Precondition, satisfies, type WriteOptions } from '../domain/store';
import { deleteArticles, trashEntry } from './cleanup';
import { counted, fold, type ListCounts, listCounts, monthOf, readCounts, readDays, ticketPut } from './counters';
import { guardCheck, guardedWrite, knownGeneration, readGeneration, readInGeneration, writerOf } from './generation';
import { reserve } from './idempotency';
import { decodeAggregate, decodeMagazine, type MagazineRecord } from './items';
import {
  attr,
  idOfPosition,
  type Key,
  type ListName,
  listEntryKey,
  listPartition,
  magazineKey,
  positionRange,
  tagKey,
  tagList,
} from './keys';
import { backoff, ConditionsFailed, type Item, isConflict, type TableAccess, type TransactItem } from './table-access';

/** Magazines: one read, lists at any depth, and writes that touch no item another write needs. */

export const newRevision = () => randomBytes(9).toString('base64url');
export const newIncarnation = () => randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');

/** A magazine's deletion that began this long ago (a request that crashed) no longer refuses its articles. */
export const CLOSING_MS = 30_000;

/** Every list a magazine is in: all magazines, and one per tag. */
const listsOf = (magazine: Pick<Magazine, 'tags'>): ListName[] => [
  'ALL',
  ...magazine.tags.map((tag) => tagList(tag.id)),
];

const entryItems = (tableName: string, generation: string, magazine: Magazine): TransactItem[] =>
  listsOf(magazine).map((list) => ({
    Put: {
      TableName: tableName,
      Item: {
        ...listEntryKey(generation, list, magazine.created, magazine.id),
        ...(list !== 'ALL' && { [attr.name]: magazine.tags.find((tag) => tagList(tag.id) === list)?.name }),
      },
    },
  }));

const entryKeys = (generation: string, magazine: Magazine): Key[] =>
  listsOf(magazine).map((list) => listEntryKey(generation, list, magazine.created, magazine.id));

const magazineAttributes = (magazine: Magazine) => ({
  [attr.id]: magazine.id,
  [attr.title]: magazine.title,
  [attr.tags]: magazine.tags.map((tag) => ({ id: tag.id, name: tag.name })),
  [attr.created]: magazine.created,
  [attr.updated]: magazine.updated,
  [attr.revision]: magazine.revision,
});

/** The item of a new magazine, with no articles yet. */
export const magazineItem = (generation: string, magazine: Magazine, incarnation: string, extra: Item = {}): Item => ({
  ...magazineKey(generation, magazine.id),
  ...magazineAttributes(magazine),
  [attr.incarnation]: incarnation,
  [attr.articles]: 0,
  ...extra,
});

/** A replace that would change nothing is not written, so the revision (and the ETag) stays. */
export const isUnchanged = (previous: Magazine | undefined, draft: MagazineDraft) =>
  previous !== undefined &&
  previous.title === draft.title &&
  (draft.created === undefined || draft.created === previous.created) &&
  JSON.stringify(previous.tags.map((t) => [t.id, t.name])) === JSON.stringify(draft.tags.map((t) => [t.id, t.name]));

/** Reads one magazine and the head in one call (see generation.ts). */
const readMagazine = async (access: TableAccess, id: string) => {
  const { generation, items } = await readInGeneration(access, (g) => [magazineKey(g, id)]);
  const item = items.get(magazineKey(generation, id));
  return { generation, record: item ? decodeMagazine(item) : undefined };
};

export const getMagazine = async (access: TableAccess, id: string): Promise<Magazine> => {
  if (!isIdentifier(id)) throw new NotFound('magazine', id);
  const { record } = await readMagazine(access, id);
  if (!record) throw new NotFound('magazine', id);
  return record.magazine;
};

// ---------------------------------------------------------------------------------------------
// Lists

interface Seek {
  /** The first position to read from (inclusive), and how many entries from there come before the page. */
  readonly from: string;
  readonly skip: number;
}

/**
 * Where the entry at `target` (counted from the oldest, within `[from, to]`) is: the month and
 * the day holding it from the counts, then its place within that day. A page at any offset thus
 * reads the counts, one month's days, and the entries of one day before it: never the entries of
 * the months before.
 */
const seek = async (
  access: TableAccess,
  generation: string,
  list: ListName,
  counts: ListCounts,
  range: readonly [number, number],
  target: number,
  tickets: Parameters<typeof readDays>[4],
): Promise<Seek> => {
  const [fromMonth, toMonth] = [monthOf(range[0]), monthOf(range[1])];
  const months = [...counts.months]
    .filter(([month, count]) => count > 0 && month >= fromMonth && month <= toMonth)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  let before = 0;
  for (const [month, count] of months) {
    if (target < before + count) {
      const days = [...(await readDays(access, generation, list, month, tickets))]
        .filter(([, n]) => n > 0)
        .sort(([a], [b]) => (a < b ? -1 : 1));
      for (const [day, n] of days) {
        if (target < before + n) {
          const start = Date.UTC(Number(month.slice(0, 4)), Number(month.slice(4)) - 1, Number(day)) / 1000;
          return { from: positionRange(Math.max(start, range[0]), range[1])[0], skip: target - before };
        }
        before += n;
      }
      break;
    }
    before += count;
  }
  // Counts and entries disagree (a write landed between the reads): step from the range's start.
  return { from: positionRange(range[0], range[1])[0], skip: target };
};

/** The entries (positions) of a page of a list, oldest first within the page, and whether more follow. */
const readPositions = async (
  access: TableAccess,
  partition: string,
  bounds: readonly [string, string],
  page: { readonly forward: boolean; readonly after?: string; readonly skip: number; readonly take: number },
): Promise<string[]> => {
  const positions: string[] = [];
  let start: Key | undefined = page.after === undefined ? undefined : { PK: partition, SK: page.after };
  const wanted = page.skip + page.take;
  do {
    const { items, next } = await access.query({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
      ExpressionAttributeValues: { ':pk': partition, ':from': bounds[0], ':to': bounds[1] },
      ProjectionExpression: '#sk',
      ScanIndexForward: page.forward,
      Limit: wanted - positions.length,
      ...(start && { ExclusiveStartKey: start }),
    });
    positions.push(...items.map((item) => String(item.SK)));
    start = next;
  } while (start && positions.length < wanted);
  return positions.slice(page.skip, wanted);
};

const MAX_CREATED = 999_999_999_999;

/**
 * A page of magazines, any filter, any depth. The counts (one Query: the aggregate and the
 * pending tickets; for a tag, its item too) and the first entries are read side by side; a
 * deep offset is sought by the month and day counts; the page's magazines and a head replica
 * then come in one BatchGetItem, which also proves the generation still current.
 */
export const listMagazines = async (
  access: TableAccess,
  filter: MagazineFilter,
  page: PageQuery,
): Promise<Page<Magazine>> => {
  // A tag id no tag can have (such as one longer than a key may be) is carried by no magazine: nothing to read.
  if (filter.tag !== undefined && !isIdentifier(filter.tag)) return { items: [], count: 0, offset: page.start.offset };
  const list: ListName = filter.tag ? tagList(filter.tag) : 'ALL';
  const range: [number, number] = filter.year === undefined ? [0, MAX_CREATED] : yearBounds(filter.year);
  for (let attempt = 0; ; attempt++) {
    const generation = knownGeneration() ?? (await readGeneration(access));
    const partition = listPartition(generation, list);
    const bounds = positionRange(Math.max(0, range[0]), range[1]);
    const { start, limit, sort } = page;
    const offset = start.offset;
    const deep = !('after' in start) && offset > 0;
    const counting = readCounts(access, generation);
    // A tag's folded counts: read first only to seek a deep page, else with the page's magazines.
    const tagFirst = filter.tag && deep ? access.get(tagKey(generation, filter.tag)) : Promise.resolve(undefined);
    const countsRead = Promise.all([counting, tagFirst]).then(([{ aggregate, tickets }, tagItem]) => ({
      tickets,
      aggregate,
      counts: listCounts(filter.tag ? decodeAggregate(tagItem) : aggregate, tickets, list),
    }));
    let positions: Promise<string[]>;
    // No magazine is created before 1970.
    if (range[1] < 0) {
      positions = Promise.resolve([]);
    } else if ('after' in start) {
      positions = readPositions(access, partition, bounds, {
        forward: sort === 'asc',
        after: start.after,
        skip: 0,
        take: limit,
      });
    } else if (!deep) {
      positions = readPositions(access, partition, bounds, { forward: sort === 'asc', skip: 0, take: limit });
    } else {
      positions = countsRead.then(async ({ counts, tickets }) => {
        const total = countIn(counts, filter.year);
        if (offset >= total) return [];
        // Both orders are read oldest first from where the page starts: for `desc`, its oldest entry.
        const first = sort === 'asc' ? offset : Math.max(0, total - offset - limit);
        const take = Math.min(limit, total - offset);
        const { from, skip } = await seek(
          access,
          generation,
          list,
          counts,
          [Math.max(0, range[0]), range[1]],
          first,
          tickets,
        );
        const read = await readPositions(access, partition, [from, bounds[1]], { forward: true, skip, take });
        return sort === 'asc' ? read : read.reverse();
      });
    }
    const [read, shown] = await Promise.all([countsRead, positions]);
    const ids = shown.map(idOfPosition);
    const tag = filter.tag && !deep ? filter.tag : undefined;
    const { generation: current, items } = await readInGeneration(access, (g) => {
      const keys = ids.map((id) => magazineKey(g, id));
      return tag ? [...keys, tagKey(g, tag)] : keys;
    });
    if (current !== generation) {
      if (attempt >= 2) throw new StoreUnavailable('collection-busy');
      continue;
    }
    const counts = tag
      ? listCounts(decodeAggregate(items.get(tagKey(generation, tag))), read.tickets, list)
      : read.counts;
    const magazines: Magazine[] = [];
    for (const id of ids) {
      const item = items.get(magazineKey(generation, id));
      if (item) magazines.push(decodeMagazine(item).magazine);
    }
    const total = countIn(counts, filter.year);
    const last = shown.at(-1);
    return {
      items: magazines,
      count: total,
      offset,
      ...(last !== undefined && offset + shown.length < total && { next: last }),
      lastModified: counts.lastModified,
      revision: `${generation}.${counts.writes}`,
    };
  }
};

const countIn = (counts: ListCounts, year: number | undefined) =>
  year === undefined ? counts.total : (counts.years.get(String(year).padStart(4, '0')) ?? 0);

// ---------------------------------------------------------------------------------------------
// Writes

/** After some writes, fold pending tickets into the aggregates; one in four is enough to keep them few. */
const maybeFold = async (access: TableAccess, generation: string) => {
  if (Math.random() >= 0.25 || access.remaining() < 2_000) return;
  await fold(access, generation).catch(() => 0);
};

interface CreateOptions extends WriteOptions {
  /** `PUT /magazines/{id}`: a create under an id that must be free. */
  readonly id?: string;
}

/**
 * One transaction: the generation's guard, the magazine (only if its id is free), its list
 * entries, its ticket, and the idempotency key if there is one. A reply lost after the write was
 * applied is recognised by the write token on the magazine.
 */
export const createMagazine = async (
  access: TableAccess,
  draft: MagazineDraft,
  options: CreateOptions = {},
): Promise<Created> => {
  const reservation = options.idempotency ? await reserve(access, 'createMagazine', options.idempotency) : undefined;
  if (reservation && 'replay' in reservation) return { id: reservation.replay, replayed: true };
  const id = options.id ?? draft.id ?? newId();
  const token = randomUUID();
  try {
    for (let attempt = 0; ; attempt++) {
      const generation = await readGeneration(access);
      const now = nowInSeconds();
      const magazine: Magazine = {
        id,
        title: draft.title,
        tags: draft.tags,
        created: draft.created ?? now,
        updated: now,
        revision: newRevision(),
      };
      const items: TransactItem[] = [
        guardCheck(access.tableName, generation),
        {
          Put: {
            TableName: access.tableName,
            Item: magazineItem(generation, magazine, newIncarnation(), { [attr.writeToken]: token }),
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'PK' },
          },
        },
        ...entryItems(access.tableName, generation, magazine),
        ticketPut(access.tableName, generation, [counted(magazine, 1)], now),
        ...(reservation ? [reservation.commit(id)] : []),
      ];
      let outcome: 'applied' | 'sealed';
      try {
        // Conflicts are not retried blindly: most are another create of the same id, which a
        // look at the magazine settles at once (405) instead of after a round of backoffs.
        outcome = await guardedWrite(
          access,
          items,
          attempt,
          async () => {
            const owner = await writerOf(access, magazineKey(generation, id), token);
            if (owner === 'another') throw new AlreadyExists('magazine', id);
            return owner === 'this';
          },
          { retryConflicts: false },
        );
      } catch (error) {
        if (error instanceof ConditionsFailed && error.has(1)) throw new AlreadyExists('magazine', id);
        if (isConflict(error) && access.remaining() > 100) {
          await backoff(attempt);
          continue;
        }
        throw error;
      }
      if (outcome === 'sealed') continue;
      await maybeFold(access, generation);
      break;
    }
  } catch (error) {
    await reservation?.release().catch(() => undefined);
    throw error;
  }
  return { id, replayed: false };
};

/**
 * Whether a write conditioned on the revision it read (its item 1) lost to another write made
 * meanwhile, and should read again: under `If-Match` that is 412, since the client's version is gone.
 */
const lostRace = (error: unknown, precondition: Precondition | undefined, attempt: number): boolean => {
  if (!(error instanceof ConditionsFailed && error.has(1))) return false;
  if (precondition) throw new PreconditionFailed();
  return attempt < 10;
};

/**
 * Creates or replaces. The revision read first is the condition of the write; entries whose
 * position changed move, the ticket counts the old magazine out and the new one in.
 */
export const putMagazine = async (
  access: TableAccess,
  draft: IdentifiedDraft,
  precondition: Precondition | undefined,
): Promise<'created' | 'replaced'> => {
  for (let attempt = 0; ; attempt++) {
    const { generation, record } = await readMagazine(access, draft.id);
    if (!satisfies(precondition, record?.magazine.revision)) throw new PreconditionFailed();
    if (!record) {
      try {
        await createMagazine(access, draft, { id: draft.id });
        return 'created';
      } catch (error) {
        // Created meanwhile by someone else: replace it, as asked.
        if (error instanceof AlreadyExists && attempt < 5) continue;
        throw error;
      }
    }
    const previous = record.magazine;
    if (isUnchanged(previous, draft)) return 'replaced';
    const now = nowInSeconds();
    const next: Magazine = {
      id: draft.id,
      title: draft.title,
      tags: draft.tags,
      created: draft.created ?? previous.created,
      updated: now,
      revision: newRevision(),
    };
    const token = randomUUID();
    const kept = new Set(entryKeys(generation, next).map((key) => key.SK + key.PK));
    const items: TransactItem[] = [
      guardCheck(access.tableName, generation),
      {
        Update: {
          TableName: access.tableName,
          Key: magazineKey(generation, next.id),
          UpdateExpression:
            'SET #title = :title, #tags = :tags, #created = :created, #updated = :updated, #revision = :revision, #token = :token REMOVE #closing',
          ConditionExpression: '#revision = :previous',
          ExpressionAttributeNames: {
            '#title': attr.title,
            '#tags': attr.tags,
            '#created': attr.created,
            '#updated': attr.updated,
            '#revision': attr.revision,
            '#token': attr.writeToken,
            '#closing': attr.closing,
          },
          ExpressionAttributeValues: {
            ':title': next.title,
            ':tags': next.tags.map((tag) => ({ id: tag.id, name: tag.name })),
            ':created': next.created,
            ':updated': next.updated,
            ':revision': next.revision,
            ':token': token,
            ':previous': previous.revision,
          },
        },
      },
      ...entryKeys(generation, previous)
        .filter((key) => !kept.has(key.SK + key.PK))
        .map((Key) => ({ Delete: { TableName: access.tableName, Key } })),
      ...entryItems(access.tableName, generation, next),
      ticketPut(access.tableName, generation, [counted(previous, -1), counted(next, 1)], now),
    ];
    let outcome: 'applied' | 'sealed';
    try {
      outcome = await guardedWrite(
        access,
        items,
        attempt,
        async () => (await writerOf(access, magazineKey(generation, next.id), token)) === 'this',
      );
    } catch (error) {
      if (lostRace(error, precondition, attempt)) continue;
      throw error;
    }
    if (outcome === 'sealed') continue;
    await maybeFold(access, generation);
    return 'replaced';
  }
};

/**
 * One transaction removes the magazine, its list entries and counts, and notes its articles as
 * garbage; from that moment none of its articles can be read, listed or counted (they live under
 * its incarnation, which no magazine has any more). The articles go afterwards, as time allows.
 * With articles, the magazine is first marked as closing, so that articles added meanwhile are
 * refused rather than keep the deletion from its turn.
 */
export const deleteMagazine = async (
  access: TableAccess,
  id: string,
  precondition: Precondition | undefined,
): Promise<void> => {
  if (!isIdentifier(id)) throw new NotFound('magazine', id);
  for (let attempt = 0; ; attempt++) {
    const { generation, record } = await readMagazine(access, id);
    if (!record) throw new NotFound('magazine', id);
    const { magazine, incarnation } = record;
    if (!satisfies(precondition, magazine.revision)) throw new PreconditionFailed();
    if (record.articles > 0 && !isClosing(record)) await markClosing(access, generation, record);
    const trash = record.articles > 0 ? trashEntry(access.tableName, { kind: 'articles', incarnation }) : undefined;
    const items: TransactItem[] = [
      guardCheck(access.tableName, generation),
      {
        Delete: {
          TableName: access.tableName,
          Key: magazineKey(generation, id),
          ConditionExpression: '#revision = :revision',
          ExpressionAttributeNames: { '#revision': attr.revision },
          ExpressionAttributeValues: { ':revision': magazine.revision },
        },
      },
      ...entryKeys(generation, magazine).map((Key) => ({ Delete: { TableName: access.tableName, Key } })),
      ticketPut(access.tableName, generation, [counted(magazine, -1)], nowInSeconds()),
      ...(trash ? [trash.put] : []),
    ];
    let outcome: 'applied' | 'sealed';
    try {
      // A refused condition is a change by someone else, not a sign that this delete was made.
      outcome = await guardedWrite(
        access,
        items,
        attempt,
        async (error) =>
          !(error instanceof ConditionsFailed) && (await writerOf(access, magazineKey(generation, id))) === 'none',
      );
    } catch (error) {
      if (lostRace(error, precondition, attempt)) continue;
      throw error;
    }
    if (outcome === 'sealed') continue;
    await maybeFold(access, generation);
    if (trash) await finishArticles(access, incarnation, trash.key);
    return;
  }
};

const isClosing = (record: MagazineRecord) => record.closing !== undefined && record.closing > Date.now() - CLOSING_MS;

/** Refuses articles from now on (a plain write: it waits for no other request's transaction to be decided). */
const markClosing = async (access: TableAccess, generation: string, record: MagazineRecord) => {
  await access.update({
    Key: magazineKey(generation, record.magazine.id),
    UpdateExpression: 'SET #closing = :now',
    ConditionExpression: '#incarnation = :incarnation',
    ExpressionAttributeNames: { '#closing': attr.closing, '#incarnation': attr.incarnation },
    ExpressionAttributeValues: { ':now': Date.now(), ':incarnation': record.incarnation },
  });
};

/** The articles of a deleted magazine, now, if the request has the time; the sweep takes them otherwise. */
const finishArticles = async (access: TableAccess, incarnation: string, trash: Key) => {
  if (access.remaining() < 3_000) return;
  try {
    await deleteArticles(access, incarnation);
    await access.writeMany([], [trash]);
  } catch {
    // Left for the sweep: the articles are unreachable already.
  }
};
