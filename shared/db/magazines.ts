import { randomUUID } from 'node:crypto';
import { AlreadyExists, NotFound, PreconditionFailed, StoreUnavailable } from '../domain/errors';
import { isIdentifier, newId, nowInSeconds } from '../domain/fields';
import type { IdentifiedDraft, Magazine, MagazineDraft } from '../domain/magazine';
import { type MagazineFilter, type Page, type PageQuery, yearBounds } from '../domain/paging';
import { type Created, type Precondition, satisfies, type WriteOptions } from '../domain/store';
import { finishArticles, trashEntry } from './cleanup';
import { countBefore, countIn } from './counts';
import { guardCheck, lastGeneration, readGeneration, readInGeneration, writeLoop, writerOf } from './generation';
import { reserve } from './idempotency';
import { decodeMagazine, decodeMagazineView, MAGAZINE_VIEW } from './items';
import { attr, idOfPosition, listPosition, type MagazineList, magazineKey, positionRange, tagList } from './keys';
import { countsOf, GenerationMoved, magazinePage, readList, ticketPuts, type Window } from './lists';
import {
  deletionNote,
  isClosing,
  isUnchanged,
  magazineItem,
  markClosing,
  newIncarnation,
  newRevision,
} from './magazine-item';
import { currentRequestId } from './request';
import { backoff, isConflict, type TableAccess } from './table-access';
import { ConditionsFailed, type Transaction } from './table-writes';

/** Magazines: one read, lists at any depth, and writes that touch no item another write needs. */

/** Reads one magazine and the head in one call (see generation.ts): every write of a magazine or its articles starts here. */
export const readMagazine = async (access: TableAccess, id: string) => {
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
      const members = window ? await magazinePage(access, snapshot, window) : [];
      const positions = members.map((member) => member.key).filter((key) => key >= low && key <= high);
      if (sort === 'desc') positions.reverse();
      const ids = positions.map(idOfPosition);
      const { generation: current, items } = await readInGeneration(
        access,
        (g) => ids.map((id) => magazineKey(g, id)),
        MAGAZINE_VIEW,
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
        offset,
        ...(last !== undefined && offset + positions.length < total && { next: last }),
        lastModified: counts.lastModified,
        revision: `${generation}.${counts.writes}`,
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

// ---------------------------------------------------------------------------------------------
// Writes

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
    await writeLoop(
      access,
      async () => {
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
        return {
          items: {
            guard: guardCheck(access.tableName, generation),
            magazine: {
              Put: {
                TableName: access.tableName,
                Item: magazineItem(generation, magazine, newIncarnation(), {
                  [attr.writeToken]: token,
                  [attr.requestId]: currentRequestId(),
                }),
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': 'PK' },
              },
            },
            tickets: ticketPuts(access.tableName, generation, undefined, magazine, token),
            idempotency: reservation?.commit(id),
          },
          result: id,
          made: async () => {
            const owner = await writerOf(access, magazineKey(generation, id), token);
            if (owner === 'another') throw new AlreadyExists('magazine', id);
            return owner === 'this';
          },
        };
      },
      {
        // Conflicts are not retried blindly: most are another create of the same id, which a
        // look at the magazine settles at once (405) instead of after a round of backoffs.
        retryConflicts: false,
        retry: async (error, attempt) => {
          if (error instanceof ConditionsFailed && error.has('magazine')) throw new AlreadyExists('magazine', id);
          if (!isConflict(error) || access.remaining() <= 100) return false;
          await backoff(attempt);
          return true;
        },
      },
    );
  } catch (error) {
    await reservation?.release().catch(() => undefined);
    throw error;
  }
  return { id, replayed: false };
};

/**
 * Whether a write conditioned on the revision it read (its `magazine` item) lost to another write made
 * meanwhile, and should read again: under `If-Match` that is 412, since the client's version is gone.
 */
const lostRace = (error: unknown, precondition: Precondition | undefined, attempt: number): boolean => {
  if (!(error instanceof ConditionsFailed && error.has('magazine'))) return false;
  if (precondition) throw new PreconditionFailed();
  return attempt < 10;
};

/**
 * Creates or replaces. The revision read first is the condition of the write; entries whose
 * position changed move, the ticket counts the old magazine out and the new one in.
 */
export const replaceMagazine = async (
  access: TableAccess,
  draft: IdentifiedDraft,
  precondition: Precondition | undefined,
): Promise<'created' | 'replaced'> => {
  return writeLoop<'created' | 'replaced'>(
    access,
    async (attempt) => {
      const { generation, record } = await readMagazine(access, draft.id);
      if (!satisfies(precondition, record?.magazine.revision)) throw new PreconditionFailed();
      if (!record) {
        try {
          await createMagazine(access, draft, { id: draft.id });
          return { done: 'created' };
        } catch (error) {
          // Created meanwhile by someone else: replace it, as asked.
          if (error instanceof AlreadyExists && attempt < 5) return 'again';
          throw error;
        }
      }
      const previous = record.magazine;
      if (isUnchanged(previous, draft)) return { done: 'replaced' };
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
      const items: Transaction = {
        guard: guardCheck(access.tableName, generation),
        magazine: {
          Update: {
            TableName: access.tableName,
            Key: magazineKey(generation, next.id),
            UpdateExpression:
              'SET #title = :title, #tags = :tags, #created = :created, #updated = :updated, #revision = :revision, #token = :token, #request = :request REMOVE #closing',
            ConditionExpression: '#revision = :previous',
            ExpressionAttributeNames: {
              '#title': attr.title,
              '#tags': attr.tags,
              '#created': attr.created,
              '#updated': attr.updated,
              '#revision': attr.revision,
              '#token': attr.writeToken,
              '#request': attr.requestId,
              '#closing': attr.closing,
            },
            ExpressionAttributeValues: {
              ':title': next.title,
              ':tags': next.tags.map((tag) => ({ id: tag.id, name: tag.name })),
              ':created': next.created,
              ':updated': next.updated,
              ':revision': next.revision,
              ':token': token,
              ':request': currentRequestId(),
              ':previous': previous.revision,
            },
          },
        },
        tickets: ticketPuts(access.tableName, generation, previous, next, token),
      };
      return {
        items,
        result: 'replaced',
        made: async () => (await writerOf(access, magazineKey(generation, next.id), token)) === 'this',
      };
    },
    { retry: (error, attempt) => lostRace(error, precondition, attempt) },
  );
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
  const { trash, incarnation } = await writeLoop(
    access,
    async () => {
      const { generation, record } = await readMagazine(access, id);
      if (!record) throw new NotFound('magazine', id);
      const { magazine, incarnation } = record;
      if (!satisfies(precondition, magazine.revision)) throw new PreconditionFailed();
      if (record.articles > 0 && !isClosing(record)) await markClosing(access, generation, record);
      const trash = record.articles > 0 ? trashEntry(access.tableName, { kind: 'articles', incarnation }) : undefined;
      const token = randomUUID();
      const items: Transaction = {
        guard: guardCheck(access.tableName, generation),
        magazine: {
          Delete: {
            TableName: access.tableName,
            Key: magazineKey(generation, id),
            ConditionExpression: '#revision = :revision',
            ExpressionAttributeNames: { '#revision': attr.revision },
            ExpressionAttributeValues: { ':revision': magazine.revision },
          },
        },
        deletion: { Put: { TableName: access.tableName, Item: deletionNote(generation, magazine, incarnation) } },
        tickets: ticketPuts(access.tableName, generation, magazine, undefined, token),
        trash: trash?.put,
      };
      return {
        items,
        result: { trash, incarnation },
        // A refused condition is a change by someone else, not a sign that this delete was made.
        made: async (error) =>
          !(error instanceof ConditionsFailed) && (await writerOf(access, magazineKey(generation, id))) === 'none',
      };
    },
    { retry: (error, attempt) => lostRace(error, precondition, attempt) },
  );
  if (trash) await finishArticles(access, incarnation, trash.key);
};
