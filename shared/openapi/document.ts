import { STATUS_CODES } from 'node:http';
import * as z from 'zod/mini';
import { articleInput } from '../domain/article';
import { IDENTIFIER_PATTERN } from '../domain/fields';
import { magazineInput, magazineListInput } from '../domain/magazine';
import { representationRegistry } from '../domain/schemas-out';
import { errorCatalogue, errorCodes, type ErrorCode } from '../http/error-catalogue';
import { errorGuide } from '../docs/error-guide';
import { gatewayErrorCodes } from '../http/gateway-errors';
import { expandRoutes, formatLabels, versionPrefixOf, type HttpMethod, type Operation, type Route } from '../routes';
import { EXAMPLE_BASE_URL, errorExample, errorXml, replyExamples, requestExamples, xmlOf } from './examples';
import {
  groupDescriptions,
  operationDocs,
  queryParameterDescriptions,
  type OperationDoc,
  type Success,
} from './operation-docs';

/**
 * The OpenAPI 3.1 document of the API, generated: paths and methods from the route table
 * (every version prefix and format label, as API Gateway has them), schemas from the zod
 * schemas the handlers validate with and the representations are checked against, errors from
 * the error catalogue, examples from the functions that build real responses.
 */

export type JsonObject = { [key: string]: unknown };

export interface OpenApiOperation extends JsonObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: { $ref: string }[];
  requestBody?: { $ref: string };
  responses: Record<string, { $ref: string }>;
  'x-operation': string;
}

export interface OpenApiDocument extends JsonObject {
  openapi: '3.1.0';
  info: JsonObject & { title: string; version: string; description: string };
  servers: JsonObject[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<Lowercase<HttpMethod>, OpenApiOperation>>>;
  components: {
    schemas: Record<string, JsonObject>;
    parameters: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    requestBodies: Record<string, JsonObject>;
    responses: Record<string, JsonObject>;
    examples: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
  'x-unrouted-responses': Record<string, JsonObject>;
}

const capitalize = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(capitalize)
    .join('');
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const JSON_TYPES = ['text/javascript', 'application/json'] as const;
const XML_TYPE = 'application/xml';
type Label = (typeof formatLabels)[number];

/**
 * Codes API Gateway itself can answer with (its gateway responses, infra/gateway-responses.ts):
 * those are always `application/json`, whatever the label asked for.
 */
const GATEWAY_CODES = gatewayErrorCodes;

// ---------------------------------------------------------------------------------------------
// Schemas

const requestRegistry = z.registry<{ id: string }>();
requestRegistry.add(magazineInput, { id: 'MagazineInput' });
requestRegistry.add(magazineListInput, { id: 'MagazineListInput' });
requestRegistry.add(articleInput, { id: 'ArticleInput' });

/** zod's registry output, as `components.schemas` entries (without per-schema `$schema`/`$id`). */
const componentSchemas = (registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output') => {
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    uri: (id) => `#/components/schemas/${id}`,
  });
  if ('__shared' in schemas)
    throw new Error('A schema is reused without an id: give it one so that the document can refer to it.');
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _schema, $id: _id, ...rest } = schema as JsonObject;
      return [id, rest];
    }),
  );
};

// ---------------------------------------------------------------------------------------------
// Parameters

const constraintOf = (schema: z.ZodMiniType): string | undefined => {
  const result = schema.safeParse('\u0000');
  const message = result.success ? undefined : result.error.issues[0]?.message;
  return message ? `${capitalize(message)}.` : undefined;
};

const queryParameters = (query: z.ZodMiniObject, parameters: Record<string, JsonObject>): string[] => {
  const json = z.toJSONSchema(query, { target: 'draft-2020-12', io: 'input' }) as {
    properties?: Record<string, JsonObject>;
  };
  const defaults = query.parse({}) as Record<string, unknown>;
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description: _fromZod, ...schema } = property;
    const fallback = defaults[name];
    if (fallback !== undefined) schema.default = String(fallback);
    const field = query.shape[name] as z.ZodMiniType;
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

const identifierSource = IDENTIFIER_PATTERN.source.replace(/^\^|\$$/g, '');
const labelSource = `(?:\\.(?:${formatLabels.join('|')}))?`;

const pathParameter = (name: string, acceptsLabel: boolean): [string, JsonObject] => {
  const labelNote = acceptsLabel
    ? ' A format label (`.json`, `.xml`) may follow it: API Gateway hands it over inside this segment.'
    : '';
  const base: Record<string, { description: string; schema: JsonObject; example: string }> = {
    id: {
      description: 'Identifier of the magazine.',
      schema: { type: 'string', pattern: `^${identifierSource}${acceptsLabel ? labelSource : ''}$` },
      example: 'national-geographic',
    },
    tagId: {
      description: 'Identifier of the tag.',
      schema: { type: 'string', pattern: `^${identifierSource}${acceptsLabel ? labelSource : ''}$` },
      example: 'science',
    },
    articleId: {
      description: 'Identifier of the article, as the `Location` of its creation gave it.',
      schema: { type: 'string', minLength: 1 },
      example: '5b0f9a52-6c1e-4c0e-9f59-2d1f3a8e7c41',
    },
    errorCode: {
      description: 'An error code of the catalogue followed by `.html`.',
      schema: { type: 'string', enum: errorCodes.map((code) => `${code}.html`) },
      example: '40402.html',
    },
  };
  const known = base[name];
  if (!known) throw new Error(`Path parameter \`{${name}}\` has no description in document.ts.`);
  return [
    `Path${capitalize(name)}${acceptsLabel ? 'Labelled' : ''}`,
    {
      name,
      in: 'path',
      required: true,
      description: `${known.description}${labelNote}`,
      schema: known.schema,
      example: known.example,
    },
  ];
};

const fixedParameters: Record<string, JsonObject> = {
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
      'Simulated data (testing server only). `True` (any case), `1` or no value turns it on; `False` or `0` off; another value: 400 (`40005`). The request is checked as a real one, then answered with deterministic data of the real shape; the database is neither read nor written. Where mock is turned off (production stages), any `mock`: 400 (`40006`).',
    schema: { type: 'string', pattern: '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01])?$' },
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

// ---------------------------------------------------------------------------------------------
// Response headers

const headers: Record<string, JsonObject> = {
  Vary: {
    description: 'Always `Accept`: the representation depends on it.',
    required: true,
    schema: { type: 'string', const: 'Accept' },
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
      'RFC 8288 links to the `first`, `prev`, `next` and `last` pages that exist, under `{base_url}/v1`, keeping the request’s format label and its filters (`year`, `tag`, `fields` as far as they name magazine fields, `sort`, `format`, `mock`). Unknown parameters are not repeated, so the header stays small.',
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
};

// ---------------------------------------------------------------------------------------------
// Operations

interface Concrete {
  readonly route: Route & { readonly operation: Operation };
  readonly operation: Operation;
  readonly doc: OperationDoc;
  readonly method: HttpMethod;
  readonly label: Label | undefined;
  readonly prefix: string;
}

const negotiates = (doc: OperationDoc) => doc.success.every((s) => s.kind === 'representation');

/** `listMagazines`, `listMagazinesV1`, `headListMagazinesApiV1Json`: unique per method and concrete path. */
export const operationIdOf = (id: string, method: HttpMethod, prefix: string, label: Label | undefined) =>
  `${method === 'HEAD' ? `head${capitalize(id)}` : id}${pascal(prefix)}${label ? capitalize(label) : ''}`;

const labelOf = (resource: string, operation: Operation): Label | undefined =>
  formatLabels.find((label) => resource.endsWith(`${operation.path}.${label}`));

const commonErrors = ({ operation, doc, method, label }: Concrete): ErrorCode[] => [
  ...(negotiates(doc) && !label ? (['40601'] as const) : []),
  ...(doc.body ? (['40001', '40002', '40003', '40011', '41301', '41501'] as const) : []),
  ...(method === 'GET' || method === 'HEAD' ? [] : (['40301'] as const)),
  '40005',
  '40006',
  // The gateway's catch-all refusal can meet any request.
  '40012',
  '42901',
  '50001',
  '50201',
  ...(operation.access === 'none' ? [] : (['50301'] as const)),
  '50401',
];

const successMediaTypes = (label: Label | undefined): string[] =>
  label === 'json' ? [...JSON_TYPES] : label === 'xml' ? [XML_TYPE] : [...JSON_TYPES, XML_TYPE];

const errorMediaTypes = (concrete: Concrete, codes: readonly ErrorCode[], status: number): string[] => {
  // Errors raised before or outside negotiation (406, documents) are JSON, typed by `Accept` as any JSON.
  const types = new Set<string>(
    status === 406 || !negotiates(concrete.doc) ? JSON_TYPES : successMediaTypes(concrete.label),
  );
  if (codes.some((code) => GATEWAY_CODES.includes(code))) types.add('application/json');
  return [...types];
};

const examplesOf = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, ref('examples', name)]));

interface Built {
  readonly responses: Record<string, JsonObject>;
  readonly examples: Record<string, JsonObject>;
}

const intern = (built: Built, name: string, response: JsonObject) => {
  const existing = built.responses[name];
  if (existing && JSON.stringify(existing) !== JSON.stringify(response))
    throw new Error(`Response component ${name} built twice differently.`);
  built.responses[name] = response;
  return ref('responses', name);
};

const successResponse = (built: Built, concrete: Concrete, success: Success) => {
  const head = concrete.method === 'HEAD';
  const variant = `${head ? 'Head' : ''}${pascal(concrete.operation.id)}${success.status}${concrete.label ? capitalize(concrete.label) : ''}`;
  const common = { Vary: ref('headers', 'Vary'), 'Content-Type': ref('headers', 'ContentType') };
  if (success.kind === 'document') {
    const content = head
      ? undefined
      : {
          [success.mediaType]: {
            schema:
              success.mediaType === 'text/html'
                ? { type: 'string', description: 'A self-contained HTML page.' }
                : {
                    type: 'object',
                    description: 'An OpenAPI 3.1 document.',
                    properties: {
                      openapi: { type: 'string', pattern: '^3\\.1\\.' },
                      info: { type: 'object' },
                      paths: { type: 'object' },
                    },
                    required: ['openapi', 'info', 'paths'],
                  },
          },
        };
    return intern(built, variant, {
      description: success.description,
      headers: { ...common, ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'CacheControl') },
      ...(content && { content }),
    });
  }
  const reads = concrete.method === 'GET' || head;
  const responseHeaders: JsonObject = {
    ...common,
    ...(reads && {
      ETag: ref('headers', 'ETag'),
      'Last-Modified': ref('headers', 'LastModified'),
      'Cache-Control': ref('headers', 'CacheControl'),
    }),
    ...(success.list && { Link: ref('headers', 'Link') }),
    ...(success.status === 201 && { Location: ref('headers', 'Location') }),
  };
  const jsonExample = `${success.example}Json`;
  const xmlExample = `${success.example}Xml`;
  const reply = replyExamples[success.example];
  built.examples[jsonExample] = { summary: success.description, value: reply.body };
  built.examples[xmlExample] = { summary: success.description, value: xmlOf(reply) };
  const content = Object.fromEntries(
    successMediaTypes(concrete.label).map((type) => [
      type,
      { schema: ref('schemas', success.schema), examples: examplesOf([type === XML_TYPE ? xmlExample : jsonExample]) },
    ]),
  );
  return intern(built, variant, {
    description: success.description,
    headers: responseHeaders,
    ...(!head && { content }),
  });
};

const notModifiedResponse = (built: Built, concrete: Concrete) =>
  intern(built, `NotModified${negotiates(concrete.doc) ? '' : 'Document'}`, {
    description: 'Not modified: the `If-None-Match` (or `If-Modified-Since`) precondition holds. No body.',
    headers: {
      Vary: ref('headers', 'Vary'),
      ETag: ref('headers', 'ETag'),
      'Cache-Control': ref('headers', 'CacheControl'),
      ...(negotiates(concrete.doc) && { 'Last-Modified': ref('headers', 'LastModified') }),
    },
  });

const describeCodes = (codes: readonly ErrorCode[]) =>
  codes.map((code) => `- \`${code}\` ${errorGuide[code].title}: ${errorGuide[code].cause}`).join('\n');

const errorResponse = (built: Built, concrete: Concrete, status: number, codes: readonly ErrorCode[]) => {
  const head = concrete.method === 'HEAD';
  const types = errorMediaTypes(concrete, codes, status);
  for (const code of codes) {
    if (types.some((type) => type !== XML_TYPE))
      built.examples[`Error${code}`] = { summary: errorGuide[code].title, value: errorExample(code) };
    if (types.includes(XML_TYPE))
      built.examples[`Error${code}Xml`] = { summary: errorGuide[code].title, value: errorXml(code) };
  }
  const content = Object.fromEntries(
    types.map((type) => [
      type,
      {
        schema: ref('schemas', 'Error'),
        examples: examplesOf(codes.map((code) => (type === XML_TYPE ? `Error${code}Xml` : `Error${code}`))),
      },
    ]),
  );
  const name = `${head ? 'Head' : ''}${pascal(concrete.operation.id)}${status}${concrete.label ? capitalize(concrete.label) : ''}`;
  return intern(built, name, {
    description: `${STATUS_CODES[status] ?? 'Error'}. Error codes:\n\n${describeCodes(codes)}`,
    headers: {
      Vary: ref('headers', 'Vary'),
      'Content-Type': ref('headers', 'ContentType'),
      ...(status === 503 && { 'Retry-After': ref('headers', 'RetryAfter') }),
    },
    'x-error-codes': [...codes],
    ...(!head && { content }),
  });
};

const operationObject = (
  built: Built,
  concrete: Concrete,
  parameters: Record<string, JsonObject>,
): OpenApiOperation => {
  const { operation, doc, method, label, prefix } = concrete;
  const reads = method === 'GET' || method === 'HEAD';
  const parameterKeys: string[] = [];
  const pathNames = [...operation.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
  pathNames.forEach((name, index) => {
    const [key, parameter] = pathParameter(
      name,
      negotiates(doc) && index === pathNames.length - 1 && operation.path.endsWith(`{${name}}`),
    );
    parameters[key] = parameter;
    parameterKeys.push(key);
  });
  if (doc.query) parameterKeys.push(...queryParameters(doc.query, parameters));
  if (negotiates(doc) && !label) parameterKeys.push('QueryFormat');
  parameterKeys.push('QueryMock');
  if (negotiates(doc)) parameterKeys.push('HeaderAccept');
  if (reads) parameterKeys.push('HeaderIfNoneMatch');
  if (reads && negotiates(doc)) parameterKeys.push('HeaderIfModifiedSince');
  if ('ifMatch' in doc && doc.ifMatch) parameterKeys.push('HeaderIfMatch');

  const responses: Record<string, { $ref: string }> = {};
  for (const success of doc.success) responses[String(success.status)] = successResponse(built, concrete, success);
  if (reads) responses['304'] = notModifiedResponse(built, concrete);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...doc.errors, ...commonErrors(concrete)]) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])].sort());
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b))
    responses[String(status)] = errorResponse(built, concrete, status, codes);

  const where = [prefix ? `under \`${prefix}\`` : 'latest version (no version segment)', label && `\`.${label}\` label`]
    .filter(Boolean)
    .join(', ');
  return {
    operationId: operationIdOf(operation.id, method, prefix, label),
    summary: method === 'HEAD' ? `${operation.summary}: headers only` : operation.summary,
    description: `${method === 'HEAD' ? 'The same status and headers as the GET, without a body. ' : ''}${doc.description}\n\nThis path: ${where}.`,
    tags: [doc.group],
    parameters: parameterKeys.map((key) => ref('parameters', key)),
    ...(doc.body && { requestBody: ref('requestBodies', doc.body.schema) }),
    responses,
    ...(reads ? { security: [] } : { security: [{ sigv4: [] }] }),
    'x-operation': operation.id,
  };
};

const requestBodies = (): Record<string, JsonObject> => {
  const bodies: Record<string, JsonObject> = {};
  const descriptions = new Map<string, string>();
  for (const doc of Object.values(operationDocs) as OperationDoc[])
    if (doc.body) descriptions.set(doc.body.schema, doc.body.description);
  for (const [id, description] of descriptions) {
    const media = { schema: ref('schemas', id), examples: examplesOf([`${id}Request`]) };
    bodies[id] = {
      required: true,
      description: `${description} Sent as JSON: \`application/json\`, \`text/javascript\`, \`application/*+json\` or no \`Content-Type\`; at most 1 MiB. Fields not listed here are refused (400 \`40002\`).`,
      content: Object.fromEntries(JSON_TYPES.map((type) => [type, media])),
    };
  }
  return bodies;
};

const infoDescription = `An HTTP API over a collection of magazines, their tags and their articles.

**Versions.** Every path works under three prefixes: none (the latest version, not stable across releases), \`/v1\` and \`/api/v1\`. Each prefix and format label is listed here as a path of its own, exactly as the API serves it. Links the API writes (\`Location\`, tag \`url\`, \`moreInfo\`, \`Link\`) are always \`{base_url}/v1/…\`, whichever prefix the request used: a representation is byte for byte the same under every prefix.

**Formats.** Responses are JSON, or XML for every representation and error object. The path label (\`.json\`, \`.xml\`) decides; else the \`format\` parameter; else \`Accept\`; else JSON. JSON goes out as \`text/javascript; charset=utf-8\` unless \`Accept\` admits only \`application/json\`. XML uses the JSON field names as element names; an array is a plural element holding singular ones (\`<tags><tag>…</tag></tags>\`). Every response carries \`Vary: Accept\`. Request bodies are JSON, at most 1 MiB.

**Caching and concurrency.** GET and HEAD send \`ETag\` and \`Last-Modified\` and answer \`If-None-Match\` / \`If-Modified-Since\` with 304. PUT and DELETE honour \`If-Match\` (412): on one magazine with its \`ETag\`, on the collection with the \`ETag\` of \`GET /magazines\`.

**Errors.** Every error response, including those API Gateway makes itself, carries the error object \`{developerMessage, userMessage, errorCode, moreInfo}\`. \`errorCode\` starts with the HTTP status; \`moreInfo\` links to the code's page under \`/v1/documentation/errors/\`. A path that names no resource answers 404 (\`40401\`, or \`40406\` for an unknown version such as \`/v2\`); a known path with a method it does not support answers 405 (\`40501\`) with an \`Allow\` header (see \`x-unrouted-responses\`).

**Authentication.** Reads are public. Writes (POST, PUT, DELETE) need a request signed with AWS Signature Version 4 by a principal holding the publisher policy the stack outputs; otherwise 403 (\`40301\`). The local server does not check signatures.

**Mock.** On the testing server every operation accepts \`mock\`: the request is checked as a real one, then answered with deterministic simulated data; nothing is read or written.`;

const unroutedContent = () =>
  Object.fromEntries([...JSON_TYPES, XML_TYPE].map((type) => [type, { schema: ref('schemas', 'Error') }]));

const unroutedResponses = (): Record<string, JsonObject> => ({
  '404': {
    description: 'Any path that names no resource of the API.',
    'x-error-codes': ['40401', '40406'],
    headers: { Vary: ref('headers', 'Vary') },
    content: unroutedContent(),
  },
  '406': {
    description: 'A path of the API with a label that is no format of it, such as `/magazines.yaml`.',
    'x-error-codes': ['40601'],
    headers: { Vary: ref('headers', 'Vary') },
    content: unroutedContent(),
  },
  '405': {
    description: 'A path of the API with a method it does not support.',
    'x-error-codes': ['40501'],
    headers: {
      Vary: ref('headers', 'Vary'),
      Allow: {
        description: 'The methods the path supports, such as `GET, HEAD, POST, PUT, DELETE`.',
        required: true,
        schema: { type: 'string' },
      },
    },
    content: unroutedContent(),
  },
});

export const buildOpenApi = (): OpenApiDocument => {
  const built: Built = { responses: {}, examples: {} };
  const parameters: Record<string, JsonObject> = { ...fixedParameters };
  const paths: OpenApiDocument['paths'] = {};
  for (const route of expandRoutes()) {
    if (!route.operation || route.method === 'ANY') continue;
    const operation = route.operation;
    const doc: OperationDoc | undefined = (operationDocs as Record<string, OperationDoc>)[operation.id];
    if (!doc) throw new Error(`Operation ${operation.id} has no entry in operation-docs.ts.`);
    const concrete: Concrete = {
      route: route as Concrete['route'],
      operation,
      doc,
      method: route.method,
      label: labelOf(route.resource, operation),
      prefix: versionPrefixOf(route.resource),
    };
    const item = (paths[route.resource] ??= {});
    item[route.method.toLowerCase() as Lowercase<HttpMethod>] = operationObject(built, concrete, parameters);
  }
  for (const [id, value] of Object.entries(requestExamples))
    built.examples[`${id}Request`] = {
      summary: `A ${pascal(id)
        .replace(/Input$/, '')
        .toLowerCase()} request body`,
      value,
    };

  const usedParameters = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((op) => op.parameters.map((p) => p.$ref.split('/').pop()!)),
    ),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Magazine API',
      version: '1.0.0',
      summary: 'Magazines, their tags and articles, in JSON and XML.',
      description: infoDescription,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The scheme, host and stage path the API is served on.',
        variables: {
          base_url: {
            default: EXAMPLE_BASE_URL,
            description:
              'Such as `https://{api-id}.execute-api.{region}.amazonaws.com/{stage}`, a custom domain, or `http://127.0.0.1:{port}` for the local server.',
          },
        },
      },
    ],
    tags: Object.entries(groupDescriptions).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { ...componentSchemas(representationRegistry, 'output'), ...componentSchemas(requestRegistry, 'input') },
      parameters: Object.fromEntries(Object.entries(parameters).filter(([key]) => usedParameters.has(key))),
      headers,
      requestBodies: requestBodies(),
      responses: built.responses,
      examples: built.examples,
      securitySchemes: {
        sigv4: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'AWS Signature Version 4 (IAM authorization), for example `curl --aws-sigv4 "aws:amz:REGION:execute-api"`.',
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
      },
    },
    'x-unrouted-responses': unroutedResponses(),
  };
};

let cached: OpenApiDocument | undefined;

/** The document, built once per process. */
export const openApiDocument = (): OpenApiDocument => (cached ??= buildOpenApi());

let cachedJson: string | undefined;

/** The document as served by `GET /openapi.json` and written by `npm run openapi`. */
export const openApiJson = (): string => (cachedJson ??= `${JSON.stringify(openApiDocument(), null, 2)}\n`);
