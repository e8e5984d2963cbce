/**
 * One measurement, in a fresh Node process as Lambda gives each function instance:
 * `node runner.mjs <job.json> <result.json>`. `npm run bench` bundles this file
 * (bench/calls/subjects.ts), so that the process loads nothing but Node, this runner and the
 * bundle under test.
 *
 * - `record`: imports the bundle against DynamoDB Local and records, on the wire, the calls of
 *   its init phase and of each event's invocation, with the response the handler gave.
 * - `warm`: imports the bundle with DynamoDB answered in process (`[sdk]` or `[send]`, see
 *   answers.ts), warms it up, then times invocations for a while: the cost of one warm call.
 * - `paired`: two such cases in one process, their batches alternated, for a ratio of the two.
 * - `cold`: times the import, the first invocation and the second, then (if asked) an invocation
 *   that fails with an error whose stack is logged, once cold and then warm.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  type Answer,
  type Answers,
  answerSends,
  answerSockets,
  createAnswers,
  type Recording,
  recordSockets,
  type WireCall,
} from './answers';
import { timedBatch } from './batch-clock';

export interface Response {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export type Job =
  | {
      readonly kind: 'record';
      readonly bundle: string;
      readonly events: readonly APIGatewayProxyEvent[];
      /** The function's timeout (10 s unless told: a bulk function has 25 s). */
      readonly timeoutMs?: number;
    }
  | {
      readonly kind: 'warm';
      readonly bundle: string;
      readonly mode: 'sdk' | 'send';
      readonly recording: Recording;
      readonly event: APIGatewayProxyEvent;
      readonly warmup: number;
      readonly measureMs: number;
      readonly batch: number;
    }
  | {
      /** Two cases in one process, their batches alternated: a ratio that the machine's moods do not move. */
      readonly kind: 'paired';
      readonly mode: 'sdk' | 'send';
      readonly arms: readonly [PairedArm, PairedArm];
      readonly warmup: number;
      readonly measureMs: number;
      readonly batch: number;
    }
  | {
      readonly kind: 'cold';
      readonly bundle: string;
      readonly recording: Recording;
      readonly event: APIGatewayProxyEvent;
      /** Answers that make the invocation fail with a logged stack (a corrupt item), if the error path is measured. */
      readonly failing?: Recording;
      readonly errors?: number;
    };

export interface PairedArm {
  readonly bundle: string;
  readonly recording: Recording;
  readonly event: APIGatewayProxyEvent;
}

export interface PairedResult {
  readonly perCallUs: readonly [number, number];
  readonly responses: readonly [Response, Response];
}

export interface Recorded {
  readonly init: readonly WireCall[];
  readonly invocations: readonly { readonly calls: readonly WireCall[]; readonly response: Response }[];
}

/**
 * Times are CPU time of the process (user + system, all its threads) unless named `wall`, or of
 * its main thread in a paired job: the machine running the benchmarks is shared, and a process
 * that waits for a core is not slower.
 */
export interface WarmResult {
  readonly perCallUs: number;
  readonly wallPerCallUs: number;
  readonly calls: number;
  readonly response: Response;
  readonly unmatched: number;
}

export interface ColdResult {
  readonly importMs: number;
  readonly wallImportMs: number;
  readonly wallFirstCallMs: number;
  readonly firstCallMs: number;
  readonly secondCallMs: number;
  readonly response: Response;
  readonly firstErrorMs?: number;
  readonly warmErrorMs?: number;
  readonly errorResponse?: Response;
}

/** CPU time of this process so far, in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const context = (functionName: string, timeoutMs = 10_000): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: '00000000-0000-4000-8000-000000000001',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/01/01/[$LATEST]00000000000000000000000000000000',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

const asResponse = (result: APIGatewayProxyResult): Response => ({
  statusCode: result.statusCode,
  headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)])),
  body: result.body,
});

const load = async (bundle: string): Promise<Handler> => {
  const module = (await import(pathToFileURL(bundle).href)) as { handler?: Handler };
  if (typeof module.handler !== 'function') throw new Error(`${bundle} exports no handler.`);
  return module.handler;
};

const record = async (job: Extract<Job, { kind: 'record' }>): Promise<Recorded> => {
  let calls: WireCall[] = [];
  recordSockets((call) => calls.push(call));
  const handler = await load(job.bundle);
  const init = calls;
  const invocations = [];
  for (const event of job.events) {
    calls = [];
    const response = asResponse(await handler(structuredClone(event), context('bench', job.timeoutMs)));
    invocations.push({ calls, response });
  }
  return { init, invocations };
};

/** Where the transport finds its answers: switched between a normal and a failing recording. */
const install = (mode: 'sdk' | 'send', first: Answers) => {
  let answers = first;
  if (mode === 'sdk') answerSockets((operation: string, request: string): Answer => answers.wire(operation, request));
  else answerSends((operation, input) => answers.native(operation, input));
  return {
    get current() {
      return answers;
    },
    use(next: Answers) {
      answers = next;
    },
  };
};

const warm = async (job: Extract<Job, { kind: 'warm' }>): Promise<WarmResult> => {
  const answers = createAnswers(job.recording);
  install(job.mode, answers);
  const handler = await load(job.bundle);
  // Each warm invocation has the function's whole timeout ahead of it, however long the run takes.
  const base = { ...context('bench'), getRemainingTimeInMillis: () => 10_000 };
  let response: Response | undefined;
  for (let i = 0; i < job.warmup; i++) {
    answers.begin('invocation');
    response = asResponse(await handler(structuredClone(job.event), { ...base }));
  }
  const unmatchedBefore = answers.unmatched;
  let elapsed = 0;
  let wall = 0;
  let calls = 0;
  while (elapsed < job.measureMs) {
    // Events as API Gateway hands them: a new object each time (handlers may normalise them in place), made off the clock.
    const events = Array.from({ length: job.batch }, () => structuredClone(job.event));
    const started = performance.now();
    const cpuStarted = cpuMs();
    for (const event of events) {
      answers.begin('invocation');
      await handler(event, { ...base });
    }
    elapsed += cpuMs() - cpuStarted;
    wall += performance.now() - started;
    calls += job.batch;
  }
  if (!response) throw new Error('No warm-up call was made.');
  return {
    perCallUs: (elapsed * 1000) / calls,
    wallPerCallUs: (wall * 1000) / calls,
    calls,
    response,
    unmatched: (answers.unmatched - unmatchedBefore) / calls,
  };
};

const paired = async (job: Extract<Job, { kind: 'paired' }>): Promise<PairedResult> => {
  const answers = job.arms.map((arm) => createAnswers(arm.recording));
  const transport = install(job.mode, answers[0]!);
  // A bundle named by both arms (one handler, two requests) is loaded once.
  const loaded = new Map<string, Handler>();
  const handlers: Handler[] = [];
  for (const [i, arm] of job.arms.entries()) {
    transport.use(answers[i]!);
    answers[i]!.begin('init');
    let handler = loaded.get(arm.bundle);
    if (!handler) {
      handler = await load(arm.bundle);
      loaded.set(arm.bundle, handler);
    }
    handlers.push(handler);
  }
  const base = { ...context('bench'), getRemainingTimeInMillis: () => 10_000 };
  const runBatch = async (i: number, events: readonly APIGatewayProxyEvent[]) => {
    transport.use(answers[i]!);
    let last: APIGatewayProxyResult | undefined;
    for (const event of events) {
      answers[i]!.begin('invocation');
      last = await handlers[i]!(event, { ...base });
    }
    return last!;
  };
  const responses: Response[] = [];
  for (const [i, arm] of job.arms.entries())
    responses.push(
      asResponse(
        await runBatch(
          i,
          Array.from({ length: job.warmup }, () => structuredClone(arm.event)),
        ),
      ),
    );
  const elapsed = [0, 0];
  const calls = [0, 0];
  let turn = 0;
  while (Math.min(...elapsed) < job.measureMs) {
    // A, B, B, A, A, B...: neither arm always goes first after the other.
    const i = [0, 1, 1, 0][turn++ % 4]!;
    const events = Array.from({ length: job.batch }, () => structuredClone(job.arms[i]!.event));
    elapsed[i]! += await timedBatch(() => runBatch(i, events));
    calls[i]! += job.batch;
  }
  return {
    perCallUs: [(elapsed[0]! * 1000) / calls[0]!, (elapsed[1]! * 1000) / calls[1]!],
    responses: [responses[0]!, responses[1]!],
  };
};

const cold = async (job: Extract<Job, { kind: 'cold' }>): Promise<ColdResult> => {
  const answers = createAnswers(job.recording);
  const transport = install('sdk', answers);
  const first = structuredClone(job.event);
  const second = structuredClone(job.event);
  const wallStarted = performance.now();
  const started = cpuMs();
  const handler = await load(job.bundle);
  const imported = cpuMs();
  const wallImported = performance.now();
  answers.begin('invocation');
  const response = asResponse(await handler(first, context('bench')));
  const firstDone = cpuMs();
  const wallFirstDone = performance.now();
  answers.begin('invocation');
  await handler(second, context('bench'));
  const secondDone = cpuMs();
  const figures = {
    importMs: imported - started,
    firstCallMs: firstDone - imported,
    secondCallMs: secondDone - firstDone,
    wallImportMs: wallImported - wallStarted,
    wallFirstCallMs: wallFirstDone - wallImported,
    response,
  };
  if (!job.failing) return figures;
  const failing = createAnswers(job.failing);
  failing.begin('invocation');
  transport.use(failing);
  const errorEvents = Array.from({ length: 1 + (job.errors ?? 10) }, () => structuredClone(job.event));
  const errorStarted = cpuMs();
  const errorResponse = asResponse(await handler(errorEvents[0]!, context('bench')));
  const firstError = cpuMs();
  for (const event of errorEvents.slice(1)) {
    failing.begin('invocation');
    await handler(event, context('bench'));
  }
  const errorsDone = cpuMs();
  return {
    ...figures,
    firstErrorMs: firstError - errorStarted,
    warmErrorMs: (errorsDone - firstError) / (errorEvents.length - 1),
    errorResponse,
  };
};

const [jobFile, resultFile] = process.argv.slice(2);
if (!jobFile || !resultFile) throw new Error('Usage: node runner.mjs <job.json> <result.json>');
const job = JSON.parse(readFileSync(jobFile, 'utf8')) as Job;
const result =
  job.kind === 'record'
    ? await record(job)
    : job.kind === 'warm'
      ? await warm(job)
      : job.kind === 'paired'
        ? await paired(job)
        : await cold(job);
writeFileSync(resultFile, JSON.stringify(result));
// Handlers may leave timers (SDK sockets, folds): the measurement is done.
process.exit(0);
