import { randomBytes } from 'node:crypto';
import { nowInSeconds } from '../domain/fields';
import type { Magazine, MagazineDraft } from '../domain/magazine';
import { CLOSING_MS } from '../timing';
import type { MagazineRecord } from './items';
import { attr, deletionKey, magazineKey } from './keys';
import { currentRequestId } from './request';
import { encodeTags } from './stored-tags';
import type { Item, TableAccess } from './table-access';
import { update } from './table-writes';

/**
 * The magazine item as writes make it (its decoder is `decodeMagazine` in items.ts), and what it
 * says of the magazine's lifecycle: whether its deletion has begun.
 */

export const newRevision = () => randomBytes(9).toString('base64url');
export const newIncarnation = () => randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');

/** What a magazine item holds of the magazine, as a create puts it and a replace sets it. */
export const magazineAttributes = (magazine: Magazine) => ({
  [attr.id]: magazine.id,
  [attr.title]: magazine.title,
  [attr.tags]: encodeTags(magazine.tags),
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

/** Whether the magazine's deletion has begun (and not been given up): its articles are refused meanwhile. */
export const isClosing = (record: MagazineRecord) =>
  record.closing !== undefined && record.closing > Date.now() - CLOSING_MS;

/** Refuses articles from now on (a plain write: it waits for no other request's transaction to be decided). */
export const markClosing = async (access: TableAccess, generation: string, record: MagazineRecord) => {
  await update(access, {
    Key: magazineKey(generation, record.magazine.id),
    UpdateExpression: 'SET #closing = :now',
    ConditionExpression: '#incarnation = :incarnation',
    ExpressionAttributeNames: { '#closing': attr.closing, '#incarnation': attr.incarnation },
    ExpressionAttributeValues: { ':now': Date.now(), ':incarnation': record.incarnation },
  });
};

/** A deletion's note outlives the table's stream (24 hours), which is all it is kept for. */
const DELETION_KEPT_SECONDS = 2 * 86_400;

/** What a deleted magazine leaves, in its deletion's transaction: the item its change event is made of (a Delete carries no attributes). */
export const deletionNote = (generation: string, magazine: Magazine, incarnation: string): Item => ({
  ...deletionKey(generation, magazine.id, incarnation),
  [attr.id]: magazine.id,
  [attr.revision]: magazine.revision,
  [attr.requestId]: currentRequestId(),
  [attr.expiresAt]: nowInSeconds() + DELETION_KEPT_SECONDS,
});
