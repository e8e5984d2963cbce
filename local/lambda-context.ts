import { randomBytes } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { memorySize } from '../infra/bundling';
import { DEFAULT_TIMEOUT_SECONDS } from '../shared/routes/table';
import { localAccountId } from './api-gateway-event';
import { localRegion } from './dynamodb-local';

export interface LambdaContextOptions {
  /** How long the invocation may run, from now: `getRemainingTimeInMillis` counts it down. */
  readonly timeoutMs?: number;
}

/** A deployed function's timeout unless its route row says otherwise. */
const defaultTimeoutMs = DEFAULT_TIMEOUT_SECONDS * 1000;
const memoryLimitInMB = String(memorySize);

/**
 * The Lambda context of one invocation, as Lambda hands it to a handler: one builder for the
 * local server, `npm run invoke` and the tests.
 */
export const lambdaContext = (
  functionName: string,
  requestId: string,
  { timeoutMs = defaultTimeoutMs }: LambdaContextOptions = {},
): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${localRegion}:${localAccountId}:function:${functionName}`,
    memoryLimitInMB,
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};
