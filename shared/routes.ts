/**
 * The route table: every operation of the API as plain data. The local server, the CDK stack,
 * the `sam local invoke` events and the OpenAPI document are all built from it, so they cannot
 * disagree. Paths use API Gateway's syntax; `expandRoutes` adds the version prefixes and the
 * format labels exactly as API Gateway resources are created.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

/** What an operation may do to the table, coarsely: whether its function gets the table at all, and may change it. */
export type TableAccess = 'none' | 'read' | 'write';

/**
 * The DynamoDB actions (IAM names without `dynamodb:`) an operation's function is granted on the
 * table: exactly what its path through the repository sends. A transaction is authorised by the
 * actions of its items (`TransactWriteItems` of a Put and an Update needs PutItem and UpdateItem).
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem';

/** The actions that change the table: an operation with `access: 'read'` has none of them. */
export const writeActions: ReadonlySet<TableAction> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
]);

export interface Operation {
  /** The OpenAPI `operationId` and the stem of the function's construct id. */
  readonly id: string;
  readonly method: Exclude<HttpMethod, 'HEAD'>;
  /** Path without version prefix or label. */
  readonly path: string;
  /** Module under `functions/` (without extension) exporting `handler`. */
  readonly handler: string;
  readonly access: TableAccess;
  /** Its IAM grant on the table; the indexes get `Query` when this has it. Empty when `access` is `none`. */
  readonly actions: readonly TableAction[];
  readonly summary: string;
  /** Whether `.json`/`.xml` may end the path: every GET, and the POST the spec shows with one. */
  readonly labels?: boolean;
}

export const operations = [
  {
    id: 'listMagazines',
    method: 'GET',
    path: '/magazines',
    handler: 'list-magazines',
    access: 'read',
    actions: ['GetItem', 'Query'],
    summary: 'List magazines',
  },
  {
    id: 'createMagazine',
    method: 'POST',
    path: '/magazines',
    handler: 'create-magazine',
    access: 'write',
    actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    summary: 'Create a magazine',
  },
  {
    id: 'replaceAllMagazines',
    method: 'PUT',
    path: '/magazines',
    handler: 'replace-all-magazines',
    access: 'write',
    actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    summary: 'Replace all magazines',
  },
  {
    id: 'deleteAllMagazines',
    method: 'DELETE',
    path: '/magazines',
    handler: 'delete-all-magazines',
    access: 'write',
    actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    summary: 'Delete all magazines',
  },
  {
    id: 'getMagazine',
    method: 'GET',
    path: '/magazines/{id}',
    handler: 'get-magazine',
    access: 'read',
    actions: ['GetItem'],
    summary: 'Get a magazine',
  },
  {
    id: 'replaceMagazine',
    method: 'PUT',
    path: '/magazines/{id}',
    handler: 'replace-magazine',
    access: 'write',
    actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    summary: 'Create or replace a magazine',
  },
  {
    id: 'deleteMagazine',
    method: 'DELETE',
    path: '/magazines/{id}',
    handler: 'delete-magazine',
    access: 'write',
    actions: ['GetItem', 'Query', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    summary: 'Delete a magazine',
  },
  {
    id: 'listArticles',
    method: 'GET',
    path: '/magazines/{id}/articles',
    handler: 'list-articles',
    access: 'read',
    actions: ['GetItem', 'Query'],
    summary: 'List the articles of a magazine',
  },
  {
    id: 'createArticle',
    method: 'POST',
    path: '/magazines/{id}/articles',
    handler: 'create-article',
    access: 'write',
    actions: ['GetItem', 'PutItem', 'UpdateItem'],
    summary: 'Add an article to a magazine',
    labels: true,
  },
  {
    id: 'getArticle',
    method: 'GET',
    path: '/articles/{articleId}',
    handler: 'get-article',
    access: 'read',
    actions: ['GetItem'],
    summary: 'Get an article',
  },
  {
    id: 'listTags',
    method: 'GET',
    path: '/tags',
    handler: 'list-tags',
    access: 'read',
    actions: ['Query'],
    summary: 'List tags',
  },
  {
    id: 'getTag',
    method: 'GET',
    path: '/tags/{tagId}',
    handler: 'get-tag',
    access: 'read',
    actions: ['GetItem'],
    summary: 'Get a tag',
  },
  {
    id: 'listTagMagazines',
    method: 'GET',
    path: '/tags/{tagId}/magazines',
    handler: 'list-tag-magazines',
    access: 'read',
    actions: ['GetItem', 'Query'],
    summary: 'List the magazines carrying a tag',
  },
  {
    id: 'getDocumentation',
    method: 'GET',
    path: '/documentation',
    handler: 'get-documentation',
    access: 'none',
    actions: [],
    summary: 'API reference (HTML)',
  },
  {
    id: 'listErrorPages',
    method: 'GET',
    path: '/documentation/errors',
    handler: 'list-error-pages',
    access: 'none',
    actions: [],
    summary: 'Index of error codes (HTML)',
  },
  {
    id: 'getErrorPage',
    method: 'GET',
    path: '/documentation/errors/{errorCode}',
    handler: 'get-error-page',
    access: 'none',
    actions: [],
    summary: 'Documentation of one error code (HTML)',
  },
  {
    id: 'getOpenApi',
    method: 'GET',
    path: '/openapi.json',
    handler: 'get-openapi',
    access: 'none',
    actions: [],
    summary: 'OpenAPI 3.1 document of this API',
  },
] as const satisfies readonly Operation[];

export type OperationId = (typeof operations)[number]['id'];

/** What a deployment sets for every function (see infra/): the CDK stack and the local runtime both use it. */
export interface DeploymentSettings {
  readonly tableName: string;
  readonly mockEnabled: boolean;
  readonly baseUrl?: string | undefined;
}

/**
 * The environment of one function as deployed: only functions that use the table are told its
 * name. Source maps make a deployed function's stack traces point into the TypeScript.
 */
export const functionEnvironment = (
  operation: Operation | undefined,
  settings: DeploymentSettings,
): Record<string, string> => ({
  MOCK_ENABLED: String(settings.mockEnabled),
  ...(operation && operation.actions.length > 0 && { TABLE_NAME: settings.tableName }),
  ...(settings.baseUrl && { BASE_URL: settings.baseUrl }),
  NODE_OPTIONS: '--enable-source-maps',
});

/** The operation a handler module serves; none for the 404 and 405 handlers. */
export const operationOfHandler = (handler: string): Operation | undefined =>
  (operations as readonly Operation[]).find((operation) => operation.handler === handler);

/** Every handler module the routes name. */
export const handlerNames = (): string[] => [...new Set(expandRoutes().map((route) => route.handler))].sort();

/** Served for a known path with a method it does not support (API Gateway `ANY`). */
export const methodNotAllowedHandler = 'method-not-allowed';
/** Served for every path no resource matches (API Gateway `/{proxy+}`). */
export const notFoundHandler = 'not-found';

/** `''` is the anonymous (latest) version. */
export const versionPrefixes = ['', '/v1', '/api/v1'] as const;
export const currentVersion = 'v1';
export const formatLabels = ['json', 'xml'] as const;

/** Resources whose representation can be chosen by a `.json`/`.xml` label on their path. */
const hasLabels = (path: string) => !path.startsWith('/documentation') && path !== '/openapi.json';

/** Whether a `.json`/`.xml` at the end of a request to this API Gateway resource is a format label (not on documents, whose names end in `.html` and `.json`). */
export const resourceTakesLabels = (resource: string): boolean =>
  hasLabels(resource.slice(versionPrefixOf(resource).length));

const takesLabels = (operation: Operation) =>
  hasLabels(operation.path) && (operation.labels ?? operation.method === 'GET');

export interface Route {
  readonly method: HttpMethod | 'ANY';
  /** The API Gateway resource path, as it appears in the proxy event's `resource`. */
  readonly resource: string;
  readonly handler: string;
  /** The operation served; absent for the 404/405 routes. */
  readonly operation?: Operation;
}

const lastSegmentIsLiteral = (path: string) => !path.endsWith('}');

/**
 * The resource paths of one operation path: each version prefix, and each label where the last
 * segment is literal. Where it is a parameter (`/magazines/{id}`) API Gateway hands the label
 * over inside the parameter (`id = "1234.json"`), and the middleware splits it off.
 */
export const resourcePaths = (path: string, labels = hasLabels(path)): string[] =>
  versionPrefixes.flatMap((prefix) => {
    const base = `${prefix}${path}`;
    if (!labels || !lastSegmentIsLiteral(path)) return [base];
    return [base, ...formatLabels.map((label) => `${base}.${label}`)];
  });

/** Every route API Gateway has: operations, HEAD beside each GET, 405 per resource, 404 catch-all. */
export const expandRoutes = (): Route[] => {
  const routes: Route[] = [];
  const resources = new Set<string>();
  for (const operation of operations as readonly Operation[]) {
    for (const resource of resourcePaths(operation.path, takesLabels(operation))) {
      resources.add(resource);
      routes.push({ method: operation.method, resource, handler: operation.handler, operation });
      if (operation.method === 'GET') routes.push({ method: 'HEAD', resource, handler: operation.handler, operation });
    }
  }
  for (const resource of resources) routes.push({ method: 'ANY', resource, handler: methodNotAllowedHandler });
  routes.push({ method: 'ANY', resource: '/{proxy+}', handler: notFoundHandler });
  return routes;
};

/** The methods a resource path answers, for the `Allow` header. */
export const allowedMethods = (resource: string): readonly HttpMethod[] =>
  (methodsByResource ??= methodsOfResources()).get(resource) ?? [];

let methodsByResource: Map<string, HttpMethod[]> | undefined;

/** Worked out once per function instance, not on every 405. */
const methodsOfResources = () => {
  const methods = new Map<string, HttpMethod[]>();
  for (const route of expandRoutes()) {
    if (route.method !== 'ANY') methods.set(route.resource, [...(methods.get(route.resource) ?? []), route.method]);
  }
  return methods;
};

/** The version prefix a request path carries (`''`, `/v1` or `/api/v1`). */
export const versionPrefixOf = (path: string): (typeof versionPrefixes)[number] =>
  [...versionPrefixes].reverse().find((p) => p !== '' && (path === p || path.startsWith(`${p}/`))) ?? '';
