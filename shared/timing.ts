/**
 * Every duration the API's correctness rests on, in one place, with the rules between them
 * checked when the module loads: a change that breaks one fails every test and every function's
 * start, not a deployment. docs/data-model.md explains each.
 */

/** The longest a request to a function that uses the table may run (the bulk writes' timeout); a test holds it against the route table. */
export const LONGEST_REQUEST_MS = 25_000;
/** The longest an ordinary write runs after it read the head (its function's timeout). */
export const ORDINARY_REQUEST_MS = 10_000;

/** A request gives up on the store this long before its function's timeout, so that its answer (503) still goes out. */
export const STORE_MARGIN_MS = 2_000;

/** One attempt of one call, and its connection; attempts per call (the request's deadline bounds them all). */
export const CALL_ATTEMPT_MS = 2_500;
export const CONNECTION_MS = 1_000;
export const CALL_ATTEMPTS = 3;

/** A bulk write's claim on the collection, renewed while it builds. */
export const BULK_LEASE_MS = 40_000;
/**
 * A bulk write's holder notes each step (`beat`): the same request sent again waits for it while
 * it noted one this recently, and takes the claim over once it fell silent longer.
 */
export const BULK_BEAT_STALE_MS = 5_000;
/** A bulk write switches only while its seal has this long to run. */
export const SWITCH_MARGIN_MS = 15_000;
/**
 * How long a bulk write keeps sending one of its calls again after faults the SDK's attempts did
 * not cure: a fault that passes is outlasted, a store that stays down still gets its 503 soon.
 */
export const BULK_STEP_PATIENCE_MS = 3_000;
/** How long a bulk write spends on garbage before it answers. */
export const BULK_SWEEP_MS = 2_000;
/** A replaced generation's guards outlive the switch by this much. */
export const GUARDS_KEPT_MS = 120_000;

/** A magazine's deletion that began this long ago (a request that crashed) no longer refuses its articles. */
export const CLOSING_MS = 30_000;

/** A block a fold replaced is kept this long for readers holding the directory that named it. */
export const RETIRED_BLOCK_MS = 30_000;

/**
 * A folder whose writes still flow gives its lane back this long after its batch began, if it read
 * a ticket written `LATER_BATCH_MS` or more after that (only a writer's clock ahead of the folder's
 * matters): that ticket's record is in a later batch, which brings the list back.
 */
export const FLOW_STINT_MS = 10_000;
export const LATER_BATCH_MS = 5_000;
/**
 * `TAGS` closed to new tags (shared/db/admission.ts) stays closed this long after the folder last
 * renewed the closing (up to as long again, the time the last renewal took to land), which it does
 * at most every `ADMISSION_RENEW_MS` (at its reads, or on a timer while far behind): a folder that
 * stops leaves it open again this soon (and `ADMISSION_OPENINGS` of `ADMISSION_OPEN_MS`, each
 * followed by `ADMISSION_RECLOSED_MS`, below). A write kept out waits for it to lapse and reads it
 * again, for at most `ADMISSION_WAIT_MS` in all, then answers 503 with `Retry-After`. (The folder's
 * closings at 2 s, with held writes reading them every 250 ms, made writers slower and `/tags`
 * reads larger on `npm run bench:scale`: the reads load the table the folder works on.)
 */
export const ADMISSION_CLOSED_MS = 1_000;
export const ADMISSION_RENEW_MS = 500;
export const ADMISSION_WAIT_MS = 5_000;
/**
 * A closing that lapses opens `TAGS` for `ADMISSION_OPEN_MS` (to the reads that begin in it), then
 * holds new tags back for `ADMISSION_RECLOSED_MS` more, unless the folder closed it again
 * meanwhile: the writes a closing held back all go when it lapses, and the writers that had gone
 * come back for more before the folder's next closing lands (0.1 to 2 s on DynamoDB Local under 64
 * writers, as the folder reads what they wrote first). With a second there, under 100,000
 * scattered new tags by 64 writers on `npm run bench:scale`, 34 `/tags` pages of 1,104 read over
 * 64 KB, of 135 tickets at the median (more than one opening lets in); with 2 s, 4 and 0 of about
 * 1,140, at 6–9 % fewer POSTs a second; with 1.5 s, 13 of 1,172 (docs/benchmarks.md). Held 2 s
 * more after a missed opening, writes need the longer `ADMISSION_WAIT_MS`: at 4.5 s, 126 POSTs of
 * 24,988 by 24 writers were refused where none had been.
 */
export const ADMISSION_OPEN_MS = 400;
export const ADMISSION_RECLOSED_MS = 2_000;
/** Openings, each followed by such a closing, after a closing lapses, before `TAGS` is open. */
export const ADMISSION_OPENINGS = 2;
/** The folder's function timeout. */
export const FOLDER_TIMEOUT_MS = 60_000;

/** An idempotency key's reservation holds against duplicates this long; keys are kept this long (at least a day). */
export const IDEMPOTENCY_LEASE_MS = 30_000;
export const IDEMPOTENCY_RETENTION_MS = 25 * 3600 * 1000;
/**
 * A request that failed frees its idempotency key past its deadline if need be (the deadline
 * itself may be what failed it), within this much of the margin its answer has: a key left
 * reserved would answer the client's retry 409 till its lease lapsed.
 */
export const KEY_RELEASE_MS = 1_000;

const rules: readonly [string, boolean][] = [
  ['a bulk lease outlasts a bulk request', BULK_LEASE_MS > LONGEST_REQUEST_MS],
  ['the switch margin outlasts any write that read the head before the switch', SWITCH_MARGIN_MS > ORDINARY_REQUEST_MS],
  ['the lease leaves room for the switch margin', BULK_LEASE_MS > SWITCH_MARGIN_MS],
  ['sealed guards outlive the switch margin', GUARDS_KEPT_MS > SWITCH_MARGIN_MS],
  ["a bulk write's patience with a call leaves it time to answer", BULK_STEP_PATIENCE_MS < LONGEST_REQUEST_MS / 4],
  ['a bulk holder waiting on one attempt of a call is not taken for gone', BULK_BEAT_STALE_MS > CALL_ATTEMPT_MS],
  ['a copy that takes a silent claim over has time to finish it', BULK_BEAT_STALE_MS < LONGEST_REQUEST_MS / 2],
  ['a closing mark outlasts the deletion that set it', CLOSING_MS > ORDINARY_REQUEST_MS],
  ['a retired block outlasts any read that holds its directory', RETIRED_BLOCK_MS > LONGEST_REQUEST_MS],
  ['an idempotency lease outlasts the request that holds it', IDEMPOTENCY_LEASE_MS > LONGEST_REQUEST_MS],
  ['a flowing list sees a later ticket within its stint', LATER_BATCH_MS < FLOW_STINT_MS],
  ["a stint ends well within the folder's timeout", FLOW_STINT_MS < FOLDER_TIMEOUT_MS / 2],
  ["a key's release leaves the answer time to go out", KEY_RELEASE_MS < STORE_MARGIN_MS],
  ['idempotency keys are kept at least 24 hours', IDEMPOTENCY_RETENTION_MS >= 24 * 3600 * 1000],
  ["a call's attempts fit in an ordinary request", CALL_ATTEMPTS * CALL_ATTEMPT_MS < ORDINARY_REQUEST_MS],
  [
    'a write kept out outwaits a closing that is not renewed (lagged as long again), and the closing after its opening',
    2 * ADMISSION_CLOSED_MS + ADMISSION_OPEN_MS + ADMISSION_RECLOSED_MS < ADMISSION_WAIT_MS,
  ],
  ['a closing is renewed well before it lapses', ADMISSION_RENEW_MS * 2 <= ADMISSION_CLOSED_MS],
  [
    'a write kept out till the last has time for its attempt',
    ADMISSION_WAIT_MS + STORE_MARGIN_MS + CALL_ATTEMPT_MS < ORDINARY_REQUEST_MS,
  ],
  [
    'a request has time for a whole call attempt before it gives up on the store',
    STORE_MARGIN_MS + CALL_ATTEMPT_MS < ORDINARY_REQUEST_MS,
  ],
];

const broken = rules.filter(([, holds]) => !holds).map(([rule]) => rule);
if (broken.length > 0) throw new Error(`Timing rules broken: ${broken.join('; ')}.`);
