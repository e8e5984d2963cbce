/**
 * Every error the API can answer with, in one place. The code drives the thrown errors, the
 * rendered error object, the documentation pages and the OpenAPI document. A code starts with
 * its HTTP status; each distinct cause has its own code.
 */
export interface ErrorEntry {
  readonly status: number;
  readonly title: string;
  /** A default `developerMessage`; thrown errors usually replace it with a specific one. */
  readonly developerMessage: string;
  readonly userMessage: string;
  /** Why this happens, for the documentation page. */
  readonly cause: string;
  /** How to fix it, for the documentation page. */
  readonly fix: string;
}

export const errorCatalogue = {
  '40001': {
    status: 400,
    title: 'Invalid field in the request body',
    developerMessage: 'A field of the request body has a value that is not allowed.',
    userMessage: 'Some of the information sent is not valid.',
    cause: 'A field of the JSON body is missing, has the wrong type, or is out of its allowed range or form.',
    fix: 'Read `developerMessage`: it names the field and what it accepts. Correct that field and send the request again.',
  },
  '40002': {
    status: 400,
    title: 'Unknown field in the request body',
    developerMessage: 'The request body has a field this resource does not have.',
    userMessage: 'Some of the information sent is not valid.',
    cause: 'The body carries a field that is not part of the resource. The API refuses it rather than ignore it, so that a misspelt field is never silently dropped.',
    fix: 'Remove the field named in `developerMessage`, or correct its spelling.',
  },
  '40003': {
    status: 400,
    title: 'Malformed JSON',
    developerMessage: 'The request body is not well-formed JSON.',
    userMessage: 'The request could not be read.',
    cause: 'The body could not be parsed as JSON.',
    fix: 'Send a well-formed JSON document (check quotes, commas and brackets).',
  },
  '40004': {
    status: 400,
    title: 'Invalid query parameter',
    developerMessage: 'A query parameter has a value that is not allowed.',
    userMessage: 'The request is not valid.',
    cause: 'A query parameter such as `offset`, `limit`, `year`, `sort` or `tag` has a value of the wrong form or out of range.',
    fix: 'Read `developerMessage`: it names the parameter and the values it accepts.',
  },
  '40005': {
    status: 400,
    title: 'Invalid mock parameter',
    developerMessage: 'The `mock` query parameter accepts `True`, `1` or no value to turn mock data on, and `False` or `0` to turn it off.',
    userMessage: 'The request is not valid.',
    cause: 'The `mock` parameter has a value other than true/1/empty or false/0.',
    fix: 'Send `mock=True` (or `mock`, `mock=1`) for simulated data, or leave the parameter out.',
  },
  '40006': {
    status: 400,
    title: 'Mock data is not available here',
    developerMessage: 'The `mock` parameter is only available on the testing server; this deployment serves real data only.',
    userMessage: 'The request is not valid.',
    cause: 'The request asked for simulated data on a deployment where mock mode is turned off (production stages).',
    fix: 'Leave out the `mock` parameter, or send the request to the testing server.',
  },
  '40007': {
    status: 400,
    title: 'Identifier does not match the path',
    developerMessage: 'The `id` in the body differs from the `{id}` in the path.',
    userMessage: 'The request is not valid.',
    cause: 'PUT /magazines/{id} was sent a body whose `id` names another magazine.',
    fix: 'Leave `id` out of the body, or make it equal to the identifier in the path.',
  },
  '40008': {
    status: 400,
    title: 'Duplicate magazine identifier',
    developerMessage: 'Two elements of the array have the same `id`.',
    userMessage: 'The request is not valid.',
    cause: 'PUT /magazines was sent an array in which two magazines share one identifier.',
    fix: 'Give every magazine of the array its own `id`.',
  },
  '40009': {
    status: 400,
    title: 'Duplicate tag',
    developerMessage: 'Two tags of the magazine have the same `id`.',
    userMessage: 'The request is not valid.',
    cause: 'Two tags have the same identifier, given explicitly or derived from their names.',
    fix: 'Remove the duplicate tag, or give the tags different identifiers.',
  },
  '40010': {
    status: 400,
    title: 'Tag identifier cannot be derived',
    developerMessage: 'A tag has no `id` and its `name` leaves nothing to derive one from.',
    userMessage: 'The request is not valid.',
    cause: 'A tag identifier is derived from the name by removing accents, lower-casing and keeping `a-z` and `0-9`; this name has none of those characters.',
    fix: 'Give the tag an explicit `id` (letters, digits, `_` and `-`).',
  },
  '40011': {
    status: 400,
    title: 'Request body is missing',
    developerMessage: 'This operation needs a JSON request body.',
    userMessage: 'The request is not valid.',
    cause: 'The request had no body, or an empty one.',
    fix: 'Send the JSON body described in the API reference.',
  },
  '40301': {
    status: 403,
    title: 'Request not authorised',
    developerMessage: 'Writing operations (POST, PUT, DELETE) need a request signed with AWS Signature Version 4 by a principal allowed to publish.',
    userMessage: 'You are not allowed to do this.',
    cause: 'The request had no valid AWS SigV4 signature, or the signing principal is not allowed to invoke this method.',
    fix: 'Sign the request with credentials that have the publisher policy this stack outputs (for example `curl --aws-sigv4 "aws:amz:REGION:execute-api"`).',
  },
  '40401': {
    status: 404,
    title: 'No such resource',
    developerMessage: 'No resource exists at this path.',
    userMessage: 'The page you asked for does not exist.',
    cause: 'The path names no resource of this API.',
    fix: 'Check the path against the API reference; resources are plural nouns such as `/magazines`.',
  },
  '40402': {
    status: 404,
    title: 'Magazine not found',
    developerMessage: 'No magazine has this identifier.',
    userMessage: 'This magazine does not exist.',
    cause: 'The `{id}` in the path names no magazine; it may have been deleted.',
    fix: 'List the magazines with GET /magazines to find the right identifier.',
  },
  '40403': {
    status: 404,
    title: 'Article not found',
    developerMessage: 'No article has this identifier.',
    userMessage: 'This article does not exist.',
    cause: 'The `{articleId}` in the path names no article; it may have been deleted with its magazine.',
    fix: 'List the articles of a magazine with GET /magazines/{id}/articles to find the right identifier.',
  },
  '40404': {
    status: 404,
    title: 'Tag not found',
    developerMessage: 'No magazine carries a tag with this identifier.',
    userMessage: 'This tag does not exist.',
    cause: 'The `{tagId}` in the path names no tag in use.',
    fix: 'List the tags with GET /tags to find the right identifier.',
  },
  '40405': {
    status: 404,
    title: 'Error code not documented',
    developerMessage: 'No error of this API has this code.',
    userMessage: 'The page you asked for does not exist.',
    cause: 'The documentation page asked for names no error code of the catalogue.',
    fix: 'See /v1/documentation/errors/ for the list of every error code.',
  },
  '40406': {
    status: 404,
    title: 'Unknown API version',
    developerMessage: 'This API version does not exist. The versions that exist are: v1 (also reachable without a version segment, as the latest).',
    userMessage: 'The page you asked for does not exist.',
    cause: 'The path carries a version segment such as `/v2` or `/api/v7` that this API does not serve.',
    fix: 'Use `/v1`, `/api/v1`, or no version segment for the latest version.',
  },
  '40501': {
    status: 405,
    title: 'Method not allowed',
    developerMessage: 'This resource does not support this HTTP method.',
    userMessage: 'This action is not possible here.',
    cause: 'The path exists, but not with this method.',
    fix: 'Use one of the methods listed in the `Allow` response header.',
  },
  '40502': {
    status: 405,
    title: 'Magazine already exists',
    developerMessage: 'A magazine with this identifier exists already; nothing was created.',
    userMessage: 'This magazine exists already.',
    cause: 'POST /magazines was sent an `id` that another magazine has.',
    fix: 'Leave out `id` to let the server choose one, pick another identifier, or replace the magazine with PUT /magazines/{id}.',
  },
  '40601': {
    status: 406,
    title: 'Format not available',
    developerMessage: 'The requested format is not available; this API serves JSON and XML.',
    userMessage: 'The request is not valid.',
    cause: 'The path label, the `format` parameter or the `Accept` header asked for a format other than JSON or XML.',
    fix: 'Use the label `.json` or `.xml`, `format=json` or `format=xml`, or an `Accept` header that admits `application/json`, `text/javascript` or `application/xml`.',
  },
  '40901': {
    status: 409,
    title: 'Concurrent change',
    developerMessage: 'The data changed while the request was being carried out; some changes may not have been made.',
    userMessage: 'Somebody else changed this at the same time. Please try again.',
    cause: 'Another request changed the same magazines while this one was running, more often than it could retry.',
    fix: 'Send the request again; read the current state first if it depends on it.',
  },
  '41201': {
    status: 412,
    title: 'Precondition failed',
    developerMessage: 'The `If-Match` header does not match the current version of the resource; nothing was changed.',
    userMessage: 'This was changed by somebody else in the meantime.',
    cause: 'The resource changed (or was deleted) since the client read the `ETag` it sent in `If-Match`.',
    fix: 'GET the resource again, reapply your change to the new version and send it with the new `ETag`.',
  },
  '41301': {
    status: 413,
    title: 'Request body too large',
    developerMessage: 'The request body is larger than 1 MiB.',
    userMessage: 'What you sent is too large.',
    cause: 'The body exceeds the 1 MiB limit of this API.',
    fix: 'Send a smaller body; replace large collections in several requests with PUT /magazines/{id}.',
  },
  '41501': {
    status: 415,
    title: 'Unsupported media type',
    developerMessage: 'The request body must be JSON (`Content-Type: application/json`).',
    userMessage: 'The request could not be read.',
    cause: 'The `Content-Type` of the request is not a JSON media type.',
    fix: 'Send the body as JSON with `Content-Type: application/json` (or `text/javascript`, or `application/*+json`).',
  },
  '42901': {
    status: 429,
    title: 'Too many requests',
    developerMessage: 'The request rate is above the limit of this API.',
    userMessage: 'Too many requests. Please wait a moment and try again.',
    cause: 'The client, or all clients together, sent more requests than the stage allows.',
    fix: 'Retry later with exponential backoff.',
  },
  '50001': {
    status: 500,
    title: 'Internal error',
    developerMessage: 'Something failed on the server while handling the request.',
    userMessage: 'Something went wrong on our side. Please try again later.',
    cause: 'An unexpected failure in the service.',
    fix: 'Retry later. If it persists, report the request id given in `developerMessage`.',
  },
  '50201': {
    status: 502,
    title: 'Bad gateway',
    developerMessage: 'The API gateway received an invalid answer from the service.',
    userMessage: 'Something went wrong on our side. Please try again later.',
    cause: 'The function behind this operation failed or answered in an unexpected form.',
    fix: 'Retry later. If it persists, report the time and path of the request.',
  },
  '50301': {
    status: 503,
    title: 'Service unavailable',
    developerMessage: 'The data store is busy; the request was not carried out.',
    userMessage: 'The service is busy. Please try again in a moment.',
    cause: 'The database throttled the request, even after retries.',
    fix: 'Retry after the number of seconds in the `Retry-After` header.',
  },
  '50401': {
    status: 504,
    title: 'Gateway timeout',
    developerMessage: 'The service did not answer in time.',
    userMessage: 'The service took too long to answer. Please try again.',
    cause: 'The operation took longer than the gateway allows (29 seconds).',
    fix: 'Retry later; split large bulk operations into smaller requests.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(errorCatalogue, code);
