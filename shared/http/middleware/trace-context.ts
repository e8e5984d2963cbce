import type { APIGatewayProxyEvent } from 'aws-lambda';
import { enterLogContext } from '../../logger';
import type { ApiMiddleware } from './state';

/** `Root=1-5759e988-bd862e3fe1be46a994272793;Parent=…;Sampled=1` → `1-5759e988-bd862e3fe1be46a994272793`. */
const traceRoot = (header: string | undefined) => header && /(?:^|;)\s*Root=([^;]+)/.exec(header)?.[1];

/** Runs first, before the headers are normalised: API Gateway spells the header `X-Amzn-Trace-Id`. */
const traceHeader = (event: APIGatewayProxyEvent) =>
  event.headers?.['X-Amzn-Trace-Id'] ??
  Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-amzn-trace-id')?.[1];

/**
 * Ties every log line of the request to what an operator holds: the request id the client saw
 * (`x-amzn-RequestId`, API Gateway's `requestContext.requestId`), Lambda's own request id, and the
 * X-Ray trace. Lambda sets `_X_AMZN_TRACE_ID` for each invocation of an actively traced function;
 * elsewhere the header API Gateway sent stands in for it. First in the stack and synchronous, so
 * that the context holds for everything the invocation does.
 */
export const traceContext = (operation: string): ApiMiddleware => ({
  before: (request) => {
    const { event, context } = request;
    enterLogContext({
      requestId: event.requestContext?.requestId,
      awsRequestId: context.awsRequestId,
      traceId: traceRoot(process.env._X_AMZN_TRACE_ID) || traceRoot(traceHeader(event)) || undefined,
      operation,
    });
  },
});
