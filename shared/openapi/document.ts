import { articleInput } from '../domain/article';
import { magazineInput, magazineListInput } from '../domain/magazine-input';
import { eventComponentSchemas, eventsDescription, eventWebhooks } from '../events/schemas';
import type { ErrorCode } from '../http/error-catalogue';
import { representationSchemas } from '../http/representations/schemas';
import { currentVersion, takesLabels, versionPrefixes } from '../operation/paths';
import type { HttpMethod, Operation } from '../operation/row';
import { operations } from '../routes/table';
import { requestExamples } from './examples';
import { componentSchemas, nameOf } from './json-schema';
import { groupDescriptions, infoDescription, type OperationProse, operationDocs } from './operation-docs';
import { fixedParameters, pathParameter, queryParameters, responseHeaders } from './parameters';
import {
  type Built,
  type Documented,
  errorCodesByStatus,
  errorComponents,
  errorResponse,
  errorSubset,
  examplesOf,
  headErrorResponses,
  JSON_TYPES,
  negotiates,
  notModifiedResponse,
  successResponse,
  unroutedResponses,
} from './responses';
import {
  documentOperations,
  type JsonObject,
  type OpenApiDocument,
  type OpenApiOperation,
  type OperationMethod,
  pascal,
  type Reference,
  ref,
} from './types';

export type { JsonObject, OpenApiDocument, OpenApiOperation } from './types';
export { documentOperations } from './types';

/**
 * The OpenAPI 3.1 document of the API, generated: paths and methods from the route table (each
 * resource once; the version prefixes are its servers; a resource that takes format labels also
 * has its labelled form, `/magazines.{format}`), schemas from the valibot schemas of the rows (the
 * ones the handlers validate with and build responses by), errors from the error catalogue,
 * examples from the functions that build real responses. API Gateway's concrete resources, every
 * prefix and label, are `expandRoutes()`'s, from the same rows.
 */

const requestSchemas = {
  MagazineInput: magazineInput,
  MagazineListInput: magazineListInput,
  ArticleInput: articleInput,
};

const requestSchemaId = (schema: unknown): string =>
  nameOf(requestSchemas, schema, 'A request body schema of the route table');

/**
 * Operation ids: the route table's for the operation on its plain path (`getMagazine`); `head`
 * and the resource for its HEAD (`headMagazine`, `headMagazines`); `InFormat` after either for the
 * labelled form of the path (`getMagazineInFormat`, `headMagazineInFormat`).
 */
const operationIdOf = (id: string, method: HttpMethod, labelled: boolean) =>
  `${method === 'HEAD' ? `head${id.replace(/^(get|list)(?=[A-Z])/, '')}` : id}${labelled ? 'InFormat' : ''}`;

/** The path of the labelled form: `/magazines.{format}`, `/magazines/{id}.{format}`. */
const labelledPath = (path: string) => `${path}.{format}`;

/** The parameters of a path's templates, which every method on the path shares. */
const pathParameters = (path: string, parameters: Record<string, JsonObject>): Reference[] =>
  [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => {
    const [key, parameter] = pathParameter(match[1] ?? '');
    parameters[key] = parameter;
    return ref('parameters', key);
  });

const operationObject = (
  built: Built,
  documented: Documented,
  parameters: Record<string, JsonObject>,
): OpenApiOperation => {
  const { operation, prose, method, labelled } = documented;
  const reads = method === 'GET' || method === 'HEAD';
  const parameterKeys: string[] = [];
  if (operation.query) parameterKeys.push(...queryParameters(operation.query, parameters));
  if (negotiates(operation) && !labelled) parameterKeys.push('QueryFormat');
  parameterKeys.push('QueryMock');
  if (negotiates(operation) && !labelled) parameterKeys.push('HeaderAccept');
  if (reads) parameterKeys.push('HeaderIfNoneMatch', 'HeaderIfModifiedSince');
  if (operation.ifMatch) parameterKeys.push('HeaderIfMatch', 'HeaderIfUnmodifiedSince', 'HeaderIfNoneMatchWrite');
  if (operation.idempotent) parameterKeys.push('HeaderIdempotencyKey');

  const responses: Record<string, Reference> = {};
  for (const success of operation.success)
    responses[String(success.status)] = successResponse(built, documented, success);
  if (reads) responses['304'] = notModifiedResponse(built);
  const errorCodes: Record<string, ErrorCode[]> = {};
  if (method === 'HEAD') Object.assign(responses, headErrorResponses(built));
  else
    for (const [status, codes] of errorCodesByStatus(documented)) {
      responses[String(status)] = errorResponse(built, documented, status, codes);
      errorCodes[String(status)] = codes;
    }

  const head = method === 'HEAD';
  // The plain GET (or the method itself) tells the operation; its HEAD and labelled forms refer to it.
  const description =
    !head && !labelled
      ? prose.description
      : [
          head &&
            `The same status and headers as \`${operationIdOf(operation.id, operation.method, labelled)}\`, without a body.`,
          !head && `As \`${operation.id}\`, whose description applies.`,
          labelled &&
            'The label that ends the path (`.json`, `.xml`) chooses the format: it wins over `format` and `Accept`.',
        ]
          .filter(Boolean)
          .join(' ');
  return {
    operationId: operationIdOf(operation.id, method, labelled),
    summary: `${operation.summary}${labelled ? ' (.json or .xml)' : ''}${head ? ': headers only' : ''}`,
    description,
    tags: [operation.group],
    parameters: parameterKeys.map((key) => ref('parameters', key)),
    ...(operation.body && { requestBody: ref('requestBodies', requestSchemaId(operation.body)) }),
    responses,
    security: !negotiates(operation) ? [] : reads ? [{ apiKey: [] }] : [{ sigv4: [], apiKey: [] }],
    'x-operation': operation.id,
    ...(method !== 'HEAD' && { 'x-error-codes': errorCodes }),
  };
};

/**
 * Once every operation has added its codes to the shared error components: an operation that
 * gives every code of a component needs to say nothing more; one that gives only some names them
 * beside its reference and in its `x-error-codes`.
 */
const narrowErrors = (paths: OpenApiDocument['paths'], built: Built) => {
  for (const { operation } of documentOperations({ paths })) {
    const own = operation['x-error-codes'];
    if (!own) continue;
    for (const [status, codes] of Object.entries(own)) {
      const reference = operation.responses[status];
      const shared = built.errorCodes.get(reference?.$ref.split('/').pop() ?? '');
      if (!reference || !shared)
        throw new Error(`Operation ${operation.operationId} refers to no error component for ${status}.`);
      if (codes.length === shared.size) delete own[status];
      else reference.description = errorSubset(codes as ErrorCode[]);
    }
    if (Object.keys(own).length === 0) delete operation['x-error-codes'];
  }
};

const proseOf = (operation: Operation): OperationProse => {
  const prose = (operationDocs as Record<string, OperationProse>)[operation.id];
  if (!prose) throw new Error(`Operation ${operation.id} has no prose in operation-docs.ts.`);
  return prose;
};

const requestBodies = (): Record<string, JsonObject> => {
  const bodies: Record<string, JsonObject> = {};
  for (const operation of operations as readonly Operation[]) {
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

/** The local server's address: the default of `{base_url}` where no request gives one (`npm run openapi`). */
const LOCAL_BASE_URL = 'http://127.0.0.1:3000';

const stable = `/${currentVersion}`;

/** The version prefixes as servers, the one the API's own links use first. */
export const serversFor = (baseUrl: string | undefined): JsonObject[] =>
  [...versionPrefixes]
    .sort((a, b) => Number(b === stable) - Number(a === stable))
    .map((prefix) => {
      const description =
        prefix === ''
          ? 'The latest version, without a version segment: it follows each new version, so it is not stable across releases.'
          : `Version ${currentVersion.slice(1)}${prefix === stable ? ', as the links the API writes give it' : ` under \`${prefix.slice(0, -stable.length)}\``}.`;
      if (baseUrl !== undefined) return { url: `${baseUrl}${prefix}`, description };
      return {
        url: `{base_url}${prefix}`,
        description,
        variables: {
          base_url: {
            default: LOCAL_BASE_URL,
            description:
              'The scheme, host and stage path the API is served on: `https://{api-id}.execute-api.{region}.amazonaws.com/{stage}`, a custom domain, or `http://127.0.0.1:{port}` for the local server. The document the API serves names its own.',
          },
        },
      };
    });

/** Each operation on its path, its HEAD beside each GET, and both again on the labelled path where labels apply. */
const documentedOperations = (): { path: string; documented: Documented }[] =>
  (operations as readonly Operation<ErrorCode>[]).flatMap((operation) => {
    const prose = proseOf(operation);
    const methods: HttpMethod[] = operation.method === 'GET' ? ['GET', 'HEAD'] : [operation.method];
    return [false, ...(takesLabels(operation) ? [true] : [])].flatMap((labelled) =>
      methods.map((method) => ({
        path: labelled ? labelledPath(operation.path) : operation.path,
        documented: { operation, prose, method, labelled },
      })),
    );
  });

export const buildOpenApi = (baseUrl?: string): OpenApiDocument => {
  const built: Built = { responses: {}, examples: {}, errorCodes: new Map() };
  const parameters: Record<string, JsonObject> = { ...fixedParameters };
  const paths: OpenApiDocument['paths'] = {};
  for (const { path, documented } of documentedOperations()) {
    const item =
      paths[path] ?? (pathParameters(path, parameters).length ? { parameters: pathParameters(path, parameters) } : {});
    paths[path] = item;
    item[documented.method.toLowerCase() as OperationMethod] = operationObject(built, documented, parameters);
  }
  errorComponents(built);
  narrowErrors(paths, built);
  for (const [id, value] of Object.entries(requestExamples))
    built.examples[`${id}Request`] = {
      summary: `A ${pascal(id)
        .replace(/Input$/, '')
        .toLowerCase()} request body`,
      value,
    };

  const usedParameters = new Set(
    [
      ...Object.values(paths).flatMap((item) => item.parameters ?? []),
      ...documentOperations({ paths }).flatMap(({ operation }) => operation.parameters),
    ].map((parameter) => parameter.$ref.split('/').pop() ?? ''),
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
    servers: serversFor(baseUrl),
    tags: [
      ...Object.entries(groupDescriptions).map(([name, description]) => ({ name, description })),
      { name: 'Events', description: eventsDescription },
    ],
    paths,
    webhooks: eventWebhooks(),
    components: {
      schemas: {
        ...componentSchemas(representationSchemas, 'output'),
        ...componentSchemas(requestSchemas, 'input'),
        ...eventComponentSchemas(),
      },
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
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            "The client's API key, on every path but the documentation pages and `/openapi.json`, where the deployment gives keys (production does; the testing server and `npm start` do not unless asked). A missing, unknown or revoked key is 403 (`40302`); each key belongs to a plan with a rate, a burst and a daily quota (429, `42901` and `42902`, with `Retry-After`).",
        },
      },
    },
    'x-unrouted-responses': unroutedResponses(),
  };
};

let cached: OpenApiDocument | undefined;

/** The document, built once per process, its servers under `{base_url}`. */
export const openApiDocument = (): OpenApiDocument => (cached ??= buildOpenApi());

/**
 * The document as `GET /openapi.json` serves it: its servers at the request's own base URL, as
 * compact JSON. A deployment has a handful of base URLs (its API Gateway domain and custom
 * domains); the cap keeps an instance's memory bounded whatever domains reach it.
 */
const served = new Map<string, string>();
const MAX_SERVED = 8;

/** The document as served at a base URL. */
export const openApiDocumentAt = (baseUrl: string): OpenApiDocument => ({
  ...openApiDocument(),
  servers: serversFor(baseUrl),
});

export const openApiJson = (baseUrl: string): string => {
  const known = served.get(baseUrl);
  if (known !== undefined) return known;
  const json = JSON.stringify(openApiDocumentAt(baseUrl));
  if (served.size >= MAX_SERVED) served.delete(served.keys().next().value!);
  served.set(baseUrl, json);
  return json;
};

/** The document as `npm run openapi` writes it to openapi.json: servers under `{base_url}`, indented for reading. */
export const openApiFile = (): string => `${JSON.stringify(openApiDocument(), null, 2)}\n`;
