import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { corsPreflight } from '../shared/http/cors';
import { errorCatalogue } from '../shared/http/error-catalogue';
import {
  gatewayErrorHeaders,
  gatewayErrorObject,
  gatewayErrorOf,
  requestIdVariable,
} from '../shared/http/gateway-errors';
import { ownAddress } from './api-gateway-event';
import type { KeyRefusal } from './api-keys';

/**
 * What API Gateway answers by itself in front of the functions, imitated by the local server
 * (server.ts): its own errors, the CORS preflight, and its check of a proxy integration's result.
 */

/** Lambda's limit on a synchronous response. */
const MAX_RESPONSE_BYTES = 6 * 1024 * 1024;

/** The API Gateway answers the local server imitates, by response type (shared/http/gateway-errors.ts). */
type GatewayResponseType =
  | 'REQUEST_TOO_LARGE'
  | 'RESOURCE_NOT_FOUND'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | KeyRefusal['responseType'];

const errorTypes: Record<GatewayResponseType, string> = {
  INVALID_API_KEY: 'ForbiddenException',
  THROTTLED: 'TooManyRequestsException',
  QUOTA_EXCEEDED: 'LimitExceededException',
  REQUEST_TOO_LARGE: 'RequestEntityTooLargeException',
  RESOURCE_NOT_FOUND: 'NotFoundException',
  INTEGRATION_FAILURE: 'InternalServerErrorException',
  INTEGRATION_TIMEOUT: 'InternalServerErrorException',
  UNSUPPORTED_MEDIA_TYPE: 'UnsupportedMediaTypeException',
};

/** Why API Gateway answered by itself; the message is for the local log, the client gets the gateway response. */
export class GatewayFailure extends Error {
  constructor(
    readonly responseType: GatewayResponseType,
    message: string,
    cause?: unknown,
    /** Said to the client in place of the gateway response's own message, where the local server knows more. */
    readonly developerMessage?: string,
  ) {
    super(message, { cause });
  }
}

/** The gateway response the deployed API sends (infra/gateway-responses.ts), with the `$context` filled in locally. */
export const gatewayError = (req: IncomingMessage, res: ServerResponse, requestId: string, failure: GatewayFailure) => {
  const error = gatewayErrorOf(failure.responseType);
  const object = gatewayErrorObject(error, `http://${ownAddress(req)}`);
  const body = JSON.stringify({
    ...object,
    developerMessage: (failure.developerMessage ?? object.developerMessage).replaceAll(requestIdVariable, requestId),
  });
  res.writeHead(errorCatalogue[error.code].status, {
    ...gatewayErrorHeaders(error),
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-RequestId': requestId,
    'x-amzn-ErrorType': errorTypes[failure.responseType],
  });
  res.end(req.method === 'HEAD' ? undefined : body);
};

/** Why Node could not read a request, by its parser's code. */
export const unreadable: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'The request could not be read: its URL and headers are larger than 16 KB.',
  HPE_INVALID_METHOD: 'The request could not be read: its method is not an HTTP method.',
  default:
    'The request could not be read: it is not well-formed HTTP (a URL must be ASCII, with other characters percent-encoded).',
};

/** The CORS preflight the deployed API answers itself (a mock integration) on every routed resource. */
export const preflightHeaders = {
  'Access-Control-Allow-Origin': corsPreflight.allowOrigin,
  'Access-Control-Allow-Methods': corsPreflight.allowMethods.join(','),
  'Access-Control-Allow-Headers': corsPreflight.allowHeaders.join(','),
  'Access-Control-Max-Age': String(corsPreflight.maxAgeSeconds),
};

const isHeaderValue = (value: unknown): value is string | number | boolean =>
  ['string', 'number', 'boolean'].includes(typeof value);

/** What API Gateway accepts from a proxy integration; anything else is its 502. */
export const checkProxyResult = (result: unknown): APIGatewayProxyResult => {
  if (typeof result !== 'object' || result === null)
    throw new GatewayFailure('INTEGRATION_FAILURE', 'The function did not answer with an object.');
  const candidate = result as Record<string, unknown>;
  const { statusCode, headers, multiValueHeaders, body, isBase64Encoded } = candidate;
  const statusValid =
    typeof statusCode === 'number' && Number.isInteger(statusCode) && statusCode >= 100 && statusCode <= 599;
  const headersValid =
    headers === undefined ||
    headers === null ||
    (typeof headers === 'object' && Object.values(headers).every(isHeaderValue));
  const multiValid =
    multiValueHeaders === undefined ||
    multiValueHeaders === null ||
    (typeof multiValueHeaders === 'object' &&
      Object.values(multiValueHeaders).every((values) => Array.isArray(values) && values.every(isHeaderValue)));
  const bodyValid = body === undefined || body === null || typeof body === 'string';
  const base64Valid = isBase64Encoded === undefined || typeof isBase64Encoded === 'boolean';
  if (!(statusValid && headersValid && multiValid && bodyValid && base64Valid)) {
    throw new GatewayFailure(
      'INTEGRATION_FAILURE',
      `The function answered with a malformed proxy result (keys: ${Object.keys(candidate).join(', ') || 'none'}).`,
    );
  }
  if (JSON.stringify(result).length > MAX_RESPONSE_BYTES)
    throw new GatewayFailure(
      'INTEGRATION_FAILURE',
      'The function answer is larger than 6 MB, the most Lambda returns.',
    );
  return result as APIGatewayProxyResult;
};

/** `headers` and `multiValueHeaders` merged as API Gateway does: the multi-value entry wins. */
export const responseHeaders = (result: APIGatewayProxyResult): Record<string, string[]> => {
  const merged = new Map<string, [string, string[]]>();
  for (const [name, value] of Object.entries(result.headers ?? {}))
    merged.set(name.toLowerCase(), [name, [String(value)]]);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    merged.set(name.toLowerCase(), [name, values.map(String)]);
  return Object.fromEntries([...merged.values()]);
};
