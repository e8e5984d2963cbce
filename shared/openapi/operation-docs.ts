import type { Group } from '../operation/row';
import type { OperationId } from '../routes/table';

/**
 * The prose of each operation, keyed by its id in the route table: what the row
 * (shared/routes/table.ts) does not say in code. `satisfies Record<OperationId, …>` makes an
 * operation without prose a type error. Kept apart from the rows so that no function carries it
 * in its bundle.
 */
export interface OperationProse {
  readonly description: string;
  /** The request body, for operations that take one. */
  readonly body?: string;
  /** Each success status, in words. */
  readonly success: Readonly<Partial<Record<200 | 201, string>>>;
}

export const operationDocs = {
  listMagazines: {
    description:
      'One page of the magazines, oldest first unless `sort=desc`, filtered by `year` and `tag`. `metadata.resultset.count` is the number of every magazine that matches, not only of this page. ' +
      "Any `offset` costs about what the first page costs: the API finds the page through the list's counts rather than stepping over the items before it. The `next` link's `cursor` resumes right after a page, at the cost of one page.",
    success: { 200: 'One page of magazines. `Last-Modified` is the time of the last change to any magazine.' },
  },
  createMagazine: {
    description:
      'Creates a magazine. Without an `id` the server makes one. Nothing is written when the request is refused.',
    body: 'The magazine to create.',
    success: { 201: 'Created. `Location` is the address of the new magazine.' },
  },
  replaceAllMagazines: {
    description:
      'Replaces the whole collection: magazines not in the array are deleted with their articles; the others are created or replaced (their articles are kept). Every element is checked first; any error, or two elements with one `id`, changes nothing. An element without an `id` gets one made from the request and its place in it, so the same request sent again names the same magazines: it completes one that was cut short, and changes nothing after one that succeeded.',
    body: 'Every magazine the collection is to hold; `GET /magazines` results can be sent back as they are.',
    success: { 200: 'Replaced. The `id` is `magazines`.' },
  },
  deleteAllMagazines: {
    description:
      'Deletes every magazine and its articles. The collection itself remains: `GET /magazines` then answers 200 with `count` 0.',
    success: { 200: 'Deleted. The `id` is `magazines`.' },
  },
  getMagazine: {
    description:
      'One magazine. `fields=title,tags` returns only those fields and `id`; names that are not magazine fields are ignored.',
    success: { 200: 'The magazine.' },
  },
  replaceMagazine: {
    description:
      'Creates the magazine, or replaces it if it exists. `id` may be left out of the body; if given it must equal the path. A left-out `created` keeps the stored value. The articles of the magazine are kept.',
    body: 'The magazine as it is to be; a representation read with GET can be sent back unchanged.',
    success: { 200: 'Replaced an existing magazine.', 201: 'Created a new magazine. `Location` is its address.' },
  },
  deleteMagazine: {
    description: 'Deletes the magazine and its articles.',
    success: { 200: 'Deleted.' },
  },
  listArticles: {
    description:
      'One page of the articles of a magazine, oldest first unless `sort=desc`. A page of very long articles may hold fewer than `limit` asked for: a response carries at most 6 MB, one read of the table 1 MB; `metadata.resultset.limit` then says how many, and `Link: next` carries on from there.',
    success: { 200: 'One page of articles.' },
  },
  createArticle: {
    description:
      'Adds an article to a magazine. With `mock` the request is checked and answered, but nothing is created.',
    body: 'The article; every field is required.',
    success: { 201: 'Created. `Location` is the address of the new article.' },
  },
  getArticle: {
    description: 'One article.',
    success: { 200: 'The article.' },
  },
  listTags: {
    description: 'One page of the tags carried by at least one magazine, with the number of magazines that carry each.',
    success: { 200: 'One page of tags.' },
  },
  getTag: {
    description: 'One tag: the address a magazine tag’s `url` gives.',
    success: { 200: 'The tag.' },
  },
  listTagMagazines: {
    description:
      'One page of the magazines that carry the tag, with the same parameters as `GET /magazines` (but `tag`).',
    success: { 200: 'One page of magazines carrying the tag.' },
  },
  getDocumentation: {
    description: 'This reference, as one self-contained HTML page rendered from the OpenAPI document.',
    success: { 200: 'The HTML reference.' },
  },
  listErrorPages: {
    description:
      'An HTML index of every error code of the API, linking to each code’s page. Also served with a trailing slash.',
    success: { 200: 'The HTML index.' },
  },
  getErrorPage: {
    description:
      'What an error code means, why it happens, how to fix it, and an example response: the page every `moreInfo` links to.',
    success: { 200: 'The HTML page of the error code.' },
  },
  getOpenApi: {
    description: 'This OpenAPI 3.1 document. The same document is served under every version prefix.',
    success: { 200: 'The OpenAPI document.' },
  },
} as const satisfies Record<OperationId, OperationProse>;

export const groupDescriptions: Record<Group, string> = {
  Magazines: 'The magazine collection and single magazines.',
  Articles: 'The articles of a magazine; each article also has its own address.',
  Tags: 'The tags magazines carry; a magazine tag’s `url` is the address of its tag resource.',
  Documentation: 'This reference, the error pages and the OpenAPI document.',
};

/** Prose for query parameters; the rules and defaults come from the query schemas. */
export const queryParameterDescriptions: Record<string, string> = {
  offset: 'Position of the first item to return; 0 is the first. Not together with `cursor`.',
  cursor:
    'Where the page starts: the opaque `cursor` of a `next` link of the same list, sent back unchanged. A cursor page costs one page whatever its depth. A cursor altered, or from another list, filter or order: 400. Not together with `offset`.',
  limit: 'Largest number of items to return.',
  sort: 'Order by creation time, then identifier (tags: by identifier): `asc` or `desc`.',
  year: 'Only magazines created in this year (UTC).',
  tag: 'Only magazines that carry the tag with this identifier.',
  fields:
    'Comma-separated magazine fields to return besides `id`, such as `title,tags`. Names that are not magazine fields (such as `subtitle` or `date`) are ignored.',
};

/** The document's `info.description`: the rules every operation shares. */
export const infoDescription = `An HTTP API over a collection of magazines, their tags and their articles.

**Versions.** Every path works under three prefixes: none (the latest version, not stable across releases), \`/v1\` and \`/api/v1\`: they are this document's servers. A resource that can be asked for in a format by a label is listed a second time, with \`.{format}\` ending its path (\`/magazines.{format}\` for \`/magazines.json\` and \`/magazines.xml\`). Links the API writes (\`Location\`, tag \`url\`, \`moreInfo\`, \`Link\`) are always \`{base_url}/v1/…\`, whichever prefix the request used: a representation is byte for byte the same under every prefix.

**Formats.** Responses are JSON, or XML for every representation and error object. The path label (\`.json\`, \`.xml\`) decides; else the \`format\` parameter; else \`Accept\`; else JSON. JSON goes out as \`text/javascript; charset=utf-8\` unless \`Accept\` admits only \`application/json\`. XML uses the JSON field names as element names; an array is a plural element holding singular ones (\`<tags><tag>…</tag></tags>\`). Every response carries \`Vary: Accept\` (\`Vary: Accept, Accept-Encoding\` from 1,024 bytes, the size from which bodies are compressed for clients that accept gzip or deflate). Request bodies are JSON, at most 1 MiB.

**Text.** Every string the API takes is Unicode text that can be stored as UTF-8: body fields and field names, path segments, the query parameters an operation reads (\`mock\` and \`format\` included) and the headers the API reads. A string holding an unpaired UTF-16 surrogate (such as the JSON escape \`\\udfff\` alone) is refused with 400 (\`40015\`), whose \`developerMessage\` names the field, parameter or header; nothing is written.

**Caching and concurrency.** GET and HEAD send \`ETag\` and \`Last-Modified\` and answer \`If-None-Match\` / \`If-Modified-Since\` with 304. \`Last-Modified\` has whole seconds, so two changes within a second share it: revalidate with \`If-None-Match\`, which wins over \`If-Modified-Since\` when both are sent. PUT and DELETE honour \`If-Match\`, or else \`If-Unmodified-Since\` (412): on one magazine with its \`ETag\` or \`Last-Modified\`, on the collection with those of \`GET /magazines\`; \`If-None-Match: *\` makes a PUT create only. A read answers 412 to an \`If-Match\` or \`If-Unmodified-Since\` that fails.

**Errors.** Every error response, including those API Gateway makes itself, carries the error object \`{developerMessage, userMessage, errorCode, moreInfo}\`. \`errorCode\` starts with the HTTP status; \`moreInfo\` links to the code's page under \`/v1/documentation/errors/\`. A path that names no resource answers 404 (\`40401\`, or \`40406\` for an unknown version such as \`/v2\`); a known path with a method it does not support answers 405 (\`40501\`) with an \`Allow\` header (see \`x-unrouted-responses\`).

**Authentication.** Reads are public. Writes (POST, PUT, DELETE) need a request signed with AWS Signature Version 4 by a principal holding the publisher policy the stack outputs; otherwise 403 (\`40301\`). The local server does not check signatures.

**API keys and plans.** Where the deployment gives keys (production does), every path but the documentation pages and \`/openapi.json\` needs the client's key in the \`x-api-key\` header; without a valid one: 403 (\`40302\`). Each key belongs to a usage plan with a steady rate, a burst and a daily quota: over the rate, 429 (\`42901\`); over the day's quota, 429 (\`42902\`); both carry \`Retry-After\`. A web application firewall blocks known attack patterns and addresses that send too many requests: 403 (\`40303\`).

**Mock.** On the testing server every operation accepts \`mock\`: the request is checked as a real one, then answered with deterministic simulated data; nothing is read or written.`;
