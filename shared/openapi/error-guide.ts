import type { ErrorCode } from '../http/error-catalogue';
import { ADMISSION_WAIT_MS } from '../timing';

/**
 * The documentation of each error code: the OpenAPI text and the pages at /v1/documentation/errors.
 * Here with the document, which shared/docs renders, so that the two folders do not import each other.
 */
interface ErrorGuideEntry {
  readonly title: string;
  /** Why this happens. */
  readonly cause: string;
  /** How to fix it. */
  readonly fix: string;
}

export const errorGuide: Readonly<Record<ErrorCode, ErrorGuideEntry>> = {
  '40001': {
    title: 'Invalid field in the request body',
    cause: 'A field of the JSON body is missing, has the wrong type, or is out of its allowed range or form.',
    fix: 'Read `developerMessage`: it names the field and what it accepts. Correct that field and send the request again.',
  },
  '40002': {
    title: 'Unknown field in the request body',
    cause:
      'The body carries a field that is not part of the resource. The API refuses it rather than ignore it, so that a misspelt field is never silently dropped.',
    fix: 'Remove the field named in `developerMessage`, or correct its spelling.',
  },
  '40003': {
    title: 'Malformed JSON',
    cause: 'The body could not be parsed as JSON.',
    fix: 'Send a well-formed JSON document (check quotes, commas and brackets).',
  },
  '40004': {
    title: 'Invalid query parameter',
    cause:
      'A query parameter such as `offset`, `limit`, `year`, `sort` or `tag` has a value of the wrong form or out of range.',
    fix: 'Read `developerMessage`: it names the parameter and the values it accepts.',
  },
  '40005': {
    title: 'Invalid mock parameter',
    cause: 'The `mock` parameter has a value other than true/1/empty or false/0.',
    fix: 'Send `mock=True` (or `mock`, `mock=1`) for simulated data, or leave the parameter out.',
  },
  '40006': {
    title: 'Mock data is not available here',
    cause: 'The request asked for simulated data on a deployment where mock mode is turned off (production stages).',
    fix: 'Leave out the `mock` parameter, or send the request to the testing server.',
  },
  '40007': {
    title: 'Identifier does not match the path',
    cause: 'PUT /magazines/{id} was sent a body whose `id` names another magazine.',
    fix: 'Leave `id` out of the body, or make it equal to the identifier in the path.',
  },
  '40008': {
    title: 'Duplicate magazine identifier',
    cause: 'PUT /magazines was sent an array in which two magazines share one identifier.',
    fix: 'Give every magazine of the array its own `id`.',
  },
  '40009': {
    title: 'Duplicate tag',
    cause: 'Two tags have the same identifier, given explicitly or derived from their names.',
    fix: 'Remove the duplicate tag, or give the tags different identifiers.',
  },
  '40010': {
    title: 'Tag identifier cannot be derived',
    cause:
      'A tag identifier is derived from the name by removing accents, lower-casing and keeping `a-z` and `0-9`; this name has none of those characters.',
    fix: 'Give the tag an explicit `id` (letters, digits, `_` and `-`).',
  },
  '40011': {
    title: 'Request body is missing',
    cause: 'The request had no body, or an empty one.',
    fix: 'Send the JSON body described in the API reference.',
  },
  '40012': {
    title: 'Request refused by the gateway',
    cause:
      'API Gateway refused the request before any function saw it, for a reason no more specific code covers (for example a malformed header).',
    fix: 'Check the request line and headers against the API reference; `developerMessage` says what the gateway objected to where it can.',
  },
  '40013': {
    title: 'Invalid identifier in the path',
    cause:
      'PUT /magazines/{id} creates the magazine when it does not exist, so its `{id}` must be a valid magazine identifier: 1 to 64 letters, digits, `_` or `-`, starting with a letter or digit. `PUT` or `DELETE /magazines/` names an empty one.',
    fix: 'Choose an identifier of that form for the path; for the whole collection, drop the trailing `/`.',
  },
  '40014': {
    title: 'Invalid Idempotency-Key',
    cause:
      'The `Idempotency-Key` header is empty, longer than 255 characters, or holds characters other than printable ASCII.',
    fix: 'Send a key of 1 to 255 printable ASCII characters, such as a UUID, chosen anew for each new request.',
  },
  '40015': {
    title: 'Text is not valid Unicode',
    cause:
      'A string in the request holds an unpaired UTF-16 surrogate: a code unit from U+D800 to U+DFFF without its partner, such as the JSON escape `\\udfff` alone, or `\\ud83d` without the `\\ude00` that makes it an emoji. Such a string is not Unicode text and cannot be stored as UTF-8. The API checks every string it takes: body fields and field names, path segments, the query parameters the operation reads (`mock` and `format` included), and the headers it reads (`Accept`, `Content-Type`, `Content-Encoding`, `If-Match`, `If-None-Match`, `If-Modified-Since`, `If-Unmodified-Since`, `Idempotency-Key`). Nothing is written.',
    fix: 'Read `developerMessage`: it names the field, parameter or header. Send that text as valid Unicode: a character beyond U+FFFF goes as itself or as both halves of its pair (`\\ud83d\\ude00` for 😀), and text cut to a length must not be cut between the two.',
  },
  '40301': {
    title: 'Request not authorised',
    cause:
      'The request had no valid AWS SigV4 signature, or the signing principal is not allowed to invoke this method.',
    fix: 'Sign the request with credentials that have the publisher policy this stack outputs (for example `curl --aws-sigv4 "aws:amz:REGION:execute-api"`).',
  },
  '40302': {
    title: 'API key missing or not valid',
    cause:
      'This deployment gives each client an API key and requires it on every path but the documentation pages and `/openapi.json`. The request carried no `x-api-key` header, or a key this deployment does not know, or one that was revoked or suspended.',
    fix: 'Send your key in the `x-api-key` header of every request. If you have none, or yours stopped working, ask the operator of the API for one; the documentation and `/openapi.json` need no key.',
  },
  '40303': {
    title: 'Blocked by the firewall',
    cause:
      'A web application firewall stands in front of the API. It blocks requests whose path, query or headers match known attack patterns (such as a script in a query value), and any address that sends more requests in five minutes than it allows. A body is never blocked for its text.',
    fix: 'If you sent many requests, slow down and try again after a few minutes. If a normal request is blocked, report the time, path and the `developerMessage` to the operator of the API.',
  },
  '40401': {
    title: 'No such resource',
    cause: 'The path names no resource of this API.',
    fix: 'Check the path against the API reference; resources are plural nouns such as `/magazines`.',
  },
  '40402': {
    title: 'Magazine not found',
    cause: 'The `{id}` in the path names no magazine; it may have been deleted.',
    fix: 'List the magazines with GET /magazines to find the right identifier.',
  },
  '40403': {
    title: 'Article not found',
    cause: 'The `{articleId}` in the path names no article; it may have been deleted with its magazine.',
    fix: 'List the articles of a magazine with GET /magazines/{id}/articles to find the right identifier.',
  },
  '40404': {
    title: 'Tag not found',
    cause: 'The `{tagId}` in the path names no tag in use.',
    fix: 'List the tags with GET /tags to find the right identifier.',
  },
  '40405': {
    title: 'Error code not documented',
    cause: 'The documentation page asked for names no error code of the catalogue.',
    fix: 'See /v1/documentation/errors/ for the list of every error code.',
  },
  '40406': {
    title: 'Unknown API version',
    cause: 'The path carries a version segment such as `/v2` or `/api/v7` that this API does not serve.',
    fix: 'Use `/v1`, `/api/v1`, or no version segment for the latest version.',
  },
  '40501': {
    title: 'Method not allowed',
    cause: 'The path exists, but not with this method.',
    fix: 'Use one of the methods listed in the `Allow` response header.',
  },
  '40502': {
    title: 'Magazine already exists',
    cause: 'POST /magazines was sent an `id` that another magazine has.',
    fix: 'Leave out `id` to let the server choose one, pick another identifier, or replace the magazine with PUT /magazines/{id}.',
  },
  '40601': {
    title: 'Format not available',
    cause: 'The path label, the `format` parameter or the `Accept` header asked for a format other than JSON or XML.',
    fix: 'Use the label `.json` or `.xml`, `format=json` or `format=xml`, or an `Accept` header that admits `application/json`, `text/javascript` or `application/xml`.',
  },
  '40901': {
    title: 'Request still in progress',
    cause:
      'A POST carried an `Idempotency-Key` that another request, still running, carries too. The API does one of them; this one did nothing.',
    fix: 'Wait for the first request to answer (a second or so; `Retry-After` says when), then send this one again: it gets the first one’s answer.',
  },
  '41201': {
    title: 'Precondition failed',
    cause:
      'The resource changed (or was deleted) since the client read the `ETag` it sent in `If-Match`, or after the date in `If-Unmodified-Since`; or, under `If-None-Match`, it exists (`*`) or is the version named.',
    fix: 'GET the resource again, reapply your change to the new version and send it with the new `ETag`; to create only, send another id.',
  },
  '41301': {
    title: 'Request body too large',
    cause: 'The body exceeds the 1 MiB limit of this API.',
    fix: 'Send a smaller body; replace large collections in several requests with PUT /magazines/{id}.',
  },
  '41501': {
    title: 'Unsupported media type',
    cause: 'The `Content-Type` of the request is not a JSON media type, or names a charset other than UTF-8.',
    fix: 'Send the body as UTF-8 JSON with `Content-Type: application/json` (or `text/javascript`, or `application/*+json`).',
  },
  '41502': {
    title: 'Content coding not accepted',
    cause:
      'The request body was sent with a `Content-Encoding` other than `gzip`, `deflate` or `identity` (such as `br`), or did not decode with the one it named.',
    fix: 'Send the JSON as it is, or compressed with `gzip` or `deflate` and the matching `Content-Encoding`.',
  },
  '42201': {
    title: 'Idempotency-Key reused',
    cause:
      'A POST carried an `Idempotency-Key` that an earlier request (within the last 25 hours) carried with a different body, or to another magazine’s articles. A key stands for one request of one operation only.',
    fix: 'Choose a new key for a new request; send the same key only to retry the very same request.',
  },
  '42901': {
    title: 'Too many requests',
    cause:
      "The client sent more requests per second than its API key's plan allows (a steady rate, with bursts above it), or all clients together sent more than the stage allows.",
    fix: 'Wait the seconds that `Retry-After` gives, then retry with exponential backoff; spread requests out, or ask for a plan with a higher rate.',
  },
  '42902': {
    title: 'Daily quota used up',
    cause:
      'The API key has made as many requests today as its plan allows in a day. The count starts again at midnight UTC.',
    fix: 'Wait until midnight UTC (`Retry-After` gives a time to try again), or ask the operator of the API for a plan with a larger quota.',
  },
  '50001': {
    title: 'Internal error',
    cause: 'An unexpected failure in the service.',
    fix: 'Retry later. If it persists, report the request id given in `developerMessage`.',
  },
  '50201': {
    title: 'Bad gateway',
    cause: 'The function behind this operation failed or answered in an unexpected form.',
    fix: 'Retry later. If it persists, report the time and path of the request.',
  },
  '50301': {
    title: 'Service unavailable',
    cause:
      'The data store could not do it now: it throttled the request or failed even after retries, or a bulk write holds the collection.',
    fix: 'Retry after the number of seconds in the `Retry-After` header.',
  },
  '50302': {
    title: 'Tags arriving too fast',
    cause: `The request puts on a magazine a tag it did not carry while the counts of many distinct tags change at once (new tags at about a hundred a second and more), faster than the tag counts take them in. Such a write waits up to ${ADMISSION_WAIT_MS / 1000} seconds for them to catch up, then gives up; nothing was written.`,
    fix: 'Retry after the number of seconds in the `Retry-After` header. Writes that bring no new tag to a magazine are not held back.',
  },
  '50303': {
    title: 'Write not confirmed',
    cause:
      'The data store took the write but its answer did not come back before the request had to answer, and the service could not look whether it was made.',
    fix: 'Send a PUT or DELETE again as it is: it ends the same. Send a POST again with the same `Idempotency-Key` (it answers as the first one did if that was made), or, without a key, read first whether it was made.',
  },
  '50401': {
    title: 'Gateway timeout',
    cause: 'The operation took longer than the gateway allows (29 seconds).',
    fix: 'Retry later; split large bulk operations into smaller requests.',
  },
};
