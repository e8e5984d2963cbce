import * as z from 'zod/mini';
import { articleInput } from '../domain/article';
import { magazineInput, magazineListInput } from '../domain/magazine';
import { type ErrorCode, errorCatalogue } from '../http/error-catalogue';
import { representationRegistry } from '../http/representations/schemas';
import { expandRoutes, formatLabels, type HttpMethod, type Operation, versionPrefixOf } from '../routes';
import { EXAMPLE_BASE_URL, requestExamples } from './examples';
import { groupDescriptions, type OperationProse, operationDocs } from './operation-docs';
import { fixedParameters, pathParameter, queryParameters, responseHeaders } from './parameters';
import {
  type Built,
  type Concrete,
  commonErrors,
  errorResponse,
  examplesOf,
  JSON_TYPES,
  type Label,
  negotiates,
  notModifiedResponse,
  successResponse,
  XML_TYPE,
} from './responses';
import { capitalize, type JsonObject, type OpenApiDocument, type OpenApiOperation, pascal, ref } from './types';

export type { JsonObject, OpenApiDocument, OpenApiOperation } from './types';

/**
 * The OpenAPI 3.1 document of the API, generated: paths and methods from the route table (every
 * version prefix and format label, as API Gateway has them), schemas from the zod schemas of the
 * rows (the ones the handlers validate with and build responses by), errors from the error
 * catalogue, examples from the functions that build real responses.
 */

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

const requestSchemaId = (schema: z.ZodMiniType): string => {
  const id = requestRegistry.get(schema)?.id;
  if (!id) throw new Error('A request body schema of the route table has no id in the document.');
  return id;
};

/** `listMagazines`, `listMagazinesV1`, `headListMagazinesApiV1Json`: unique per method and concrete path. */
export const operationIdOf = (id: string, method: HttpMethod, prefix: string, label: Label | undefined) =>
  `${method === 'HEAD' ? `head${capitalize(id)}` : id}${pascal(prefix)}${label ? capitalize(label) : ''}`;

const labelOf = (resource: string, operation: Operation): Label | undefined =>
  formatLabels.find((label) => resource.endsWith(`${operation.path}.${label}`));

const operationObject = (
  built: Built,
  concrete: Concrete,
  parameters: Record<string, JsonObject>,
): OpenApiOperation => {
  const { operation, prose, method, label, prefix } = concrete;
  const reads = method === 'GET' || method === 'HEAD';
  const parameterKeys: string[] = [];
  const pathNames = [...operation.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1] ?? '');
  pathNames.forEach((name, index) => {
    const [key, parameter] = pathParameter(
      name,
      negotiates(operation) && index === pathNames.length - 1 && operation.path.endsWith(`{${name}}`),
    );
    parameters[key] = parameter;
    parameterKeys.push(key);
  });
  if (operation.query) parameterKeys.push(...queryParameters(operation.query, parameters));
  if (negotiates(operation) && !label) parameterKeys.push('QueryFormat');
  parameterKeys.push('QueryMock');
  if (negotiates(operation)) parameterKeys.push('HeaderAccept');
  if (reads) parameterKeys.push('HeaderIfNoneMatch');
  if (reads && negotiates(operation)) parameterKeys.push('HeaderIfModifiedSince');
  if (operation.ifMatch) parameterKeys.push('HeaderIfMatch');
  if (operation.idempotent) parameterKeys.push('HeaderIdempotencyKey');

  const responses: Record<string, { $ref: string }> = {};
  for (const success of operation.success)
    responses[String(success.status)] = successResponse(built, concrete, success);
  if (reads) responses['304'] = notModifiedResponse(built, concrete);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...operation.errors, ...commonErrors(concrete)]) {
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
    description: `${method === 'HEAD' ? 'The same status and headers as the GET, without a body. ' : ''}${prose.description}\n\nThis path: ${where}.`,
    tags: [operation.group],
    parameters: parameterKeys.map((key) => ref('parameters', key)),
    ...(operation.body && { requestBody: ref('requestBodies', requestSchemaId(operation.body)) }),
    responses,
    ...(reads ? { security: [] } : { security: [{ sigv4: [] }] }),
    'x-operation': operation.id,
  };
};

const proseOf = (operation: Operation): OperationProse => {
  const prose = (operationDocs as Record<string, OperationProse>)[operation.id];
  if (!prose) throw new Error(`Operation ${operation.id} has no prose in operation-docs.ts.`);
  return prose;
};

const requestBodies = (): Record<string, JsonObject> => {
  const bodies: Record<string, JsonObject> = {};
  for (const operation of expandRoutes().flatMap((route) => (route.operation ? [route.operation] : []))) {
    if (!operation.body) continue;
    const id = requestSchemaId(operation.body);
    const media = { schema: ref('schemas', id), examples: examplesOf([`${id}Request`]) };
    bodies[id] = {
      required: true,
      description: `${proseOf(operation).body ?? ''} Sent as JSON: \`application/json\`, \`text/javascript\`, \`application/*+json\` or no \`Content-Type\`; at most 1 MiB. Fields not listed here are refused (400 \`40002\`).`,
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
    const concrete: Concrete = {
      operation,
      prose: proseOf(operation),
      method: route.method,
      label: labelOf(route.resource, operation),
      prefix: versionPrefixOf(route.resource),
    };
    const item = paths[route.resource] ?? {};
    paths[route.resource] = item;
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
      Object.values(item).flatMap((op) => op.parameters.map((p) => p.$ref.split('/').pop() ?? '')),
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
      headers: responseHeaders,
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
