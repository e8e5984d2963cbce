import type { APIGatewayProxyResult } from 'aws-lambda';
import { config } from '../../config';
import { StoreUnavailable } from '../../domain/errors';
import { publishMetrics, startRequestCounts } from '../../metrics';
import type { Operation } from '../../operation/row';
import { errorCodeOf } from './errors';
import type { ApiMiddleware, ApiRequest } from './state';

/**
 * One EMF line per request, whichever way it ends (`after` or `onError`, after the response or
 * the error has been rendered): the operation's request, latency and answer class, the error code
 * of a failure, what a success did to the catalogue (never for a mock request or an idempotent
 * replay), and the store's faults that reached the client as 503. Second in the stack, right after
 * the trace context and as synchronous, so that the latency covers every other middleware and the
 * data layer can add to the request's counts (`countForRequest`).
 */
export const metrics = (operationId: string, operation: Operation | undefined): ApiMiddleware => {
  const started = new WeakMap<
    ApiRequest,
    { readonly at: number; readonly counts: ReturnType<typeof startRequestCounts> }
  >();

  const publish = (request: ApiRequest) => {
    const start = started.get(request);
    if (!start) return;
    started.delete(request);
    const status = (request.response as APIGatewayProxyResult | undefined)?.statusCode ?? 500;
    const failed = status >= 400;
    const { counts } = start;
    const state = request.context.api;
    if (state?.mock) counts.set('MockRequests', 1);
    else if (
      operation?.counts &&
      operation.counts.status === status &&
      !(state?.reply?.kind === 'representation' && state.reply.replayed)
    )
      counts.set(operation.counts.metric, (counts.get(operation.counts.metric) ?? 0) + 1);
    const storeFault = request.error instanceof StoreUnavailable ? request.error : undefined;
    // Throttles and retried conflicts were counted as they happened (shared/db), answered 503 or not.
    if (failed && storeFault) counts.set('StoreUnavailable', 1);
    publishMetrics({
      stage: config().stage,
      operation: operationId,
      status,
      errorCode: failed ? errorCodeOf(request.error) : undefined,
      latencyMs: performance.now() - start.at,
      storeReason: failed ? storeFault?.reason : undefined,
      counts,
    });
  };

  return {
    before: (request) => {
      started.set(request, { at: performance.now(), counts: startRequestCounts() });
    },
    after: publish,
    onError: publish,
  };
};
