import { DomainError, StoreUnavailable } from '../../domain/errors';
import { logger } from '../../logger';
import { varyOf } from '../compression';
import { corsResponseHeaders } from '../cors';
import { toApiError } from '../domain-errors';
import type { ErrorCode } from '../error-catalogue';
import { ApiError, apiErrorObject } from '../errors';
import { defaultJson, jsonFor } from '../negotiation';
import { wellFormedOrAbsent } from '../text';
import { toXml } from '../xml';
import type { ApiMiddleware, ApiRequest } from './state';

/** The id a client sees (`x-amzn-RequestId`): API Gateway's, which the function logs beside its own. */
const clientRequestId = (request: ApiRequest) =>
  request.event.requestContext?.requestId ?? request.context.awsRequestId;

const internalError = (requestId: string) =>
  new ApiError(
    '50001',
    `Something failed on the server while handling request ${requestId}; retry later, and quote this request id if it persists.`,
  );

/** Rendering the error itself failed: an answer made in advance, still the error object in the API's form. */
const FALLBACK = {
  statusCode: 500,
  headers: { ...corsResponseHeaders, Vary: 'Accept', 'Content-Type': defaultJson.contentType },
  body: JSON.stringify(apiErrorObject(new ApiError('50001'), '')),
};

/** The 500 of a request whose error could not be rendered: plain JSON, and the prebuilt answer if even that fails. */
const fallback = (request: ApiRequest) => {
  try {
    const body = apiErrorObject(internalError(clientRequestId(request)), request.context.api?.links.baseUrl ?? '');
    return { ...FALLBACK, headers: { ...FALLBACK.headers }, body: JSON.stringify(body) };
  } catch {
    return { ...FALLBACK, headers: { ...FALLBACK.headers } };
  }
};

/** The catalogue's error for a thrown one; undefined for a failure nobody foresaw (a defect). */
const knownError = (error: unknown): ApiError | undefined => {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return toApiError(error);
  return undefined;
};

/** The code a failed request is answered with: its catalogue code, or `50001` for a defect. */
export const errorCodeOf = (error: unknown): ErrorCode => {
  try {
    return knownError(error)?.code ?? '50001';
  } catch {
    return '50001';
  }
};

const apiErrorOf = (request: ApiRequest): ApiError => {
  const known = knownError(request.error);
  // A 503 the store caused says why in the log (throttled, timeout, conflict, fault, collection busy, cursor key), with what DynamoDB answered.
  if (request.error instanceof StoreUnavailable)
    logger.warn('Store unavailable', {
      reason: request.error.reason,
      error: request.error,
      requestId: clientRequestId(request),
    });
  if (known) return known;
  logger.error('Unhandled error', {
    error: request.error,
    requestId: clientRequestId(request),
    awsRequestId: request.context.awsRequestId,
  });
  return internalError(clientRequestId(request));
};

/**
 * Every error ends here as the API's error object, in the negotiated format (JSON if it failed
 * before the format was chosen, and for a 406): the API's own errors as they are, domain errors
 * through the one table that maps them, anything else as a 500 that names the request id and logs
 * the cause.
 */
export const errorRenderer = (): ApiMiddleware => ({
  onError: (request) => {
    try {
      const state = request.context.api;
      const error = apiErrorOf(request);
      // A 406 is JSON, whatever format was asked for: the request named a format this API does not have.
      const negotiated =
        error.status === 406
          ? jsonFor(wellFormedOrAbsent(request.event.headers?.accept))
          : (state?.negotiated ?? defaultJson);
      const object = apiErrorObject(error, state?.links.baseUrl ?? '');
      const body = negotiated.format === 'xml' ? toXml('error', object) : JSON.stringify(object);
      request.response = {
        statusCode: error.status,
        // A long error object is compressed as any long body is: its Vary says so (a HEAD's, as its GET's).
        headers: {
          ...corsResponseHeaders,
          Vary: varyOf(body),
          'Content-Type': negotiated.contentType,
          ...error.headers,
        },
        body: request.event.httpMethod === 'HEAD' ? '' : body,
      };
    } catch (renderingError) {
      logger.error('Error rendering failed', { error: renderingError, original: request.error });
      request.response = fallback(request);
    }
  },
});
