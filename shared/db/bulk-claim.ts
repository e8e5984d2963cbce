import { StoreUnavailable } from '../domain/errors';
import { BULK_BEAT_STALE_MS, BULK_LEASE_MS } from '../timing';
import { headKeys } from './generation';
import { attr, bulkKey, GUARD_COUNT, guardKey } from './keys';
import { type Item, sleep, type TableAccess } from './table-access';
import { lookAgain, update, writeMany } from './table-writes';

/**
 * A bulk write's claim on the collection (bulk.ts): the bulk record of generation G names the
 * request that holds it (`owner`) and when it last took a step (`beat`). The same request sent
 * again waits for that one's switch while it beats, and takes the claim over once it stopped; a
 * copy whose claim was taken over stops at its next step (503), rather than write into a
 * generation that readers and writers may already use.
 */
export interface Claim {
  readonly generation: string;
  /** This request's own id, set on the record by its claim. */
  readonly owner: string;
  /** The generation the claim builds. */
  readonly target: string;
}

/** Every write guard of G sealed until `leaseUntil` (0 unseals). */
export const sealGuards = (access: TableAccess, generation: string, leaseUntil: number) =>
  writeMany(
    access,
    Array.from({ length: GUARD_COUNT }, (_, guard) => ({
      ...guardKey(generation, guard),
      [attr.leaseUntil]: leaseUntil,
    })),
    [],
    16,
  );

/** A step noted on the record with a beat, made only while this request holds the claim. */
const claimUpdate = (access: TableAccess, claim: Claim, field: string, value: unknown) =>
  update(access, {
    Key: bulkKey(claim.generation),
    UpdateExpression: 'SET #field = :value, #beat = :beat',
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: { '#owner': attr.owner, '#field': field, '#beat': attr.beat },
    ExpressionAttributeValues: { ':owner': claim.owner, ':value': value, ':beat': Date.now() },
  });

/** The same, where a claim taken over stops this copy, with 503. */
export const holdClaim = async (access: TableAccess, claim: Claim, field: string, value: unknown) => {
  if (!(await claimUpdate(access, claim, field, value))) throw new StoreUnavailable('collection-busy', 2);
};

/** Extends the lease (and the seal with it) when less than `needed` of it is left. */
export const renewIfNeeded = async (
  access: TableAccess,
  claim: Claim,
  leaseUntil: number,
  needed = BULK_LEASE_MS / 2,
) => {
  if (leaseUntil - Date.now() > needed) return leaseUntil;
  const renewed = Date.now() + BULK_LEASE_MS;
  await holdClaim(access, claim, attr.leaseUntil, renewed);
  await sealGuards(access, claim.generation, renewed);
  return renewed;
};

/** A bulk write refused (412) lets the collection go at once, unsealed while its claim holds: another's seal is never undone. */
export const release = async (access: TableAccess, claim: Claim) => {
  await sealGuards(access, claim.generation, 0);
  await claimUpdate(access, claim, attr.leaseUntil, 0);
};

export const switchedTo = async (access: TableAccess, target: string) => {
  const [head] = headKeys();
  if (head === undefined) return false;
  const item = await lookAgain(access, head);
  return item !== 'unknown' && item?.[attr.generation] === target;
};

/** Whether a bulk record is switched, or held by a copy that still takes steps. */
export const heldByAnother = (item: Item | undefined) =>
  item?.[attr.stage] === 'switched' ||
  (Number(item?.[attr.beat]) > Date.now() - BULK_BEAT_STALE_MS && Number(item?.[attr.leaseUntil]) > Date.now());

/**
 * Waits for the copy of the same bulk write that holds the claim: true once it switched (this
 * request's work is done), false once it stopped taking steps (the claim is to take over).
 */
export const awaitHolder = async (access: TableAccess, generation: string, target: string) => {
  for (;;) {
    const item = await access.get(bulkKey(generation));
    // Switched (in the same transaction as the heads), even if a later bulk write has moved them on since.
    if (item?.[attr.stage] === 'switched' || (await switchedTo(access, target))) return true;
    if (!heldByAnother(item)) return false;
    if (access.remaining() < 2_000) throw new StoreUnavailable('collection-busy', 1);
    await sleep(250);
  }
};
