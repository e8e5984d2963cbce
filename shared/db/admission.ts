import { StoreUnavailable } from '../domain/errors';
import type { TagRef } from '../domain/tag';
import {
  ADMISSION_CLOSED_MS,
  ADMISSION_OPEN_MS,
  ADMISSION_OPENINGS,
  ADMISSION_RECLOSED_MS,
  ADMISSION_RENEW_MS,
  ADMISSION_WAIT_MS,
  CALL_ATTEMPT_MS,
} from '../timing';
import { type GenerationRead, readInGeneration } from './generation';
import { admissionKey, attr, type Key } from './keys';
import { type Item, sleep, type TableAccess } from './table-access';
import { ConditionsFailed, transact } from './table-writes';

/**
 * Admission of tags to `TAGS`: the one way to keep a `/tags` read bounded when tags come into use
 * faster than the folder merges them. Each ticket of a tag that falls among the tags already
 * merged costs every reader a lookup (tags.ts), and merging such tags rewrites a block for every
 * one or two of them: under 100,000 new tags with unrelated ids, 24 writers outran the folder by
 * half, 3,153 tickets waited, and `/tags` read 4.5 MB in 112 calls or answered 503.
 *
 * So the folder, when the tickets it reads make a reader look up `ADMIT_LOOKUPS` tags or more,
 * closes `TAGS` for `ADMISSION_CLOSED_MS`, renews the closing at its reads while that lasts, and
 * keeps it closed through its folds while new tags come in as fast (`admissionKeeper`).
 * A write that puts a tag on a magazine reads the closing with the head (no call more) and waits
 * while it holds, then goes in the opening after it lapses (`keptOutTill`): writers slow down to
 * what the folder sustains, rather than readers paying for it. One kept out longer than
 * `ADMISSION_WAIT_MS` answers 503 with `Retry-After`. A closing is advice: counts are exact
 * whether it was read or not, and one that is not renewed lapses by itself (and the closings after
 * its openings), soon enough that a folder that stops does not hold writes back.
 */

/**
 * A closing further ahead than this was written by a clock far ahead of the reader's: writers
 * ignore it and a folder replaces it (a second more than any folder sets, lag included, for
 * clocks that differ).
 */
const FAR_AHEAD_MS = 3 * ADMISSION_CLOSED_MS;

/**
 * Lookups from which the folder closes `TAGS` (half a call of them), and from which it keeps it
 * closed through its folds (a call of them; new lookups, and those to come at their pace, from
 * `ADMIT_LOOKUPS`). Measured with 100,000 scattered new tags on
 * `npm run bench:scale` (docs/benchmarks.md): closed from 50 and kept closed from 50, 1 page in
 * 2,232 over the targets, but writers 16 to 28 % slower in every phase, as 50 distinct tags in
 * use (most workloads' popular ones) held them back; kept closed from 100 alone, 9 in 1,654.
 */
export const ADMIT_LOOKUPS = 50;
export const HOLD_LOOKUPS = 100;

/**
 * Closes `TAGS` to new tags till `ADMISSION_CLOSED_MS` from `now` (and `lag` more, what the last
 * closing took to land, at most a closing's life), and answers till when; never shortens a later
 * closing (`undefined` then), unless it is `FAR_AHEAD_MS` ahead. A transaction of one Put, as the
 * folder's folds are: it is granted no UpdateItem.
 */
export const closeAdmission = async (access: TableAccess, generation: string, now = Date.now(), lag = 0) => {
  const until = now + ADMISSION_CLOSED_MS + Math.min(Math.max(0, lag), ADMISSION_CLOSED_MS);
  try {
    await transact(
      access,
      {
        closing: {
          Put: {
            TableName: access.tableName,
            Item: { ...admissionKey(generation), [attr.closedUntil]: until },
            ConditionExpression: 'attribute_not_exists(#until) OR #until < :until OR #until > :ceiling',
            ExpressionAttributeNames: { '#until': attr.closedUntil },
            ExpressionAttributeValues: { ':until': until, ':ceiling': now + FAR_AHEAD_MS },
          },
        },
      },
      { retryConflicts: false },
    );
    return until;
  } catch (error) {
    if (error instanceof ConditionsFailed) return undefined;
    throw error;
  }
};

/**
 * The shortest span a read's new lookups are taken to have come in over, so that one ticket just
 * written does not read as a flood.
 */
const FLOW_SPAN_LEAST_MS = 250;

/**
 * What one instance's folder knows of `TAGS`, across its runs. The lookups its last read found: a
 * tag found again (one of the tags most in use, waiting at every read) is no more work for readers
 * than it was; a tag not seen before is. And till when its closings keep writes out: a run that
 * begins on a batch already folded, and ends at once, still watches for the writes they held back
 * (ended as the closing lapsed, runs left 71 to 80 tickets to the batch after).
 */
let remembered = { generation: '', found: new Set<string>() as ReadonlySet<string>, closedTill: 0 };

/**
 * A folder's side of admission, for one run over `TAGS`. A read that finds `ADMIT_LOOKUPS` closes
 * `TAGS` (renewed at reads, every `ADMISSION_RENEW_MS` at most). It keeps it closed, renewed every
 * `ADMISSION_RENEW_MS`, until the run ends (`stop`), through the fold's own writes, while the last
 * read found `HOLD_LOOKUPS`, or while the tags a reader would look up that it found new, and as
 * many more as came in at their pace since (a second's worth in a fold of a second), make
 * `ADMIT_LOOKUPS`. Renewed only at reads, a closing lapsed in each fold longer than a second
 * (0.5–1.8 s on DynamoDB Local), and in `npm run bench:scale` up to 107 tickets piled up
 * meanwhile, a `/tags` read looking up 400 tags in 6 calls; kept closed only from `HOLD_LOOKUPS`,
 * a read of 11 tickets (44 new tags) was followed by a fold of 2.7 s while 80 and more piled up.
 * Counting all the tags found rather than the new ones, the tags most in use held writers back in
 * loads of no new tag (16 % fewer POSTs a second). Caught up,
 * it lets the closing lapse rather than open it: opened at once, it let up to 240 tickets pile up
 * while the folder waited for the stream's next batch, and a read took 11 calls. Advice: a write
 * that fails leaves the closing as it was, to lapse by itself.
 */
export const admissionKeeper = (access: TableAccess, generation: string) => {
  if (remembered.generation !== generation) remembered = { generation, found: new Set(), closedTill: 0 };
  const memory = remembered;
  let timer: NodeJS.Timeout | undefined;
  // One renewal at a time: a late one (retried under throttling) would find its successors' closing
  // past its own bound for a clock far ahead, and set it back, already lapsed.
  let renewing: Promise<unknown> | undefined;
  let renewedAt = 0;
  // A tick that met a renewal in flight is made up as soon as it settles, and each closing lasts
  // as much longer as the last took to land: so a Put slower than the renewal period (throttled,
  // retried) does not leave `TAGS` open a part of every period.
  let missed = false;
  let lag = 0;
  // What the last read found: whether it holds `TAGS` closed, and its new lookups and their pace.
  let held = false;
  let flow = { novel: 0, perMs: 0, at: 0 };
  const projected = () => flow.novel + flow.perMs * (Date.now() - flow.at);
  const renew = (): Promise<unknown> => {
    if (renewing) {
      missed = true;
      return renewing;
    }
    const started = Date.now();
    renewedAt = started;
    renewing = closeAdmission(access, generation, started, lag)
      .then((until) => {
        memory.closedTill = Math.max(memory.closedTill, until === undefined ? 0 : closingEnd(until));
      })
      .catch(() => undefined)
      .finally(() => {
        lag = Date.now() - started;
        renewing = undefined;
        if (missed && timer) void renew();
        missed = false;
      });
    return renewing;
  };
  const tick = () => {
    if (held || projected() >= ADMIT_LOOKUPS) void renew();
  };
  return {
    /**
     * The tags the tickets the folder's read found make a reader look up, and when the oldest of
     * those tickets was written (Unix ms).
     */
    found: async (lookups: readonly string[], since: number) => {
      const now = Date.now();
      const novel = lookups.filter((key) => !memory.found.has(key)).length;
      memory.found = new Set(lookups);
      flow = { novel, perMs: novel / Math.max(now - since, FLOW_SPAN_LEAST_MS), at: now };
      held = lookups.length >= HOLD_LOOKUPS;
      timer ??= setInterval(tick, ADMISSION_RENEW_MS);
      if (lookups.length >= ADMIT_LOOKUPS && now - renewedAt >= ADMISSION_RENEW_MS) await renew();
    },
    /** Till when (Unix ms) this instance's closings keep writes out, the ones after their openings too; 0: none. */
    closedTill: () => memory.closedTill,
    /** The run is over (a renewal in flight settled, so none outlives it): the closing lapses by itself. */
    stop: async () => {
      clearInterval(timer);
      timer = undefined;
      await renewing;
    },
  };
};

/** Until when the closing read (`item`) keeps new tags out (Unix ms; 0: open). */
export const closedUntil = (item: Item | undefined): number => Number(item?.[attr.closedUntil] ?? 0);

/** An opening and the closing after it. */
const PERIOD_MS = ADMISSION_OPEN_MS + ADMISSION_RECLOSED_MS;

/** When a closing till `until` lapses for good, past its openings and the closings after them. */
export const closingEnd = (until: number) => until + ADMISSION_OPENINGS * PERIOD_MS;

/**
 * Till when a closing till `until` keeps out a write whose read began at `began` (Unix ms; 0: it
 * goes). The writes it held back all go when it lapses, in its opening of `ADMISSION_OPEN_MS`; the
 * closing after it keeps those who come back for more out until the folder has seen what the first
 * brought, and so on for `ADMISSION_OPENINGS` openings, then it is open. On `npm run bench:scale`,
 * under 100,000 scattered new tags by 64 writers: let in till the folder's next closing landed, up
 * to 245 tickets waited, and 144 `/tags` pages of 530 were over their bounds; with one opening,
 * 22 and 27 of about 620; with two, 7 to 50 in three runs (docs/benchmarks.md). Tried and not
 * kept: each write at its own random point of a ramp after the lapse, so that fewer go at once;
 * the folder closed `TAGS` again after the first few, and a third of the writes waited past
 * `ADMISSION_WAIT_MS`.
 */
export const keptOutTill = (until: number, began: number, now = began): number => {
  // Further ahead than any folder closes it: a clock far ahead wrote it; a folder replaces it.
  if (until > now + FAR_AHEAD_MS) return 0;
  if (began < until) return until;
  const period = Math.floor((began - until) / PERIOD_MS);
  if (period >= ADMISSION_OPENINGS || began - until - period * PERIOD_MS < ADMISSION_OPEN_MS) return 0;
  return until + (period + 1) * PERIOD_MS;
};

/**
 * Whether a write that changes a magazine's tags from `before` to `after` may go now, by the
 * closing read with its head: at once if it puts no tag on the magazine. If not, it waits for the
 * closing to lapse and answers `false`, to be read again. Kept out since `since` for longer than
 * `ADMISSION_WAIT_MS`, or with too little time left, it is refused.
 */
const admitted = async (
  access: TableAccess,
  closing: Item | undefined,
  since: number,
  /** When the read of `closing` began. */
  began: number,
  before: readonly TagRef[],
  after: readonly TagRef[],
): Promise<boolean> => {
  const had = new Set(before.map((tag) => tag.id));
  if (after.every((tag) => had.has(tag.id))) return true;
  const now = Date.now();
  const till = keptOutTill(closedUntil(closing), began, now);
  if (till === 0) return true;
  const wait = Math.max(0, till - now);
  if (now + wait - since > ADMISSION_WAIT_MS || access.remaining() < wait + CALL_ATTEMPT_MS)
    throw new StoreUnavailable('backlog');
  await sleep(wait);
  return false;
};

/**
 * One write's admission, across its attempts: when it began to wait, and whether it was let in.
 * Let in once, its retries of lost races are not kept out again (one let in by an opening would
 * wait for the closing after it).
 */
export interface WriteAdmission {
  readonly since: number;
  admitted: boolean;
}

export const writeAdmission = (since = Date.now()): WriteAdmission => ({ since, admitted: false });

/**
 * A write's first read: the items `keysOf` names, the head and `TAGS`'s admission, in one
 * BatchGetItem, read again while the change of tags that `tagsOf` finds in them (none: no tags to
 * admit) is kept out. Waiting is not an attempt of the write: a write's retries for lost races
 * are as many however long it waited.
 */
export const readAdmitted = async (
  access: TableAccess,
  /** The write's admission (a replace that found no magazine and creates it hands on its own). */
  admission: WriteAdmission,
  keysOf: (generation: string) => readonly Key[],
  tagsOf: (
    read: GenerationRead,
  ) => { readonly before: readonly TagRef[]; readonly after: readonly TagRef[] } | undefined,
): Promise<GenerationRead> => {
  for (;;) {
    const began = Date.now();
    const read = await readInGeneration(access, (g) => [...keysOf(g), admissionKey(g)]);
    const tags = tagsOf(read);
    const closing = read.items.get(admissionKey(read.generation));
    if (!tags || admission.admitted) return read;
    if (await admitted(access, closing, admission.since, began, tags.before, tags.after)) {
      admission.admitted = true;
      return read;
    }
  }
};
