import fc from 'fast-check';
import { isBlank } from '../../../shared/domain/fields';
import type { Fault } from '../dynamodb-faults';
import type { ApiModel, ArticleBody } from './model';

/** The model-based sequences' generated values (sequences.ts): tags, titles, times, articles, ids, keys, looks, and the faults a step may meet. */

/** Tags as clients send them, with the id the API must derive (or was given); some share an id under other names. */
export const TAG_POOL: readonly { readonly sent: { id?: string; name: string }; readonly id: string }[] = [
  { sent: { name: 'News' }, id: 'news' },
  { sent: { name: 'news' }, id: 'news' },
  { sent: { id: 'news', name: 'Breaking News' }, id: 'news' },
  { sent: { name: 'Science' }, id: 'science' },
  { sent: { name: 'Art & Design' }, id: 'art-design' },
  { sent: { name: 'Café Culture' }, id: 'cafe-culture' },
  { sent: { id: 'x1', name: '日本' }, id: 'x1' },
  { sent: { id: 'Mixed_Case-9', name: 'Mixed' }, id: 'Mixed_Case-9' },
  { sent: { name: 'a' }, id: 'a' },
];

export const tagsArbitrary = fc
  .uniqueArray(fc.nat(TAG_POOL.length - 1), { maxLength: 3, selector: (i) => TAG_POOL[i]?.id })
  .map((indexes) => indexes.map((i) => TAG_POOL[i] as (typeof TAG_POOL)[number]));

/** A title the API must keep exactly: 1 to 256 UTF-16 units, not blank (shared/domain/fields.ts), anything Unicode has. */
export const titleArbitrary = fc
  .oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('Modern Astronomy', 'Ünïcödé ☃', '日本の雑誌', '😀', 'A & B <c> "d"', 'x'),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ minLength: 250, maxLength: 256 }) },
  )
  .filter((title) => !isBlank(title) && title.length <= 256);

/** Instants that share a second, a year's last and first second, and any other moment. */
export const createdArbitrary = fc.option(
  fc.oneof(
    fc.constantFrom(1_600_000_000, 1_640_995_199, 1_640_995_200, 1_700_000_000, 0),
    fc.integer({ min: 946_684_800, max: 1_767_225_600 }),
  ),
  { nil: undefined },
);

export const articleArbitrary: fc.Arbitrary<ArticleBody> = fc.record({
  title: titleArbitrary,
  author_first_name: fc.constantFrom('Ada', 'Émile', '李'),
  author_last_name: fc.constantFrom('Lovelace', 'Zola', 'O’Brien'),
  author_email: fc.constantFrom('ada@example.com', 'e.zola+news@example.org'),
  date: fc.constantFrom('2024-02-29', '1999-12-31', '2000-01-01'),
  text: fc.oneof(
    fc.constant('Comets are icy bodies.'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }).filter((t) => !isBlank(t)),
  ),
});

/** Which magazine a command is about, resolved against the model when it runs. */
export interface IdPick {
  readonly kind: 'existing' | 'new' | 'gone';
  readonly n: number;
}

export const idPick: fc.Arbitrary<IdPick> = fc.record({
  kind: fc.constantFrom<IdPick['kind']>('existing', 'existing', 'existing', 'new', 'new', 'gone'),
  n: fc.nat(40),
});

const NEW_IDS = ['m1', 'm2', 'M3', '0', 'z-9', 'a_b', 'm10', 'm2x', 'longer-id-of-a-magazine', 'x'.repeat(64)];

export const pickId = (model: ApiModel, pick: IdPick): string => {
  const existing = [...model.magazines.keys()].sort();
  const gone = [...model.goneMagazines].sort();
  if (pick.kind === 'existing' && existing.length > 0) return existing[pick.n % existing.length] as string;
  if (pick.kind === 'gone' && gone.length > 0) return gone[pick.n % gone.length] as string;
  return NEW_IDS[pick.n % NEW_IDS.length] as string;
};

export interface KeyPick {
  /** Send again a request made earlier with a key (its body exactly, or this command's body). */
  readonly reuse: boolean;
  readonly n: number;
  readonly sameBody: boolean;
}

export const keyPick = fc.option(fc.record({ reuse: fc.boolean(), n: fc.nat(20), sameBody: fc.boolean() }), {
  nil: undefined,
});

export type IfMatchPick = 'none' | 'current' | 'stale' | 'star' | 'bogus';
export const ifMatchPick = fc.constantFrom<IfMatchPick>('none', 'none', 'current', 'stale', 'star', 'bogus');

/** What a step reads back, besides what every step reads. */
export interface Look {
  readonly sort: 'asc' | 'desc';
  readonly offset: number;
  readonly limit: number;
  readonly format: 'json' | 'xml-label' | 'xml-format' | 'xml-accept';
  readonly prefix: '' | '/v1' | '/api/v1';
  readonly pick: number;
  readonly walk: boolean;
}

export const lookArbitrary: fc.Arbitrary<Look> = fc.record({
  sort: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
  offset: fc.nat(8),
  limit: fc.integer({ min: 1, max: 4 }),
  format: fc.constantFrom<Look['format']>('json', 'json', 'xml-label', 'xml-format', 'xml-accept'),
  prefix: fc.constantFrom<Look['prefix']>('', '/v1', '/api/v1'),
  pick: fc.nat(100),
  walk: fc.boolean(),
});

// ---------------------------------------------------------------------------------------------
// Faults

export interface FaultPlan {
  readonly kind: 'throttle' | 'internal' | 'unavailable' | 'lostReply' | 'lostReplyDrop' | 'unprocessed' | 'timeout';
  /** Which DynamoDB operations it hits. */
  readonly on: 'any' | 'writes' | 'TransactWriteItems' | 'UpdateItem' | 'BatchWriteItem' | 'GetItem' | 'reads';
  /** Calls let through first. */
  readonly after: number;
  /** How many times it fires (Infinity: for the rest of the command). */
  readonly times: number;
}

const WRITE_OPERATIONS = ['TransactWriteItems', 'UpdateItem', 'PutItem', 'DeleteItem', 'BatchWriteItem'];
const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query'];

export const faultPlanArbitrary: fc.Arbitrary<FaultPlan | undefined> = fc.option(
  fc.record({
    kind: fc.oneof(
      {
        weight: 10,
        arbitrary: fc.constantFrom<FaultPlan['kind']>(
          'throttle',
          'internal',
          'unavailable',
          'lostReply',
          'lostReplyDrop',
          'unprocessed',
        ),
      },
      { weight: 1, arbitrary: fc.constant<FaultPlan['kind']>('timeout') },
    ),
    on: fc.constantFrom<FaultPlan['on']>(
      'any',
      'writes',
      'TransactWriteItems',
      'TransactWriteItems',
      'UpdateItem',
      'BatchWriteItem',
      'GetItem',
      'reads',
    ),
    after: fc.nat(6),
    times: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) },
      { weight: 1, arbitrary: fc.constant(Infinity) },
    ),
  }),
  { freq: 4, nil: undefined },
);

export const faultOf = (plan: FaultPlan): Fault => {
  switch (plan.kind) {
    case 'lostReply':
      return { kind: 'lostReply', reply: 'internal' };
    case 'lostReplyDrop':
      return { kind: 'lostReply', reply: 'drop' };
    default:
      return { kind: plan.kind };
  }
};

export const operationsOf = (plan: FaultPlan): readonly string[] | undefined => {
  if (plan.on === 'any') return undefined;
  if (plan.on === 'writes') return WRITE_OPERATIONS;
  if (plan.on === 'reads') return READ_OPERATIONS;
  return [plan.on];
};

export const describePlan = (plan: FaultPlan | undefined) =>
  plan ? `${plan.kind} on ${plan.on} after ${plan.after} ×${plan.times === Infinity ? '∞' : plan.times}` : 'no fault';
