/**
 * Every error the API can answer with, in one place: the codes the handlers throw and the
 * gateway renders. A code starts with its HTTP status; each distinct cause has its own code.
 * What each error means for a reader (title, cause, fix) is in shared/openapi/error-guide.ts,
 * keyed by the same codes, so that the functions do not carry the documentation in their bundles.
 */
interface ErrorEntry {
  readonly status: number;
  /** A default `developerMessage`; thrown errors usually replace it with a specific one. */
  readonly developerMessage: string;
  readonly userMessage: string;
}

/** The user messages several codes give, each written once (every function carries the catalogue). */
const NOT_VALID = 'The request is not valid.';
const UNREADABLE = 'The request could not be read.';
const NO_PAGE = 'The page you asked for does not exist.';
const NOT_ALLOWED = 'You are not allowed to do this.';
const BUSY = 'The service is busy. Please try again in a moment.';
const OUR_SIDE = 'Something went wrong on our side. Please try again later.';
const SOME_INVALID = 'Some of the information sent is not valid.';

/** The codes the functions answer with. */
export const functionErrors = {
  '40001': {
    status: 400,
    developerMessage: 'A field of the request body has a value that is not allowed.',
    userMessage: SOME_INVALID,
  },
  '40002': {
    status: 400,
    developerMessage: 'The request body has a field this resource does not have.',
    userMessage: SOME_INVALID,
  },
  '40003': {
    status: 400,
    developerMessage: 'The request body is not well-formed JSON.',
    userMessage: UNREADABLE,
  },
  '40004': {
    status: 400,
    developerMessage: 'A query parameter has a value that is not allowed.',
    userMessage: NOT_VALID,
  },
  '40005': {
    status: 400,
    developerMessage:
      'The `mock` query parameter accepts `True`, `1` or no value to turn mock data on, and `False` or `0` to turn it off.',
    userMessage: NOT_VALID,
  },
  '40006': {
    status: 400,
    developerMessage:
      'The `mock` parameter is only available on the testing server; this deployment serves real data only.',
    userMessage: NOT_VALID,
  },
  '40007': {
    status: 400,
    developerMessage: 'The `id` in the body differs from the `{id}` in the path.',
    userMessage: NOT_VALID,
  },
  '40008': {
    status: 400,
    developerMessage: 'Two elements of the array have the same `id`.',
    userMessage: NOT_VALID,
  },
  '40009': {
    status: 400,
    developerMessage: 'Two tags of the magazine have the same `id`.',
    userMessage: NOT_VALID,
  },
  '40010': {
    status: 400,
    developerMessage: 'A tag has no `id` and its `name` leaves nothing to derive one from.',
    userMessage: NOT_VALID,
  },
  '40011': {
    status: 400,
    developerMessage: 'This operation needs a JSON request body.',
    userMessage: NOT_VALID,
  },
  '40014': {
    status: 400,
    developerMessage: 'The `Idempotency-Key` header must be 1 to 255 printable ASCII characters.',
    userMessage: NOT_VALID,
  },
  '40013': {
    status: 400,
    developerMessage: 'An identifier in the path is not of the form this API accepts.',
    userMessage: NOT_VALID,
  },
  '40015': {
    status: 400,
    developerMessage:
      'Text in the request holds an unpaired UTF-16 surrogate; every string the API takes must be valid Unicode text.',
    userMessage: 'Some of the text sent is not valid.',
  },
  '40401': {
    status: 404,
    developerMessage: 'No resource exists at this path.',
    userMessage: NO_PAGE,
  },
  '40402': {
    status: 404,
    developerMessage: 'No magazine has this identifier.',
    userMessage: 'This magazine does not exist.',
  },
  '40403': {
    status: 404,
    developerMessage: 'No article has this identifier.',
    userMessage: 'This article does not exist.',
  },
  '40404': {
    status: 404,
    developerMessage: 'No magazine carries a tag with this identifier.',
    userMessage: 'This tag does not exist.',
  },
  '40405': {
    status: 404,
    developerMessage: 'No error of this API has this code.',
    userMessage: NO_PAGE,
  },
  '40406': {
    status: 404,
    developerMessage:
      'This API version does not exist. The versions that exist are: v1 (also reachable without a version segment, as the latest).',
    userMessage: NO_PAGE,
  },
  '40501': {
    status: 405,
    developerMessage: 'This resource does not support this HTTP method.',
    userMessage: 'This action is not possible here.',
  },
  '40502': {
    status: 405,
    developerMessage: 'A magazine with this identifier exists already; nothing was created.',
    userMessage: 'This magazine exists already.',
  },
  '40601': {
    status: 406,
    developerMessage: 'The requested format is not available; this API serves JSON and XML.',
    userMessage: NOT_VALID,
  },
  '40901': {
    status: 409,
    developerMessage:
      'A request with the same `Idempotency-Key` is still being carried out; nothing was done for this one. Send it again once the first has answered.',
    userMessage: 'This is already being done. Please wait a moment.',
  },
  '41201': {
    status: 412,
    developerMessage: 'The `If-Match` header does not match the current version of the resource; nothing was changed.',
    userMessage: 'This was changed by somebody else in the meantime.',
  },
  '41301': {
    status: 413,
    developerMessage: 'The request body is larger than 1 MiB.',
    userMessage: 'What you sent is too large.',
  },
  '41501': {
    status: 415,
    developerMessage: 'The request body must be JSON (`Content-Type: application/json`).',
    userMessage: UNREADABLE,
  },
  '41502': {
    status: 415,
    developerMessage:
      'The request body must be sent as it is or compressed with `gzip` or `deflate` (`Content-Encoding`), and must decode with the coding named.',
    userMessage: UNREADABLE,
  },
  '42201': {
    status: 422,
    developerMessage:
      'This `Idempotency-Key` was used before with a different request; nothing was done. Use a new key for a new request.',
    userMessage: NOT_VALID,
  },
  '50001': {
    status: 500,
    developerMessage: 'Something failed on the server while handling the request.',
    userMessage: OUR_SIDE,
  },
  '50301': {
    status: 503,
    developerMessage: 'The data store is busy; the request was not carried out.',
    userMessage: BUSY,
  },
  '50302': {
    status: 503,
    developerMessage:
      'New tags are arriving faster than the tag counts take them in; the magazine was not written. Retry after the seconds in `Retry-After`.',
    userMessage: BUSY,
  },
  '50303': {
    status: 503,
    developerMessage:
      'The data store did not confirm the write in time: it may have been made. A PUT or DELETE may be sent again; a POST with its `Idempotency-Key`.',
    userMessage: 'The service could not confirm the change. Please check it before trying again.',
  },
} as const satisfies Record<string, ErrorEntry>;

/**
 * The codes only API Gateway answers with, in its gateway responses (shared/http/gateway-errors.ts):
 * kept apart, so that no function's bundle carries their text.
 */
const gatewayOnlyErrors = {
  '40012': {
    status: 400,
    developerMessage:
      'The request was refused before it reached the service: its path, query or headers are not valid.',
    userMessage: NOT_VALID,
  },
  '40301': {
    status: 403,
    developerMessage:
      'Writing operations (POST, PUT, DELETE) need a request signed with AWS Signature Version 4 by a principal allowed to publish.',
    userMessage: NOT_ALLOWED,
  },
  '40302': {
    status: 403,
    developerMessage:
      'This deployment requires an API key: send the key you were issued in the `x-api-key` header. The key sent was missing, unknown or revoked.',
    userMessage: NOT_ALLOWED,
  },
  '40303': {
    status: 403,
    developerMessage:
      "The request was blocked by the API's web application firewall: its content matched a rule against known attacks, or its address sent too many requests.",
    userMessage: 'This request was blocked.',
  },
  '42901': {
    status: 429,
    developerMessage: 'The request rate is above the limit of this API.',
    userMessage: 'Too many requests. Please wait a moment and try again.',
  },
  '42902': {
    status: 429,
    developerMessage:
      "The API key has used its plan's quota of requests for today (UTC); the quota resets at midnight UTC.",
    userMessage: 'The daily limit of requests has been reached. Please try again tomorrow.',
  },
  '50201': {
    status: 502,
    developerMessage: 'The API gateway received an invalid answer from the service.',
    userMessage: OUR_SIDE,
  },
  '50401': {
    status: 504,
    developerMessage: 'The service did not answer in time.',
    userMessage: 'The service took too long to answer. Please try again.',
  },
} as const satisfies Record<string, ErrorEntry>;

// Marked pure, as `errorCodes` below: a bundle that reads neither drops the gateway's part.
export const errorCatalogue = /* @__PURE__ */ Object.assign({}, functionErrors, gatewayOnlyErrors);

export type ErrorCode = keyof typeof errorCatalogue;
/** A code a function answers with. */
export type FunctionErrorCode = keyof typeof functionErrors;

export const errorCodes = /* @__PURE__ */ Object.keys(errorCatalogue) as ErrorCode[];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(errorCatalogue, code);

/** The statuses whose errors say when to try again, in `Retry-After`: a conflict still running, a limit, the store. */
export const carriesRetryAfter = (status: number) => status === 409 || status === 429 || status === 503;
