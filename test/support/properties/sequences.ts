import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  articleArbitrary,
  createdArbitrary,
  faultPlanArbitrary,
  idPick,
  ifMatchPick,
  keyPick,
  type Look,
  lookArbitrary,
  tagsArbitrary,
  titleArbitrary,
} from './arbitraries';
import { Burst } from './burst-step';
import { AddArticle, type BulkElement, ReplaceAll } from './collection-steps';
import { describe, fail, type Harness, send } from './harness';
import { CreateMagazine, DeleteMagazine, ReplaceMagazine } from './magazine-steps';
import type { ApiModel } from './model';
import { MAX_RESENDS } from './writes';

export { checkViews } from './views';

/**
 * Model-based command sequences: creates (with and without id, tags, `Idempotency-Key` and its
 * replays), replaces (with and without `If-Match`), deletes, bulk replace and delete, articles,
 * and bursts of concurrent writes, each checked against the model (model.ts) after every step:
 * single reads, counts, every paging order (both sorts, offset and limit, cursors, year, tag),
 * tags, a tag's magazines, articles.
 *
 * Under injected faults (fault-sequences.test.ts) every command may also meet throttling, 5xx,
 * timeouts, lost replies or unprocessed batch items from DynamoDB. Its answer must then be a
 * success whose effect is visible, or a 503 with `Retry-After` whose effect, once the faults are
 * cleared, is none, or is completed by sending the same request again where the API promises that
 * (bulk writes, and POSTs with an `Idempotency-Key`). The same rules hold without faults: a busy
 * machine can make the API answer 503 too, and it must then keep the same promises.
 */

// ---------------------------------------------------------------------------------------------
// Sequences

const bulkElement: fc.Arbitrary<BulkElement> = fc.record({
  id: fc.option(idPick, { freq: 6, nil: undefined }),
  title: titleArbitrary,
  tags: tagsArbitrary,
  created: createdArbitrary,
});

export const commandsArbitrary = (faulty: boolean, maxCommands: number) => {
  const plan = faulty ? faultPlanArbitrary : fc.constant(undefined);
  const prefix = fc.constantFrom<Look['prefix']>('', '/v1', '/api/v1');
  return fc.commands(
    [
      fc
        .tuple(
          fc.option(idPick, { nil: undefined }),
          titleArbitrary,
          tagsArbitrary,
          createdArbitrary,
          keyPick,
          prefix,
          lookArbitrary,
          plan,
        )
        .map((a) => new CreateMagazine(...a)),
      fc
        .tuple(idPick, titleArbitrary, tagsArbitrary, createdArbitrary, fc.boolean(), ifMatchPick, lookArbitrary, plan)
        .map((a) => new ReplaceMagazine(...a)),
      fc.tuple(idPick, ifMatchPick, lookArbitrary, plan).map((a) => new DeleteMagazine(...a)),
      fc
        .tuple(
          fc.option(fc.array(bulkElement, { maxLength: 5 }), { freq: 4, nil: undefined }),
          fc.constantFrom<'none' | 'current' | 'stale' | 'star'>('none', 'none', 'current', 'stale', 'star'),
          lookArbitrary,
          plan,
        )
        .map((a) => new ReplaceAll(...a)),
      fc.tuple(idPick, articleArbitrary, keyPick, fc.boolean(), lookArbitrary, plan).map((a) => new AddArticle(...a)),
      fc
        .tuple(
          fc.integer({ min: 0, max: 3 }),
          fc.integer({ min: 0, max: 3 }),
          idPick,
          tagsArbitrary,
          lookArbitrary,
          plan,
        )
        .map((a) => new Burst(...a)),
    ],
    { maxCommands },
  );
};

/** Starts a run: the collection emptied (a bulk delete, itself checked), a fresh model. */
export const freshHarness = async (
  base: Omit<Harness, 'model' | 'log' | 'sentBodies' | 'keyCounter' | 'nonce'>,
  model: ApiModel,
): Promise<Harness> => {
  const harness: Harness = { ...base, model, log: [], sentBodies: [], keyCounter: 0, nonce: randomUUID() };
  for (let attempt = 0; ; attempt++) {
    const reset = await send(harness, { method: 'DELETE', path: '/magazines' });
    if (reset.status === 200) break;
    if (reset.status !== 503 || attempt > MAX_RESENDS)
      fail(harness, ['model'], `the reset of a run failed:\n${describe(reset)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(reset.headers['retry-after'] ?? 1)));
  }
  harness.log.push('DELETE /magazines (the run starts empty)');
  return harness;
};

export const FINAL_LOOK: Look = {
  sort: 'desc',
  offset: 1,
  limit: 2,
  format: 'xml-label',
  prefix: '/api/v1',
  pick: 0,
  walk: true,
};
