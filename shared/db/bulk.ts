import { createHash, randomUUID } from 'node:crypto';
import { PreconditionFailed, StoreUnavailable } from '../domain/errors';
import { nowInSeconds } from '../domain/fields';
import type { IdentifiedDraft, Magazine } from '../domain/magazine';
import { type Precondition, unmetCondition } from '../domain/store';
import { BULK_BEAT_STALE_MS, BULK_LEASE_MS, BULK_STEP_PATIENCE_MS, BULK_SWEEP_MS, SWITCH_MARGIN_MS } from '../timing';
import {
  awaitHolder,
  type Claim,
  heldByAnother,
  holdClaim,
  release,
  renewIfNeeded,
  sealGuards,
  switchedTo,
} from './bulk-claim';
import { sweep, trashEntry } from './cleanup';
import { countChanges, type Delta } from './counts';
import { builtList } from './fold';
import { headKeys, learnGeneration, readHead } from './generation';
import { decodeBulk, decodeMagazine, type MagazineRecord } from './items';
import { attr, bulkKey, type CountedList, FIRST_GENERATION, magazineKey } from './keys';
import { isUnchanged, magazineItem } from './magazine-item';
import { collectionVersion } from './magazine-list';
import { currentRequestId } from './request';
import { backoff, type Item, type TableAccess } from './table-access';
import { ConditionsFailed, type Transaction, transact, update, writeMany } from './table-writes';

/**
 * PUT /magazines and DELETE /magazines, all or nothing as every reader sees them, at any size.
 *
 * 1. Claim: the bulk record of the current generation G names this bulk write, the generation it
 *    builds, and the request's fingerprint, under a lease.
 * 2. Seal: every write guard of G is sealed until the lease ends, so no write commits into G any
 *    more (writes wait, then answer 503); If-Match is checked now that G cannot change.
 * 3. Build: the new generation is written aside, magazines first (progress noted in the record,
 *    so that the same request sent again carries on), then its counts and tags. Readers see none
 *    of it: the head still names G.
 * 4. Switch: one transaction, conditioned on the claim, points every head replica at the new
 *    generation and notes G as garbage. Readers see the new collection whole from then on.
 * 5. Clean up G as time allows (and later sweeps finish it).
 *
 * Cut short before the switch, readers keep seeing G, and the seal lapses with the lease; the same
 * request sent again (the same fingerprint) resumes the same build once the copy holding the claim
 * stopped, and waits for that copy's switch while it runs (bulk-claim.ts); a switched claim is
 * never resumed. After the switch,
 * the request has done its work: sent again, it replaces the collection with the same magazines.
 */

/** Magazines written between two notes of progress. */
const CHUNK = 500;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/** Derived from the bulk and the id, so that a build carried on by the same request writes the same items again. */
const derived = (bulkId: string, id: string, what: string) => digest(`${bulkId}\n${id}\n${what}`).slice(0, 12);

const incarnationFrom = (bulkId: string, id: string) => derived(bulkId, id, 'incarnation').replace(/[-_]/g, 'x');

/**
 * Whether a step of a bulk write that failed (first at `since`) is worth sending again: a failure a
 * retry may cure (throttling, a fault or timeout of the store; lost races are retried where they are
 * met), for `BULK_STEP_PATIENCE_MS` while the request has time. Every step is one a retry repeats
 * harmlessly (a read, a seal, a write into the generation no reader sees, a conditional update of its
 * own claim): given up on the first fault that outlasted the SDK's attempts, the bulk write answered
 * 503 with most of its deadline left, and its claim held every other bulk write off for its lease.
 */
const worthAnother = async (access: TableAccess, error: unknown, attempt: number, since: number) => {
  if (!(error instanceof StoreUnavailable) || !['throttled', 'fault', 'timeout'].includes(error.reason)) return false;
  if (access.remaining() < 1_000 || Date.now() - since > BULK_STEP_PATIENCE_MS) return false;
  await backoff(attempt, 50, 1_000);
  return true;
};

/** The request's table access, each call of which is sent again while `worthAnother` says so. */
const patient = (access: TableAccess): TableAccess => {
  const persist =
    <A extends unknown[], R>(step: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      let since: number | undefined;
      for (let attempt = 1; ; attempt++) {
        try {
          return await step(...args);
        } catch (error) {
          since ??= Date.now();
          if (!(await worthAnother(access, error, attempt, since))) throw error;
        }
      }
    };
  return {
    ...access,
    get: persist(access.get),
    getMany: persist(access.getMany),
    query: persist(access.query),
    send: persist(access.send),
  };
};

/** The magazine as the new generation holds it: what the request says, with what it keeps of the stored one. */
const rebuilt = (bulkId: string, draft: IdentifiedDraft, stored: MagazineRecord | undefined, now: number) => {
  const previous = stored?.magazine;
  const magazine: Magazine = isUnchanged(previous, draft)
    ? (previous as Magazine)
    : {
        id: draft.id,
        title: draft.title,
        tags: draft.tags,
        created: draft.created ?? previous?.created ?? now,
        updated: now,
        revision: derived(bulkId, draft.id, 'revision'),
      };
  const kept: Item = stored
    ? {
        [attr.articles]: stored.articles,
        [attr.lastArticleCreated]: stored.lastArticleCreated,
        ...(stored.articlesModified !== undefined && { [attr.articlesModified]: stored.articlesModified }),
      }
    : {};
  return { magazine, incarnation: stored?.incarnation ?? incarnationFrom(bulkId, draft.id), kept };
};

/** The new generation's lists (all magazines, each tag, the tags in use), folded from its magazines at once. */
const listItems = (target: string, magazines: readonly Magazine[], now: number): Item[] => {
  const changes = new Map<CountedList, Delta[]>();
  for (const magazine of magazines)
    for (const [list, deltas] of countChanges(undefined, magazine)) {
      const all = changes.get(list) ?? [];
      changes.set(list, all);
      all.push(...deltas);
    }
  if (!changes.has('ALL')) changes.set('ALL', []);
  return [...changes].flatMap(([list, deltas]) => builtList(target, list, deltas, now));
};

export const replaceAllMagazines = async (
  request: TableAccess,
  drafts: readonly IdentifiedDraft[],
  precondition: Precondition | undefined,
) => {
  const access = patient(request);
  const fingerprint = digest(JSON.stringify(drafts.map((d) => [d.id, d.title, d.tags, d.created ?? null])));
  const { generation, switchedAt } = await readHead(access);
  // A stale precondition is refused before anything is written; it is checked again once the collection is sealed.
  const stale = precondition && unmetCondition(precondition, await collectionVersion(access, generation, switchedAt));
  if (stale) throw new PreconditionFailed(stale);

  // 1. Claim (or carry on with our own claim, or take over one whose lease ended). The same request
  // still running elsewhere is waited for: its switch is this one's, and it is taken over once it stops.
  const item = await access.get(bulkKey(generation));
  let existing = decodeBulk(item);
  if (existing?.fingerprint === fingerprint && heldByAnother(item)) {
    if (await awaitHolder(access, generation, existing.target)) return learnGeneration(existing.target);
    existing = decodeBulk(await access.get(bulkKey(generation)));
  }
  const now = Date.now();
  const ours = existing?.fingerprint === fingerprint;
  if (existing && !ours && existing.leaseUntil > now) {
    throw new StoreUnavailable('collection-busy', Math.max(1, Math.ceil((existing.leaseUntil - now) / 1000)));
  }
  const bulkId = ours && existing ? existing.bulkId : randomUUID();
  const target = ours && existing ? existing.target : randomUUID().slice(0, 13);
  // This request's hold on the claim (bulk-claim.ts): a copy that lost it stops at its next step.
  const owner = randomUUID();
  const claim: Claim = { generation, owner, target };
  let leaseUntil = now + BULK_LEASE_MS;
  const claimed = await update(access, {
    Key: bulkKey(generation),
    UpdateExpression:
      'SET #bulk = :bulk, #owner = :owner, #beat = :beat, #target = :target, #fingerprint = :fingerprint, #stage = :building, #lease = :lease, #progress = if_not_exists(#progress, :zero)',
    ConditionExpression:
      'attribute_not_exists(#bulk) OR #lease < :now OR (#bulk = :bulk AND #fingerprint = :fingerprint AND #stage = :building AND (#owner = :owner OR attribute_not_exists(#beat) OR #beat < :stale))',
    ExpressionAttributeNames: {
      '#bulk': attr.bulkId,
      '#owner': attr.owner,
      '#beat': attr.beat,
      '#target': attr.target,
      '#fingerprint': attr.fingerprint,
      '#stage': attr.stage,
      '#lease': attr.leaseUntil,
      '#progress': attr.progress,
    },
    ExpressionAttributeValues: {
      ':bulk': bulkId,
      ':owner': owner,
      ':beat': now,
      ':stale': now - BULK_BEAT_STALE_MS,
      ':target': target,
      ':fingerprint': fingerprint,
      ':building': 'building',
      ':lease': leaseUntil,
      ':now': now,
      ':zero': 0,
    },
  });
  if (!claimed) throw new StoreUnavailable('collection-busy', 2);

  // 2. Seal, then check the preconditions on a collection that can no longer change.
  await sealGuards(access, generation, leaseUntil);
  const version = await collectionVersion(access, generation, switchedAt);
  const unmet = unmetCondition(precondition, version);
  if (unmet) {
    await release(access, claim);
    throw new PreconditionFailed(unmet);
  }
  // Carried on by the same request, the build resumes only if nothing changed since it began.
  const record = decodeBulk(await access.get(bulkKey(generation)));
  const startAt = ours && record && record.sealedRevision === version.revision ? record.progress : 0;
  await holdClaim(access, claim, attr.sealedRevision, version.revision);

  // 3. Build the new generation aside.
  const stored = await access.getMany(drafts.map((draft) => magazineKey(generation, draft.id)));
  const buildTime = nowInSeconds();
  const built = drafts.map((draft) => {
    const item = stored.get(magazineKey(generation, draft.id));
    return rebuilt(bulkId, draft, item ? decodeMagazine(item) : undefined, buildTime);
  });
  for (let start = startAt; start < built.length; start += CHUNK) {
    const chunk = built.slice(start, start + CHUNK);
    await writeMany(
      access,
      chunk.flatMap(({ magazine, incarnation, kept }) => [magazineItem(target, magazine, incarnation, kept)]),
      [],
      16,
    );
    await holdClaim(access, claim, attr.progress, start + chunk.length);
    leaseUntil = await renewIfNeeded(access, claim, leaseUntil);
  }
  await writeMany(
    access,
    listItems(
      target,
      built.map((b) => b.magazine),
      Date.now(),
    ),
    [],
    16,
  );

  // 4. Switch, with the seal far from its end: each attempt renews it if need be, and asks for the
  // margin from when it is sent (an attempt is sent on the request's access, not its patient one,
  // so that no attempt is sent again with a margin reckoned from an earlier moment).
  const trash = trashEntry(access.tableName, { kind: 'generation', generation, successor: target });
  const switchItems = (): Transaction => ({
    bulk: {
      Update: {
        TableName: access.tableName,
        Key: bulkKey(generation),
        UpdateExpression: 'SET #stage = :switched, #expires = :expires',
        ConditionExpression: '#owner = :owner AND #lease > :safe',
        ExpressionAttributeNames: {
          '#stage': attr.stage,
          '#owner': attr.owner,
          '#lease': attr.leaseUntil,
          '#expires': attr.expiresAt,
        },
        ExpressionAttributeValues: {
          ':switched': 'switched',
          ':owner': owner,
          ':safe': Date.now() + SWITCH_MARGIN_MS,
          ':expires': nowInSeconds() + 7 * 86_400,
        },
      },
    },
    heads: headKeys().map((Key) => ({
      Update: {
        TableName: access.tableName,
        Key,
        UpdateExpression: 'SET #generation = :target, #request = :request, #members = :members, #switched = :switched',
        ConditionExpression:
          generation === FIRST_GENERATION
            ? 'attribute_not_exists(#generation) OR #generation = :current'
            : '#generation = :current',
        ExpressionAttributeNames: {
          '#generation': attr.generation,
          '#request': attr.requestId,
          '#members': attr.members,
          '#switched': attr.switchedAt,
        },
        ExpressionAttributeValues: {
          ':target': target,
          ':switched': nowInSeconds(),
          ':current': generation,
          ':request': currentRequestId(),
          ':members': drafts.length,
        },
      },
    })),
    trash: trash.put,
  });
  let since: number | undefined;
  for (let attempt = 1; ; attempt++) {
    leaseUntil = await renewIfNeeded(access, claim, leaseUntil, SWITCH_MARGIN_MS + 5_000);
    try {
      await transact(request, switchItems());
      break;
    } catch (error) {
      // A switch whose answer was lost may have been made (and, sent again, then fails its
      // conditions): then the request succeeded, and says so.
      if (await switchedTo(access, target)) break;
      if (error instanceof ConditionsFailed) throw new StoreUnavailable('collection-busy', 1);
      since ??= Date.now();
      if (!(await worthAnother(request, error, attempt, since))) throw error;
    }
  }
  learnGeneration(target);

  // 5. Clean up what no reader can reach any more, for a moment: later sweeps (and the janitor) finish it.
  await sweep(request, Math.min(BULK_SWEEP_MS, request.remaining() - 3_000)).catch(() => undefined);
};
