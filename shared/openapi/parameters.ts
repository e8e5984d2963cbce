import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { IDENTIFIER_PATTERN } from '../domain/fields';
import { errorCodes } from '../http/error-catalogue';
import { formatLabels } from '../operation/paths';
import { EXAMPLE_BASE_URL } from './examples';
import { jsonSchemaConfig } from './json-schema';
import { queryParameterDescriptions } from './operation-docs';
import { capitalize, type JsonObject } from './types';

/** The parameters and response headers of the document: from the row's query schema, the path, and fixed ones. */

const constraintOf = (schema: v.GenericSchema): string | undefined => {
  const message = v.safeParse(schema, '\u0000').issues?.[0]?.message;
  return message ? `${capitalize(message)}.` : undefined;
};

export const queryParameters = (
  query: v.ObjectSchema<v.ObjectEntries, undefined>,
  parameters: Record<string, JsonObject>,
): string[] => {
  const json = toJsonSchema(query, { ...jsonSchemaConfig, typeMode: 'input' }) as {
    properties?: Record<string, JsonObject>;
  };
  const defaults = v.parse(query, {}) as Record<string, unknown>;
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    // Integers keep their bounds; their text form (digits) is what the query string carries, not what clients send.
    const { description: _fromSchema, default: _input, queryInteger, ...text } = property;
    const schema: JsonObject = queryInteger ? { type: 'integer', ...(queryInteger as JsonObject) } : text;
    const fallback = defaults[name];
    if (fallback !== undefined) schema.default = schema.type === 'integer' ? fallback : String(fallback);
    const field = query.entries[name] as v.GenericSchema;
    const prose = queryParameterDescriptions[name];
    if (!prose) throw new Error(`Query parameter \`${name}\` has no description in operation-docs.ts.`);
    const parameter = {
      name,
      in: 'query',
      required: false,
      description: [prose, constraintOf(field)].filter(Boolean).join(' '),
      schema,
    };
    const key = `Query${capitalize(name)}`;
    const existing = parameters[key];
    if (existing && JSON.stringify(existing) !== JSON.stringify(parameter))
      throw new Error(`Two operations define query parameter \`${name}\` differently.`);
    parameters[key] = parameter;
    return key;
  });
};

const identifierSchema = { type: 'string', pattern: IDENTIFIER_PATTERN.source };

const pathParameters: Record<string, JsonObject> = {
  id: {
    description: 'Identifier of the magazine.',
    schema: identifierSchema,
    example: 'national-geographic',
  },
  tagId: {
    description: 'Identifier of the tag.',
    schema: identifierSchema,
    example: 'science',
  },
  articleId: {
    description: 'Identifier of the article, as the `Location` of its creation gave it; it never holds a `.`.',
    schema: { type: 'string', pattern: '^[^.]+$' },
    example: '5b0f9a52-6c1e-4c0e-9f59-2d1f3a8e7c41',
  },
  errorCode: {
    description: 'An error code of the catalogue followed by `.html`.',
    schema: { type: 'string', enum: errorCodes.map((code) => `${code}.html`) },
    example: '40402.html',
  },
  format: {
    description:
      'The format label that ends the path: `json` or `xml`. It wins over the `format` parameter and over `Accept`. Labels are lower case. Another label, such as `.yaml` or `.XML`: 406 (`40601`), answered in JSON.',
    schema: { type: 'string', enum: [...formatLabels] },
    example: 'xml',
  },
};

/** The component key of a path parameter, such as `PathId` for `{id}`. */
export const pathParameter = (name: string): [string, JsonObject] => {
  const known = pathParameters[name];
  if (!known) throw new Error(`Path parameter \`{${name}}\` has no description in parameters.ts.`);
  return [`Path${capitalize(name)}`, { name, in: 'path', required: true, ...known }];
};

export const fixedParameters: Record<string, JsonObject> = {
  QueryFormat: {
    name: 'format',
    in: 'query',
    required: false,
    description:
      'The representation: `json` or `xml` (any case). A `.json`/`.xml` label on the path wins over it; it wins over `Accept`. Another value: 406.',
    schema: { type: 'string', enum: [...formatLabels] },
  },
  QueryMock: {
    name: 'mock',
    in: 'query',
    required: false,
    allowEmptyValue: true,
    description:
      'Simulated data (testing server only). `true` (any case), `1` or no value turns it on; `false` or `0` off; another value: 400 (`40005`). The request is checked as a real one, then answered with deterministic data of the real shape; the database is neither read nor written. Where mock is turned off (production stages), any `mock`: 400 (`40006`).',
    // A string, not a boolean: the API takes `True` and `1` as well, which a validating client would refuse as a boolean.
    schema: {
      type: 'string',
      pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01])?$',
      examples: ['True', '1', 'False'],
    },
  },
  HeaderAccept: {
    name: 'Accept',
    in: 'header',
    required: false,
    description:
      'Chooses the format when the path has no label and there is no `format`: JSON (`application/json`, `text/javascript`) or XML (`application/xml`, `text/xml`); without it, JSON. JSON is sent as `text/javascript` unless the header admits only `application/json`. An `Accept` that admits neither format: 406. (OpenAPI tools treat `Accept` as implied by the response media types; it is listed for readers.)',
    schema: { type: 'string' },
    example: 'application/json, text/javascript',
  },
  HeaderIfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An `ETag` received earlier (or `*`): 304 without a body when it still matches.',
    schema: { type: 'string' },
    example: '"3f9a1c-json"',
  },
  HeaderIfModifiedSince: {
    name: 'If-Modified-Since',
    in: 'header',
    required: false,
    description:
      'An HTTP date: 304 without a body when nothing changed since. `If-None-Match` wins when both are sent.',
    schema: { type: 'string' },
    example: 'Mon, 01 Jan 2024 01:00:00 GMT',
  },
  HeaderIdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key of 1 to 255 printable ASCII characters, chosen anew for each new request (a UUID does). A retry with the same key and the same body gets the first request’s answer again and changes nothing; the same key with another body or magazine: 422 (`42201`); a key belongs to one operation; while the first is still running: 409 (`40901`). Keys are kept 25 hours. Without it, every POST is a new request.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    example: '6f2c1d9e-3f4b-4a7e-9b8c-0d1e2f3a4b5c',
  },
  HeaderIfNoneMatchWrite: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: '`*`: create only, 412 if it exists. `ETag`s: 412 if one is current.',
    schema: { type: 'string' },
    example: '*',
  },
  HeaderIfUnmodifiedSince: {
    name: 'If-Unmodified-Since',
    in: 'header',
    required: false,
    description:
      'An HTTP date: 412 if the resource changed after it. Ignored beside `If-Match`, and when it is not an HTTP date. `Last-Modified` has whole seconds: `If-Match` is the safer guard.',
    schema: { type: 'string' },
    example: 'Mon, 01 Jan 2024 01:00:00 GMT',
  },
  HeaderIfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The `ETag` of the version the change is based on (or `*` for any existing version); otherwise 412 and nothing changes.',
    schema: { type: 'string' },
    example: '"3f9a1c-json"',
  },
};

export const responseHeaders: Record<string, JsonObject> = {
  Vary: {
    description:
      '`Accept`: the representation depends on it; `Accept, Accept-Encoding` when the body is 1,024 bytes or more, which is compressed for clients that accept gzip or deflate.',
    required: true,
    schema: { type: 'string', enum: ['Accept', 'Accept, Accept-Encoding'] },
  },
  ContentType: {
    description:
      'JSON as `text/javascript; charset=utf-8` (or `application/json; charset=utf-8` when `Accept` admits only that), XML as `application/xml; charset=utf-8`.',
    schema: { type: 'string' },
  },
  ETag: {
    description:
      'Entity tag of the representation sent, for `If-None-Match` (and, on a magazine or the magazine list, `If-Match`).',
    required: true,
    schema: { type: 'string' },
  },
  LastModified: {
    description: 'When the resource (for a list: any of its members) last changed, as an HTTP date.',
    schema: { type: 'string' },
  },
  CacheControl: {
    description: '`no-cache`: a cache may keep the response but must revalidate it.',
    schema: { type: 'string' },
  },
  Link: {
    description:
      'RFC 8288 links to the `first`, `prev`, `next` and `last` pages that exist, under `{base_url}/v1`, keeping the request’s format label and its filters (`year`, `tag`, `fields` as far as they name magazine fields, or `fields=id` when they name none, `sort`, `format`, `mock`). Unknown parameters are not repeated, so the header stays small.',
    required: true,
    schema: { type: 'string' },
    example: `<${EXAMPLE_BASE_URL}/v1/magazines?sort=asc&offset=0&limit=2>; rel="first", <${EXAMPLE_BASE_URL}/v1/magazines?sort=asc&offset=2&limit=2>; rel="next"`,
  },
  Location: {
    description: 'Absolute address of the created resource.',
    required: true,
    schema: { type: 'string', format: 'uri' },
  },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'string' } },
  AcceptEncoding: {
    description: 'On `41502`: the content codings a request body may have (RFC 9110 §12.5.3).',
    schema: { type: 'string' },
  },
  Allow: {
    description: 'The methods the resource takes, OPTIONS (the CORS preflight every resource answers) among them.',
    required: true,
    schema: { type: 'string' },
  },
};
