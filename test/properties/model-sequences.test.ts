import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { ApiModel } from '../support/properties/model';
import { casesFor, type Figures, fuzzSettings, newFigures, runProperty } from '../support/properties/run';
import { checkViews, commandsArbitrary, FINAL_LOOK, freshHarness } from '../support/properties/sequences';

/**
 * (b) Model-based command sequences: creates, replaces, deletes, bulk writes and articles, with
 * and without ids, tags, If-Match and Idempotency-Key replays, each followed by every kind of
 * read (one magazine, lists in both orders with offsets and cursors, years, tags, articles,
 * counts) compared with an in-memory model; every view at the end of each sequence.
 */

const settings = fuzzSettings();
/** Commands per sequence at most. */
const MAX_COMMANDS = 8;
/** A fuzz run's share of requests is 30%; a sequence sends about 60 (its commands and the reads that check them). */
const numRuns = casesFor(0.3 / 60, 6, settings);
const figures: Figures = newFigures('model-based sequences');

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi({ env: { LOG_LEVEL: 'ERROR' } });
});

afterAll(async () => {
  await api?.close();
});

describe('command sequences against an in-memory model', () => {
  it('every step leaves every view (reads, counts, pages, tags, articles) as the model predicts', {
    timeout: settings.runs === undefined ? 400_000 : 24 * 3600_000,
  }, async () => {
    await runProperty({
      figures,
      numRuns,
      settings,
      arbitrary: commandsArbitrary(false, MAX_COMMANDS),
      check: async (commands, pass) => {
        const harness = await freshHarness(
          { baseUrl: api.baseUrl, tableName: api.tableName, figures, counting: pass === 'count' },
          new ApiModel(),
        );
        await fc.asyncModelRun(() => ({ model: harness.model, real: harness }), commands);
        await checkViews(harness, FINAL_LOOK, true);
      },
    });
  });
});
