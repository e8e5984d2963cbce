import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { errorCatalogue, type ErrorCode } from '../shared/http/error-catalogue';

/**
 * API Gateway answers some requests itself (no route, no signature, throttled, too large, the
 * function failed or timed out). Each of those answers is rewritten here into the spec's error
 * object, with the headers every response of the API carries.
 */
export interface GatewayError {
  readonly type: ResponseType;
  /** Also sets the status: the code's, whatever status API Gateway would have used. */
  readonly code: ErrorCode;
  /** Replaces the catalogue's message where API Gateway's cause is narrower or wider. */
  readonly developerMessage?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const requestIdNote = ' The request id is $context.requestId; quote it if this persists.';

/**
 * The API has no API keys, usage plans, authorizers or WAF, so their responses (INVALID_API_KEY,
 * QUOTA_EXCEEDED, UNAUTHORIZED, AUTHORIZER_*, WAF_FILTERED) cannot occur; were one added, the
 * DEFAULT_4XX/5XX entries below would still render the error object. (Each entry is a
 * CloudFormation resource, and this stack is near the 500-resource limit.)
 */
export const gatewayErrors: readonly GatewayError[] = [
  // Every route of the API exists (a `/{proxy+}` catches the rest), so API Gateway's "missing
  // authentication token" only ever means an unsigned request to a write method.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, code: '40301' },
  { type: ResponseType.ACCESS_DENIED, code: '40301' },
  { type: ResponseType.INVALID_SIGNATURE, code: '40301', developerMessage: 'The AWS Signature Version 4 of the request does not match; sign the exact method, path, query and body sent, with the current time.' },
  { type: ResponseType.EXPIRED_TOKEN, code: '40301', developerMessage: 'The credentials or signature of the request have expired; sign it again with fresh credentials.' },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: '40401' },
  { type: ResponseType.THROTTLED, code: '42901', headers: { 'Retry-After': '1' } },
  { type: ResponseType.REQUEST_TOO_LARGE, code: '41301', developerMessage: 'The request is larger than API Gateway accepts (10 MB); this API accepts request bodies up to 1 MiB.' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: '41501' },
  { type: ResponseType.BAD_REQUEST_BODY, code: '40001', developerMessage: 'The request body could not be accepted.' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, code: '40004', developerMessage: 'A required parameter or header of the request is missing or not valid.' },
  // Anything else API Gateway refuses (a malformed path or header, …).
  { type: ResponseType.DEFAULT_4XX, code: '40004', developerMessage: 'The request was refused before it reached the service: its path, query or headers are not valid.' },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: '50401', developerMessage: `${errorCatalogue['50401'].developerMessage}${requestIdNote}` },
  { type: ResponseType.INTEGRATION_FAILURE, code: '50201', developerMessage: `${errorCatalogue['50201'].developerMessage}${requestIdNote}` },
  { type: ResponseType.API_CONFIGURATION_ERROR, code: '50001', developerMessage: `${errorCatalogue['50001'].developerMessage}${requestIdNote}` },
  // A function that crashed or answered in the wrong form: API Gateway's 502.
  { type: ResponseType.DEFAULT_5XX, code: '50201', developerMessage: `${errorCatalogue['50201'].developerMessage}${requestIdNote}` },
];

/** Header values in gateway responses are static strings, written in single quotes. */
const quoted = (value: string) => `'${value}'`;

/**
 * `{base_url}` is the fixed base URL when one is configured, else the domain and stage the request
 * came in on (never the `Host` header).
 */
export const moreInfoUrl = (code: ErrorCode, baseUrl: string | undefined) =>
  `${baseUrl ?? 'https://$context.domainName/$context.stage'}/v1/documentation/errors/${code}.html`;

/** The body template: a JSON object with `$context` variables, and no other template syntax. */
export const errorTemplate = (error: GatewayError, baseUrl: string | undefined) =>
  JSON.stringify({
    developerMessage: error.developerMessage ?? errorCatalogue[error.code].developerMessage,
    userMessage: errorCatalogue[error.code].userMessage,
    errorCode: error.code,
    moreInfo: moreInfoUrl(error.code, baseUrl),
  });

export const addGatewayResponses = (api: RestApi, baseUrl: string | undefined) => {
  for (const error of gatewayErrors) {
    api.addGatewayResponse(`GatewayResponse${error.type.responseType}`, {
      type: error.type,
      statusCode: String(errorCatalogue[error.code].status),
      responseHeaders: Object.fromEntries(
        Object.entries({
          'Content-Type': 'application/json; charset=utf-8',
          Vary: 'Accept',
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Expose-Headers': 'Retry-After',
          ...error.headers,
        }).map(([name, value]) => [name, quoted(value)]),
      ),
      templates: { 'application/json': errorTemplate(error, baseUrl) },
    });
  }
};
