import { logContext } from '../logger';

/**
 * The request id the client saw (API Gateway's), written beside the write token on what a request
 * writes, so that the change event the table's stream turns it into names the request that caused
 * it. Read from the request's log context, which the first middleware sets, so no store operation
 * takes it as an argument; outside a request (a script, the janitor) Lambda's own id stands in.
 */
export const currentRequestId = (): string => {
  const context = logContext();
  return context.requestId ?? context.awsRequestId ?? 'none';
};
