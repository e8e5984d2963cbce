import { requestCodings } from './compression';
import { corsResponseHeaders } from './cors';
import { type ErrorCode, errorCatalogue } from './error-catalogue';
import { errorObject } from './errors';

/**
 * The answers API Gateway gives by itself (no signature, throttled, too large, the function
 * failed or timed out), as plain data: the CDK stack turns each into a gateway response that
 * renders the API's error object, and the OpenAPI document lists the codes they can carry.
 */
export interface GatewayError {
  /** API Gateway's response type, such as `THROTTLED`. */
  readonly responseType: string;
  /** Also sets the status: the code's, whatever status API Gateway would have used. */
  readonly code: ErrorCode;
  /** Replaces the catalogue's message where API Gateway's cause is narrower or wider. */
  readonly developerMessage?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Filled in by API Gateway (a `$context` variable), and by the local server with its own request id. */
export const requestIdVariable = '$context.requestId';
const requestIdNote = ` The request id is ${requestIdVariable}; quote it if this persists.`;

/** Seconds a client over its daily quota is told to wait: a static header cannot count to midnight UTC. */
export const QUOTA_RETRY_AFTER_SECONDS = 3600;

/**
 * The API has no authorizers, so their responses (UNAUTHORIZED, AUTHORIZER_*) cannot occur; were
 * one added, the DEFAULT_4XX/5XX entries would still render the error object. A missing, unknown
 * and revoked API key are one gateway response (INVALID_API_KEY), so one code.
 */
export const gatewayErrors: readonly GatewayError[] = [
  // Every path has a route (a `/{proxy+}` catches the rest), so API Gateway's "missing
  // authentication token" only ever means an unsigned request to a write method.
  { responseType: 'MISSING_AUTHENTICATION_TOKEN', code: '40301' },
  { responseType: 'ACCESS_DENIED', code: '40301' },
  {
    responseType: 'INVALID_SIGNATURE',
    code: '40301',
    developerMessage:
      'The AWS Signature Version 4 of the request does not match; sign the exact method, path, query and body sent, with the current time.',
  },
  {
    responseType: 'EXPIRED_TOKEN',
    code: '40301',
    developerMessage: 'The credentials or signature of the request have expired; sign it again with fresh credentials.',
  },
  { responseType: 'RESOURCE_NOT_FOUND', code: '40401' },
  { responseType: 'INVALID_API_KEY', code: '40302' },
  { responseType: 'WAF_FILTERED', code: '40303' },
  { responseType: 'THROTTLED', code: '42901', headers: { 'Retry-After': '1' } },
  { responseType: 'QUOTA_EXCEEDED', code: '42902', headers: { 'Retry-After': String(QUOTA_RETRY_AFTER_SECONDS) } },
  {
    responseType: 'REQUEST_TOO_LARGE',
    code: '41301',
    developerMessage:
      'The request is larger than API Gateway accepts (10 MB); this API accepts request bodies up to 1 MiB.',
  },
  // With no mapping template or request validator, API Gateway's 415 is its refusal of a request
  // body's coding: one it does not decode, or a body that does not decode with it.
  { responseType: 'UNSUPPORTED_MEDIA_TYPE', code: '41502', headers: { 'Accept-Encoding': requestCodings } },
  { responseType: 'BAD_REQUEST_BODY', code: '40001', developerMessage: 'The request body could not be accepted.' },
  {
    responseType: 'BAD_REQUEST_PARAMETERS',
    code: '40004',
    developerMessage: 'A required parameter or header of the request is missing or not valid.',
  },
  { responseType: 'DEFAULT_4XX', code: '40012' },
  {
    responseType: 'INTEGRATION_TIMEOUT',
    code: '50401',
    developerMessage: `${errorCatalogue['50401'].developerMessage}${requestIdNote}`,
  },
  {
    responseType: 'INTEGRATION_FAILURE',
    code: '50201',
    developerMessage: `${errorCatalogue['50201'].developerMessage}${requestIdNote}`,
  },
  {
    responseType: 'API_CONFIGURATION_ERROR',
    code: '50001',
    developerMessage: `${errorCatalogue['50001'].developerMessage}${requestIdNote}`,
  },
  // A function that crashed or answered in the wrong form: API Gateway's 502.
  {
    responseType: 'DEFAULT_5XX',
    code: '50201',
    developerMessage: `${errorCatalogue['50201'].developerMessage}${requestIdNote}`,
  },
];

export const gatewayErrorOf = (responseType: string): GatewayError => {
  const error = gatewayErrors.find((candidate) => candidate.responseType === responseType);
  if (!error) throw new Error(`No gateway error for ${responseType}`);
  return error;
};

/** The headers of a gateway response: JSON, `Vary: Accept`, the CORS headers of every response, then its own. */
export const gatewayErrorHeaders = (error: GatewayError): Record<string, string> => ({
  'Content-Type': 'application/json; charset=utf-8',
  Vary: 'Accept',
  ...corsResponseHeaders,
  ...error.headers,
});

/**
 * The API's error object of a gateway response; `baseUrl` is `{base_url}`. The deployed API's
 * template leaves `$context` variables in it for API Gateway to fill; the local server fills them.
 */
export const gatewayErrorObject = (error: GatewayError, baseUrl: string) =>
  errorObject(error.code, error.developerMessage, baseUrl);
