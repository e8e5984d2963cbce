import { StoreUnavailable } from '../domain/errors';

/**
 * DynamoDB's failures in the domain's words: which are throttling, which a lost race, which a
 * timeout or a fault a retry may cure (`StoreUnavailable`), and which a defect. The client counts
 * throttling with it, and the table's access turns every failure into one of these.
 */

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
]);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ECONNABORTED',
]);

interface AwsErrorShape {
  readonly name?: string;
  readonly code?: string;
  readonly $fault?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly CancellationReasons?: readonly { readonly Code?: string }[];
}

/** Why each item of a cancelled transaction failed, in the order the items were sent. */
export const cancellationReasons = (error: unknown): string[] | undefined => {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  return ((error as AwsErrorShape).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
};

/** DynamoDB (or the SDK for it) refused a call for its rate: a whole call, or an item of a transaction. */
export const isThrottling = (error: Error): boolean =>
  THROTTLING.has(error.name) || (cancellationReasons(error)?.includes('ThrottlingError') ?? false);

/**
 * What a retry may cure, as the domain's `StoreUnavailable`; anything else (a defect: a malformed
 * request, a missing table) is left as it is, to become a 500.
 */
export const storeFailure = (error: unknown): unknown => {
  if (!(error instanceof Error)) return error;
  const aws = error as AwsErrorShape & Error;
  const reasons = cancellationReasons(error);
  if (isThrottling(aws)) return new StoreUnavailable('throttled', 1, { cause: error });
  if (
    reasons?.includes('TransactionConflict') ||
    aws.name === 'TransactionConflictException' ||
    aws.name === 'TransactionInProgressException'
  ) {
    return new StoreUnavailable('conflict', 1, { cause: error });
  }
  if (
    aws.name === 'TimeoutError' ||
    aws.name === 'AbortError' ||
    aws.name === 'RequestTimeout' ||
    NETWORK_CODES.has(aws.code ?? '')
  ) {
    return new StoreUnavailable('timeout', 1, { cause: error });
  }
  if (aws.$fault === 'server' || (aws.$metadata?.httpStatusCode ?? 0) >= 500)
    return new StoreUnavailable('fault', 1, { cause: error });
  return error;
};
