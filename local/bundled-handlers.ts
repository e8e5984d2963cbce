import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { memorySize, runtimeName } from '../infra/bundling';
import { readConfig } from '../shared/config';
import { functionRowOf } from '../shared/routes/table';
import { functionEnvironment, streamTaskOfHandler } from '../shared/routes/tasks';
import type { Bundles } from './bundle-functions';
import { localRegion } from './dynamodb-local';
import type { LocalEnvironment } from './environment';
import type { HandlerLoader, LambdaHandler } from './load-handler';

/**
 * What Lambda's Node.js runtime does with a bundle, in a worker thread of its own: imports
 * `index.mjs` (init), then calls its `handler` once per invocation with the event and a context
 * whose `getRemainingTimeInMillis` counts down to the deadline. Plain JavaScript, evaluated as
 * the worker's script, so that it needs no TypeScript loader.
 */
const RUNTIME = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
process.setSourceMapsEnabled(true);
const describe = (error) => ({ name: error?.name ?? 'Error', message: String(error?.message ?? error), stack: error?.stack });
import(pathToFileURL(workerData.file).href).then(
  (module) => {
    const handler = module.handler;
    if (typeof handler !== 'function') throw new Error(workerData.file + ' exports no handler function');
    parentPort.on('message', async ({ id, event, context }) => {
      const deadline = context.deadline;
      delete context.deadline;
      const lambdaContext = { ...context, getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()), done() {}, fail() {}, succeed() {} };
      try {
        parentPort.postMessage({ id, result: await handler(event, lambdaContext) });
      } catch (error) {
        parentPort.postMessage({ id, error: describe(error) });
      }
    });
    parentPort.postMessage({ ready: true });
  },
  (error) => parentPort.postMessage({ initError: describe(error) }),
);
`;

interface Failure {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

type Reply = { id: number; result?: unknown; error?: Failure } | { ready: true } | { initError: Failure };

const asError = (failure: Failure) =>
  Object.assign(new Error(failure.message), { name: failure.name, stack: failure.stack });

/**
 * The environment Lambda gives a function: the runtime's own variables, then the function's
 * settings as the CDK stack sets them (`functionEnvironment`), pointed at the local DynamoDB.
 */
const lambdaVariables = (name: string, environment: LocalEnvironment): Record<string, string> => {
  const functionName = `magazine-api-local-${name}`;
  const {
    DYNAMODB_ENDPOINT,
    AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY,
    AWS_REGION = localRegion,
    LOG_LEVEL,
    METRICS = 'off',
  } = environment.variables;
  const settings = readConfig(environment.variables);
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    AWS_EXECUTION_ENV: `AWS_Lambda_${runtimeName}`,
    AWS_LAMBDA_FUNCTION_NAME: functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memorySize),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
    AWS_REGION,
    AWS_DEFAULT_REGION: AWS_REGION,
    ...(AWS_ACCESS_KEY_ID && { AWS_ACCESS_KEY_ID }),
    ...(AWS_SECRET_ACCESS_KEY && { AWS_SECRET_ACCESS_KEY }),
    ...functionEnvironment(functionRowOf(name), {
      tableName: environment.tableName,
      mockEnabled: settings.mockEnabled,
      baseUrl: settings.baseUrl,
      cursorKey: environment.variables.CURSOR_KEY,
    }),
    ...(LOG_LEVEL && { LOG_LEVEL }),
    // Nothing reads metrics lines on this machine: like the source handlers, only when asked for.
    METRICS,
    // Only here: a deployed function finds DynamoDB itself.
    ...(DYNAMODB_ENDPOINT && { DYNAMODB_ENDPOINT }),
    // The publisher's bus and the API's address, as the stack gives them: here the local stand-in `npm start` set up.
    ...(streamTaskOfHandler(name)?.publishes &&
      Object.fromEntries(
        ['EVENT_BUS_NAME', 'EVENTBRIDGE_ENDPOINT', 'EVENTS_BASE_URL'].flatMap((variable) =>
          process.env[variable] ? [[variable, process.env[variable]]] : [],
        ),
      )),
  };
};

/** One function: a worker that imported the bundle, and the invocations waiting for its answers. */
const startFunction = (name: string, file: string, environment: LocalEnvironment) =>
  new Promise<{ handler: LambdaHandler; worker: Worker }>((ready, failed) => {
    const worker = new Worker(RUNTIME, {
      eval: true,
      env: lambdaVariables(name, environment),
      workerData: { file },
      stdout: false,
      stderr: false,
    });
    const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
    let next = 0;
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        const handler: LambdaHandler = (event: APIGatewayProxyEvent, context: Context) =>
          new Promise((resolve, reject) => {
            const id = next++;
            waiting.set(id, { resolve, reject });
            const { getRemainingTimeInMillis, done: _, fail: __, succeed: ___, ...fields } = context;
            worker.postMessage({
              id,
              event,
              context: { ...fields, deadline: Date.now() + getRemainingTimeInMillis() },
            });
          });
        ready({ handler, worker });
      } else if ('initError' in reply) {
        void worker.terminate();
        failed(asError(reply.initError));
      } else {
        const caller = waiting.get(reply.id);
        waiting.delete(reply.id);
        if (reply.error) caller?.reject(asError(reply.error));
        else caller?.resolve(reply.result);
      }
    });
    worker.on('error', (error) => {
      failed(error);
      for (const caller of waiting.values()) caller.reject(error);
      waiting.clear();
    });
  });

/**
 * The handlers from their bundles, each run as Lambda runs it: in an isolated worker with the
 * environment the CDK stack gives that function, imported once (the cold start) and invoked
 * for every request routed to it after that.
 */
export const bundledHandlers = (environment: LocalEnvironment, bundles: Bundles): HandlerLoader => {
  const started = new Map<string, Promise<{ handler: LambdaHandler; worker: Worker }>>();
  const load: HandlerLoader = async (name) => {
    if (!bundles.names.includes(name)) throw new Error(`No bundle for ${name} in ${bundles.dir}.`);
    let running = started.get(name);
    if (!running) {
      running = startFunction(name, bundles.file(name), environment);
      started.set(name, running);
      running.catch(() => started.delete(name));
    }
    return (await running).handler;
  };
  load.close = async () => {
    const workers = await Promise.allSettled(started.values());
    started.clear();
    await Promise.all(
      workers.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.worker.terminate()] : [])),
    );
  };
  return load;
};
