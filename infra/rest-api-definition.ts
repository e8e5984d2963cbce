/**
 * The REST API as API Gateway imports it: an OpenAPI document rendered from the route table
 * (`expandRoutes()`), each route an operation whose `x-amazon-apigateway-integration` calls its
 * handler's function. API Gateway builds its resources and methods from this one document, so the
 * stack holds one `AWS::ApiGateway::RestApi` instead of a CloudFormation resource per path and
 * method: a new operation path costs its function, never its prefixes, labels and methods. This is
 * not the API's public OpenAPI document (shared/openapi/), which describes the API to its clients.
 */
import { corsPreflight } from '../shared/http/cors';
import { notFoundHandler, type Route } from '../shared/routes/table';
import { gatewayResponses, quoted } from './gateway-responses';

/** Methods that change data: signed with SigV4 (IAM authorization); everything else is public. */
export const writeMethods: ReadonlySet<Route['method']> = new Set(['POST', 'PUT', 'DELETE']);

/** The security scheme of a signed method; API Gateway reads it as `AWS_IAM` authorization. */
export const sigV4SchemeName = 'sigv4';

/** The security scheme of a method that needs an API key (`x-api-key`); API Gateway reads it as `apiKeyRequired`. */
export const apiKeySchemeName = 'api_key';

/** The documentation pages and `/openapi.json`: open to anyone, key or not, so that a client can learn to get one. */
export const isDocumentationRoute = (route: Route) =>
  Boolean(route.operation?.success.some((success) => 'document' in success));

const preflightHeaders: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': corsPreflight.allowOrigin,
  'Access-Control-Allow-Methods': corsPreflight.allowMethods.join(','),
  'Access-Control-Allow-Headers': corsPreflight.allowHeaders.join(','),
  'Access-Control-Max-Age': String(corsPreflight.maxAgeSeconds),
};

/** CORS preflight, answered by API Gateway itself (a mock integration) without calling a function. */
const preflight = {
  responses: {
    '204': {
      description: 'CORS preflight',
      headers: Object.fromEntries(Object.keys(preflightHeaders).map((name) => [name, { schema: { type: 'string' } }])),
    },
  },
  'x-amazon-apigateway-integration': {
    type: 'mock',
    requestTemplates: { 'application/json': '{ "statusCode": 200 }' },
    passthroughBehavior: 'when_no_match',
    responses: {
      default: {
        statusCode: '204',
        responseParameters: Object.fromEntries(
          Object.entries(preflightHeaders).map(([name, value]) => [`method.response.header.${name}`, quoted(value)]),
        ),
      },
    },
  },
};

/** `GET` → `get`; API Gateway's own key for `ANY`. */
const methodKey = (method: Route['method']) =>
  method === 'ANY' ? 'x-amazon-apigateway-any-method' : method.toLowerCase();

/** The paths API Gateway creates as parents only (`/v1`, `/api`, `/articles`), and the root. */
const parentOnlyPaths = (routed: ReadonlySet<string>): string[] => {
  const parents = new Set<string>(['/']);
  for (const path of routed) {
    const segments = path.split('/').filter(Boolean);
    for (let length = 1; length < segments.length; length++) parents.add(`/${segments.slice(0, length).join('/')}`);
  }
  return [...parents].filter((path) => !routed.has(path)).sort();
};

export interface RestApiDefinitionProps {
  readonly title: string;
  readonly description: string;
  readonly routes: readonly Route[];
  /** The ARN API Gateway invokes for a handler: its function, or in prod its `live` alias. */
  readonly invokeArn: (handler: string) => string;
  /** The partition and region of the integration URIs (tokens in the stack). */
  readonly partition: string;
  readonly region: string;
  readonly baseUrl: string | undefined;
  /** Whether every route but the documentation requires an API key. */
  readonly apiKeyRequired: boolean;
}

/**
 * The OpenAPI 3 document of the REST API: every route with its integration and authorisation,
 * CORS preflight on every routed path, the parent-only paths and the root sent to the 404
 * function (otherwise API Gateway answers them with its own 403), and the gateway responses.
 */
export const restApiDefinition = (props: RestApiDefinitionProps): Record<string, unknown> => {
  const integration = (handler: string) => ({
    type: 'aws_proxy',
    httpMethod: 'POST',
    uri: `arn:${props.partition}:apigateway:${props.region}:lambda:path/2015-03-31/functions/${props.invokeArn(handler)}/invocations`,
    passthroughBehavior: 'when_no_match',
  });
  const paths: Record<string, Record<string, unknown>> = {};
  const pathItem = (path: string) => {
    paths[path] ??= {};
    return paths[path];
  };
  // The documentation's paths are open whatever the method, so that a wrong method there is still a 405.
  const documentation = new Set(props.routes.filter(isDocumentationRoute).map((route) => route.resource));
  const security = (route: Route) => {
    const schemes = {
      ...(writeMethods.has(route.method) && { [sigV4SchemeName]: [] }),
      ...(props.apiKeyRequired && !documentation.has(route.resource) && { [apiKeySchemeName]: [] }),
    };
    return Object.keys(schemes).length > 0 ? { security: [schemes] } : {};
  };
  const routed = new Set<string>();
  for (const route of props.routes) {
    const canonical =
      route.operation &&
      route.method === route.operation.method &&
      route.resource === route.operation.path &&
      route.operation.id;
    pathItem(route.resource)[methodKey(route.method)] = {
      // operationId is unique in a document: only the unprefixed, unlabelled route of an operation carries it.
      ...(canonical && { operationId: canonical }),
      ...security(route),
      responses: {},
      'x-amazon-apigateway-integration': integration(route.handler),
    };
    if (route.resource !== '/{proxy+}') routed.add(route.resource);
  }
  for (const path of routed) pathItem(path).options = preflight;
  for (const path of parentOnlyPaths(routed)) {
    pathItem(path)[methodKey('ANY')] = {
      ...(props.apiKeyRequired && { security: [{ [apiKeySchemeName]: [] }] }),
      responses: {},
      'x-amazon-apigateway-integration': integration(notFoundHandler),
    };
  }
  return {
    openapi: '3.0.1',
    info: { title: props.title, description: props.description, version: '1' },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        [sigV4SchemeName]: {
          type: 'apiKey',
          name: 'Authorization',
          in: 'header',
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
        ...(props.apiKeyRequired && { [apiKeySchemeName]: { type: 'apiKey', name: 'x-api-key', in: 'header' } }),
      },
    },
    ...(props.apiKeyRequired && { 'x-amazon-apigateway-api-key-source': 'HEADER' }),
    'x-amazon-apigateway-gateway-responses': gatewayResponses(props.baseUrl),
  };
};
