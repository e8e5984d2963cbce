import fc from 'fast-check';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../support/dynamodb-faults';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { ApiModel } from '../support/properties/model';
import { casesFor, type Figures, fuzzSettings, newFigures, runProperty } from '../support/properties/run';
import { checkViews, commandsArbitrary, FINAL_LOOK, freshHarness } from '../support/properties/sequences';

/**
 * (c) The command sequences of model-sequences.test.ts, each write meeting a fault DynamoDB makes
 * and DynamoDB Local does not (throttling, 500, 503, a call never answered, a reply lost after
 * the write was applied, unprocessed batch items), injected by the fault proxy in front of it.
 * Every answer is a success whose effect is visible, or a 503 with `Retry-After` that, once the
 * faults are cleared, left nothing behind, or (bulk writes, POSTs with an `Idempotency-Key`) is
 * completed exactly once by sending the same request again.
 */

const settings = fuzzSettings();
const MAX_COMMANDS = 6;
/** A fuzz run's share of requests is 20%; a sequence sends about 40 (its commands, resends and the reads that check them). */
const numRuns = casesFor(0.2 / 40, 6, settings);
const figures: Figures = newFigures('sequences under injected faults');

let api: LocalApi;
let faults: FaultProxy;

beforeAll(async () => {
  faults = await startFaultProxy(inject('dynamoDbEndpoint'));
  api = await startLocalApi({ env: { LOG_LEVEL: 'ERROR', DYNAMODB_ENDPOINT: faults.endpoint } });
});

afterAll(async () => {
  await api?.close();
  await faults?.close();
});

describe('command sequences under injected DynamoDB faults', () => {
  it('every write takes full effect or none, answers 503 with Retry-After when it failed, and is never doubled by a retry', {
    timeout: settings.runs === undefined ? 400_000 : 24 * 3600_000,
  }, async () => {
    await runProperty({
      figures,
      numRuns,
      settings,
      arbitrary: commandsArbitrary(true, MAX_COMMANDS),
      check: async (commands, pass) => {
        faults.clearFaults();
        const harness = await freshHarness(
          { baseUrl: api.baseUrl, tableName: api.tableName, figures, counting: pass === 'count', faults },
          new ApiModel(),
        );
        await fc.asyncModelRun(() => ({ model: harness.model, real: harness }), commands);
        await checkViews(harness, FINAL_LOOK, true);
      },
      finish: (done) => {
        done.faults = Object.fromEntries(Object.entries(faults.counters().injected).filter(([, n]) => n > 0));
      },
    });
  });
});
