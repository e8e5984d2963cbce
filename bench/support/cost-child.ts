/**
 * One operation of the cost model (bench/cost/), in a fresh Node process as Lambda gives a
 * function instance: `node cost-child.mjs <job.json> <result.json>`, against DynamoDB Local with
 * every call metered (metered-sockets.ts). The requests go in groups; after each group the
 * table's stream is read as far as that group's writes, and each stream task is given what its
 * filter lets through, split into its lanes as its event source mapping splits a batch: so a
 * group of ten writes is folded and published as ten writes within one batching window are.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { APIGatewayProxyEvent, Context, DynamoDBStreamEvent } from 'aws-lambda';
import { localCredentials, localRegion } from '../../local/dynamodb-local';
import { startLocalEventBus } from '../../local/event-bus';
import { lambdaContext } from '../../local/lambda-context';
import { laneIndex, openStream, passesFilter } from '../../local/stream-reader';
import { type MeteredCall, meterSockets, sizeReader } from './metered-sockets';
import type { Response } from './runner';

export interface StreamTaskJob {
  readonly handler: string;
  readonly bundle: string;
  readonly prefixes: readonly string[];
  readonly changes?: readonly string[];
  readonly parallelization: number;
  readonly timeoutMs: number;
}

export interface CostJob {
  readonly bundle: string;
  readonly groups: readonly (readonly APIGatewayProxyEvent[])[];
  readonly tasks: readonly StreamTaskJob[];
  readonly endpoint: string;
  readonly tableName: string;
}

export interface MeteredRequest {
  readonly response: Response;
  readonly calls: readonly MeteredCall[];
}

export interface MeteredTaskRun {
  readonly handler: string;
  readonly records: number;
  readonly calls: readonly MeteredCall[];
  /** Change events put on the bus (the publisher puts them with `fetch`, not through the meter). */
  readonly events: number;
  /** Wall time of the invocation, the bench's own reads of item sizes included. */
  readonly wallMs: number;
}

export interface CostResult {
  readonly init: readonly MeteredCall[];
  readonly groups: readonly { readonly requests: MeteredRequest[]; readonly tasks: MeteredTaskRun[] }[];
}

type Handler<E, R> = (event: E, context: Context) => Promise<R>;

const load = async <E, R>(bundle: string): Promise<Handler<E, R>> => {
  const module = (await import(pathToFileURL(bundle).href)) as { handler?: Handler<E, R> };
  if (typeof module.handler !== 'function') throw new Error(`${bundle} exports no handler.`);
  return module.handler;
};

const [jobFile, resultFile] = process.argv.slice(2);
if (!jobFile || !resultFile) throw new Error('Usage: node cost-child.mjs <job.json> <result.json>');
const job = JSON.parse(readFileSync(jobFile, 'utf8')) as CostJob;

const direct = new DynamoDBClient({ endpoint: job.endpoint, region: localRegion, credentials: localCredentials });
const meter = meterSockets(sizeReader(direct));

// The change events' bus, where the publisher's module reads it when it loads.
const bus = await startLocalEventBus();
process.env.EVENT_BUS_NAME = bus.busName;
process.env.EVENTBRIDGE_ENDPOINT = bus.endpoint;

const stream = await openStream({ endpoint: job.endpoint, tableName: job.tableName, dynamoDbClient: direct });
/** Every record written since the last read (the first read passes over all before it). */
const newRecords = () => stream.read(true);

const handler = await load<
  APIGatewayProxyEvent,
  { statusCode: number; headers?: Record<string, unknown>; body: string }
>(job.bundle);
const init = meter.calls.filter((call) => call.phase === 'init');
// The stream tasks' own init calls are not the operation's.
meter.phase('stream tasks init');
const tasks: (StreamTaskJob & { readonly run: Handler<DynamoDBStreamEvent, unknown> })[] = [];
for (const task of job.tasks) tasks.push({ ...task, run: await load<DynamoDBStreamEvent, unknown>(task.bundle) });
await newRecords();

const groups: CostResult['groups'][number][] = [];
for (const [g, events] of job.groups.entries()) {
  const requests: MeteredRequest[] = [];
  for (const [i, event] of events.entries()) {
    const phase = `request ${g}.${i}`;
    meter.phase(phase);
    const result = await handler(event, lambdaContext('bench', `${g}-${i}`, { timeoutMs: 10_000 }));
    requests.push({
      response: {
        statusCode: result.statusCode,
        headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)])),
        body: result.body,
      },
      calls: meter.calls.filter((call) => call.phase === phase),
    });
  }
  meter.phase('stream');
  const records = await newRecords();
  const runs: MeteredTaskRun[] = [];
  for (const task of tasks) {
    const lanes = Array.from({ length: task.parallelization }, () => [] as StreamRecord[]);
    for (const record of records.filter((r) => passesFilter(r, task.prefixes, task.changes)))
      lanes[laneIndex(record, lanes.length)]!.push(record);
    for (const [lane, batch] of lanes.entries()) {
      if (batch.length === 0) continue;
      const phase = `${task.handler} ${g}.${lane}`;
      meter.phase(phase);
      const published = bus.events.length;
      const wallStarted = performance.now();
      await task.run(
        { Records: batch } as unknown as DynamoDBStreamEvent,
        lambdaContext(task.handler, `${g}-${lane}`, { timeoutMs: task.timeoutMs }),
      );
      runs.push({
        handler: task.handler,
        records: batch.length,
        calls: meter.calls.filter((call) => call.phase === phase),
        wallMs: performance.now() - wallStarted,
        events: bus.events.length - published,
      });
    }
  }
  groups.push({ requests, tasks: runs });
}

writeFileSync(resultFile, JSON.stringify({ init, groups } satisfies CostResult));
// Handlers may leave timers (SDK sockets): the measurement is done.
process.exit(0);
