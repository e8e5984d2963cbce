import { createHash } from 'node:crypto';
import { type Precondition, unmetCondition } from '../domain/store';
import { parseHttpDate } from './http-date';
import type { Format } from './negotiation';

/**
 * Caching and concurrency. A single resource's ETag is its stored revision plus
 * the format, so `If-Match` on a write can be checked by a conditional write on the revision
 * without reading the representation; a list's ETag is a hash of the bytes sent.
 */
export const etagOf = (format: Format, body: string, revision?: string): string =>
  revision ? `"${revision}-${format}"` : `"${createHash('sha1').update(body).digest('base64url')}"`;

/** The entity tags of a header; `strong` drops weak ones, which never match under strong comparison (RFC 9110 §8.8.3.2). */
const entityTags = (header: string, strong = false) =>
  header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag && !(strong && tag.startsWith('W/')))
    .map((tag) => tag.replace(/^W\//, ''));

/** The date last written: a collection or a magazine keeps its `Last-Modified` over many requests. */
let lastDate = { seconds: Number.NaN, text: '' };

const httpDate = (seconds: number) => {
  if (lastDate.seconds !== seconds) lastDate = { seconds, text: new Date(seconds * 1000).toUTCString() };
  return lastDate.text;
};

export const lastModifiedHeader = (seconds: number | undefined): Record<string, string> =>
  seconds === undefined ? {} : { 'Last-Modified': httpDate(seconds) };

/** RFC 9110 §13.2.2: `If-None-Match` wins over `If-Modified-Since`. */
export const isNotModified = (
  headers: Readonly<Record<string, string | undefined>>,
  etag: string,
  lastModified: number | undefined,
): boolean => {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return ifNoneMatch.trim() === '*' || entityTags(ifNoneMatch).includes(etag);
  const ifModifiedSince = headers['if-modified-since'];
  if (ifModifiedSince === undefined || lastModified === undefined) return false;
  const since = parseHttpDate(ifModifiedSince);
  // RFC 9110 §13.1.3: a date later than the server's clock is not valid, and the header is ignored.
  return since !== undefined && since <= Date.now() / 1000 && lastModified <= since;
};

/** The revisions of a header's entity tags (`"<revision>-<format>"`). */
const revisionsOf = (tags: readonly string[]) =>
  tags.map((tag) => tag.replace(/^"|"$/g, '').replace(/-(json|xml)$/, '')).filter(Boolean);

/**
 * The preconditions of a write: `If-Match` (`*`, or the ETags the client holds, compared strongly:
 * a weak tag matches nothing, so the write is refused with 412), else `If-Unmodified-Since` (a
 * header that holds no HTTP date is ignored, RFC 9110 §13.1.4), and `If-None-Match` (`*`, to
 * create only, or ETags, compared weakly as that header is).
 */
export const parsePrecondition = (headers: Readonly<Record<string, string | undefined>>): Precondition | undefined => {
  const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch } = headers;
  const conditionOf = (header: string | undefined, strong: boolean) =>
    header === undefined ? undefined : header.trim() === '*' ? ('*' as const) : revisionsOf(entityTags(header, strong));
  const since = ifMatch === undefined ? headers['if-unmodified-since'] : undefined;
  const precondition = {
    match: conditionOf(ifMatch, true),
    unmodifiedSince: since === undefined ? undefined : parseHttpDate(since),
    noneMatch: conditionOf(ifNoneMatch, false),
  };
  return Object.values(precondition).some((condition) => condition !== undefined) ? precondition : undefined;
};

/**
 * A read's own preconditions (RFC 9110 §13.2.2, steps 1 and 2), on a representation that exists,
 * held as a write's are: `If-Match` (compared strongly, an ETag of the same version in either
 * format), else `If-Unmodified-Since`. The one that fails, if one does: the read is then 412.
 */
export const unmetReadCondition = (
  headers: Readonly<Record<string, string | undefined>>,
  etag: string,
  lastModified = 0,
) => {
  // Most reads send neither: they pay two look-ups, not a parse.
  if (headers['if-match'] === undefined && headers['if-unmodified-since'] === undefined) return undefined;
  const { match, unmodifiedSince } = parsePrecondition(headers) ?? {};
  return unmetCondition(
    { match, unmodifiedSince },
    { revision: revisionsOf([etag])[0] ?? etag, updated: lastModified },
  );
};
