import { randomUUID } from 'node:crypto';
import { AlreadyExists, NotFound, PreconditionFailed } from '../domain/errors';
import { isIdentifier, newId, nowInSeconds } from '../domain/fields';
import type { IdentifiedDraft, Magazine, MagazineDraft } from '../domain/magazine';
import { type Created, type Precondition, satisfies, unmetCondition, type WriteOptions } from '../domain/store';
import { readAdmitted, type WriteAdmission, writeAdmission } from './admission';
import { finishArticles, trashEntry } from './cleanup';
import {
  cancelled,
  type GenerationRead,
  guardCheck,
  readInGeneration,
  takeTurn,
  wasDeleted,
  writeLoop,
  writerOf,
} from './generation';
import { reserve } from './idempotency';
import { decodeMagazine } from './items';
import { attr, deletionKey, magazineKey } from './keys';
import {
  deletionNote,
  isClosing,
  isUnchanged,
  magazineAttributes,
  magazineItem,
  markClosing,
  newIncarnation,
  newRevision,
} from './magazine-item';
import { currentRequestId } from './request';
import { backoff, isConflict, type TableAccess } from './table-access';
import { ConditionsFailed, type Transaction } from './table-writes';
import { freshMarker, ticketPuts } from './tickets';

/** Magazines: one read, and writes that touch no item another write needs (lists: magazine-list.ts). */

/**
 * Reads one magazine and the head in one call (see generation.ts): a delete and every write of
 * articles start here; a create and a replace start with `readAdmitted` (admission.ts), which
 * reads `TAGS`'s admission in the same call.
 */
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
// Writes

interface CreateOptions extends WriteOptions {
  /** `PUT /magazines/{id}`: a create under an id that must be free. */
  readonly id?: string;
  /** The request's admission to `TAGS`, if it began to wait for it before. */
  readonly admission?: WriteAdmission;
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
  const admission = options.admission ?? writeAdmission();
  // An id the client chose may be taken: that is 405 at once, not after a wait for admission.
  const chosen = options.id ?? draft.id;
  try {
    await writeLoop(
      access,
      async () => {
        const marker = freshMarker(access.tableName);
        const read = await readAdmitted(
          access,
          admission,
          (g) => [...(chosen === undefined ? [] : [magazineKey(g, chosen)]), ...marker.keys(g, draft.tags)],
          (found) => {
            marker.noted(found);
            const taken = chosen !== undefined && found.items.get(magazineKey(found.generation, chosen));
            return taken ? undefined : { before: [], after: draft.tags };
          },
        );
        const { generation } = read;
        const fresh = marker.marks(read, draft.tags);
        const incarnation = newIncarnation();
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
                Item: magazineItem(generation, magazine, incarnation, {
                  [attr.writeToken]: token,
                  [attr.requestId]: currentRequestId(),
                }),
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': 'PK' },
              },
            },
            tickets: ticketPuts(access.tableName, generation, undefined, magazine, token, Date.now(), fresh),
            idempotency: reservation?.commit(id),
          },
          result: id,
          // Its incarnation, not its token, tells this create's magazine: a replace that came after keeps
          // the one and not the other. A magazine gone or made anew since may be this one, deleted (a
          // transaction DynamoDB cancelled made nothing).
          made: async (error) => {
            const owner = await writerOf(
              access,
              magazineKey(generation, id),
              token,
              (item) => item[attr.incarnation] === incarnation,
            );
            if (owner === 'this') return true;
            if (owner === 'unknown') return owner;
            const deleted = cancelled(error)
              ? false
              : await wasDeleted(access, deletionKey(generation, id, incarnation));
            if (deleted !== false) return deleted;
            if (owner === 'another') throw new AlreadyExists('magazine', id);
            return false;
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
 * meanwhile, and should read again: under an `If-Match` of ETags that is 412 at once, since the
 * client's version is gone; any other precondition (`If-Match: *`, `If-None-Match`) is checked
 * again against what the next read finds, after its turn (`takeTurn`).
 */
const lostRace = async (
  access: TableAccess,
  error: unknown,
  precondition: Precondition | undefined,
  attempt: number,
) => {
  if (!(error instanceof ConditionsFailed && error.has('magazine'))) return false;
  if (Array.isArray(precondition?.match)) throw new PreconditionFailed('match');
  await takeTurn(access, error, attempt);
  return true;
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
  const admission = writeAdmission();
  const recordIn = ({ generation, items }: GenerationRead) => {
    const item = items.get(magazineKey(generation, draft.id));
    return item && decodeMagazine(item);
  };
  return writeLoop<'created' | 'replaced'>(
    access,
    async (attempt) => {
      const read = await readAdmitted(
        access,
        admission,
        (g) => [magazineKey(g, draft.id)],
        (found) => {
          const previous = recordIn(found)?.magazine;
          // A replace refused, or a create (which waits itself), waits for nothing.
          if (!previous || !satisfies(precondition, previous)) return undefined;
          return { before: previous.tags, after: draft.tags };
        },
      );
      const { generation } = read;
      const record = recordIn(read);
      const unmet = unmetCondition(precondition, record?.magazine);
      if (unmet) throw new PreconditionFailed(unmet);
      if (!record) {
        try {
          await createMagazine(access, draft, { id: draft.id, admission });
          return { done: 'created' };
        } catch (error) {
          if (!(error instanceof AlreadyExists)) throw error;
          // Created meanwhile by someone else: replace it, as asked (a PUT is never 405).
          await takeTurn(access, error, attempt);
          return 'again';
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
      const stored = magazineAttributes(next);
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
              ':title': stored[attr.title],
              ':tags': stored[attr.tags],
              ':created': stored[attr.created],
              ':updated': stored[attr.updated],
              ':revision': stored[attr.revision],
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
        // After a failure that may hide this write (not a cancelled transaction), another write since hides it too.
        made: async (error) => {
          const writer = await writerOf(access, magazineKey(generation, next.id), token);
          if (writer === 'this') return true;
          return cancelled(error) ? false : 'unknown';
        },
      };
    },
    { retry: (error, attempt) => lostRace(access, error, precondition, attempt) },
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
      const unmet = unmetCondition(precondition, magazine);
      if (unmet) throw new PreconditionFailed(unmet);
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
        // A condition refused to a single send is another's change, not a sign that this delete was made;
        // the id created anew since, it was made if the incarnation it deleted has its deletion note.
        made: async (error) => {
          if (error instanceof ConditionsFailed && cancelled(error)) return false;
          const writer = await writerOf(
            access,
            magazineKey(generation, id),
            undefined,
            (item) => item[attr.incarnation] === incarnation,
          );
          if (writer !== 'another') return writer === 'unknown' ? writer : writer === 'none';
          return wasDeleted(access, deletionKey(generation, id, incarnation));
        },
      };
    },
    { retry: (error, attempt) => lostRace(access, error, precondition, attempt) },
  );
  if (trash) await finishArticles(access, incarnation, trash.key);
};
