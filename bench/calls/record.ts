import path from 'node:path';
import { CreateTableCommand, type CreateTableCommandInput, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoDbClient, startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import type { Recording } from '../support/answers';
import { localEnvironment, runJob } from '../support/child';
import { type Scenario, scenarioEvent, scenarioLabel, scenarios, seedEvent } from '../support/fixtures';
import type { Recorded, Response } from '../support/runner';
import { FUNCTION_OF, type Subjects, say, type Tree } from './subjects';

/** The API's calls, recorded against DynamoDB Local: what the warm and cold runs answer in process. */

export interface RecordedScenario {
  readonly recording: Recording;
  readonly response: Response;
}

export const recordingKey = (tree: Tree['key'], scenario: Scenario) => `${tree}:${scenario}`;

/** Each tree's scenarios, recorded on a table of its own definition seeded through its own PUT /magazines. */
export const recordScenarios = async (
  subjects: Subjects,
  trees: readonly Tree[],
): Promise<Map<string, RecordedScenario>> => {
  const recordings = new Map<string, RecordedScenario>();
  say('Starting DynamoDB Local to record the API’s calls…');
  const dynamoDb = await startDynamoDbLocal();
  try {
    const client = localDynamoDbClient(dynamoDb.endpoint);
    for (const tree of trees) {
      const bundles = subjects.treeBundles.get(tree.key)!;
      // Each tree's own table definition (the one before had an index).
      const { createTableInput } = (await import(path.join(tree.root, 'shared', 'db', 'table.ts'))) as {
        createTableInput: (name: string) => CreateTableCommandInput;
      };
      await client.send(new DeleteTableCommand({ TableName: 'bench' })).catch(() => undefined);
      await client.send(new CreateTableCommand(createTableInput('bench')));
      await ensureTable(client, 'bench');
      const env = localEnvironment(dynamoDb.endpoint);
      const seeded = await runJob<Recorded>(
        subjects.runner,
        { kind: 'record', bundle: bundles['replace-all-magazines']!.sdk, events: [seedEvent()], timeoutMs: 25_000 },
        env,
      );
      const seedStatus = seeded.invocations[0]?.response.statusCode;
      if (seedStatus !== 200 && seedStatus !== 204)
        throw new Error(
          `${tree.label}: PUT /magazines answered ${seedStatus}: ${seeded.invocations[0]?.response.body}`,
        );
      for (const scenario of scenarios) {
        const event = scenarioEvent(scenario);
        // The second invocation of an instance is its steady state; of several writes, the one with the fewest calls (no fold).
        const events = scenario === 'post' ? [event, event, event, event, event] : [event, event];
        const recorded = await runJob<Recorded>(
          subjects.runner,
          { kind: 'record', bundle: bundles[FUNCTION_OF[scenario]]!.sdk, events },
          env,
        );
        const steady = recorded.invocations.slice(1).sort((a, b) => a.calls.length - b.calls.length)[0]!;
        recordings.set(recordingKey(tree.key, scenario), {
          recording: { init: recorded.init, invocation: steady.calls },
          response: steady.response,
        });
        say(
          `  ${tree.label} ${scenarioLabel[scenario]}: ${steady.response.statusCode}, init ${recorded.init.map((c) => c.operation).join('+') || 'no call'}, invocation ${steady.calls.map((c) => c.operation).join('+')}`,
        );
      }
    }
    client.destroy();
  } finally {
    await dynamoDb.stop();
  }
  return recordings;
};
