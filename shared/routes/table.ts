/**
 * The route table: every operation of the API, one row each. A row owns its operation: method and
 * path, handler module, the schemas of its query, body and responses, its DynamoDB grant, its
 * timeout, and the key of its prose (shared/openapi/operation-docs.ts). The local server, the CDK
 * stack, the `sam local invoke` events, the OpenAPI document and the IAM grants are all built from
 * it, and a handler binds to its row by id (`api('getMagazine', { run })`), so none can disagree.
 * Paths use API Gateway's syntax; `expandRoutes` adds the version prefixes and the format labels
 * exactly as API Gateway resources are created.
 */
import { articleInput } from '../domain/article';
import { magazineInput, magazineListInput } from '../domain/magazine';
import type { ErrorCode } from '../http/error-catalogue';
import { magazineListQuery, magazineQuery, pageQuery, tagMagazineListQuery } from '../http/query';
import {
  articleListSchema,
  articleSchema,
  idReplySchema,
  magazineListSchema,
  magazineResultSchema,
  tagListSchema,
  tagResourceSchema,
} from '../http/representations/schemas';
import { resourcePaths, takesLabels } from '../operation/paths';
import type { HttpMethod, Operation, ScheduledTask, StreamTask } from '../operation/row';

const magazineList = { status: 200, schema: magazineListSchema, example: 'MagazineList' } as const;
const idReply = (status: 200 | 201, example: string) => ({ status, schema: idReplySchema, example }) as const;

export const operations = [
  {
    id: 'listMagazines',
    method: 'GET',
    path: '/magazines',
    handler: 'list-magazines',
    group: 'Magazines',
    summary: 'List magazines',
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    query: magazineListQuery,
    success: [magazineList],
    errors: ['40004'],
    list: true,
  },
  {
    id: 'createMagazine',
    method: 'POST',
    path: '/magazines',
    handler: 'create-magazine',
    group: 'Magazines',
    summary: 'Create a magazine',
    actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
    body: magazineInput,
    success: [idReply(201, 'MagazineCreated')],
    errors: ['40009', '40010', '40014', '40502', '40901', '42201'],
    idempotent: true,
    counts: { status: 201, metric: 'MagazinesCreated' },
  },
  {
    id: 'replaceAllMagazines',
    method: 'PUT',
    path: '/magazines',
    handler: 'replace-all-magazines',
    group: 'Magazines',
    summary: 'Replace all magazines',
    actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
    body: magazineListInput,
    success: [idReply(200, 'AllMagazinesReplaced')],
    errors: ['40008', '40009', '40010', '41201'],
    ifMatch: true,
    timeoutSeconds: 25,
  },
  {
    id: 'deleteAllMagazines',
    method: 'DELETE',
    path: '/magazines',
    handler: 'delete-all-magazines',
    group: 'Magazines',
    summary: 'Delete all magazines',
    actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
    success: [idReply(200, 'AllMagazinesReplaced')],
    errors: ['41201'],
    ifMatch: true,
    timeoutSeconds: 25,
  },
  {
    id: 'getMagazine',
    method: 'GET',
    path: '/magazines/{id}',
    handler: 'get-magazine',
    group: 'Magazines',
    summary: 'Get a magazine',
    actions: ['GetItem', 'BatchGetItem'],
    query: magazineQuery,
    success: [{ status: 200, schema: magazineResultSchema, example: 'Magazine' }],
    errors: ['40402'],
  },
  {
    id: 'replaceMagazine',
    method: 'PUT',
    path: '/magazines/{id}',
    handler: 'replace-magazine',
    group: 'Magazines',
    summary: 'Create or replace a magazine',
    actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
    body: magazineInput,
    success: [idReply(200, 'MagazineReplaced'), idReply(201, 'MagazineCreated')],
    errors: ['40007', '40009', '40010', '40013', '41201'],
    ifMatch: true,
    counts: { status: 201, metric: 'MagazinesCreated' },
  },
  {
    id: 'deleteMagazine',
    method: 'DELETE',
    path: '/magazines/{id}',
    handler: 'delete-magazine',
    group: 'Magazines',
    summary: 'Delete a magazine',
    actions: [
      'GetItem',
      'BatchGetItem',
      'Query',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'BatchWriteItem',
      'ConditionCheckItem',
    ],
    success: [idReply(200, 'MagazineDeleted')],
    errors: ['40402', '41201'],
    ifMatch: true,
    counts: { status: 200, metric: 'MagazinesDeleted' },
  },
  {
    id: 'listArticles',
    method: 'GET',
    path: '/magazines/{id}/articles',
    handler: 'list-articles',
    group: 'Articles',
    summary: 'List the articles of a magazine',
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    query: pageQuery,
    success: [{ status: 200, schema: articleListSchema, example: 'ArticleList' }],
    errors: ['40004', '40402'],
    list: true,
  },
  {
    id: 'createArticle',
    method: 'POST',
    path: '/magazines/{id}/articles',
    handler: 'create-article',
    group: 'Articles',
    summary: 'Add an article to a magazine',
    actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
    body: articleInput,
    success: [idReply(201, 'ArticleCreated')],
    errors: ['40014', '40402', '40901', '42201'],
    idempotent: true,
    labels: true,
    counts: { status: 201, metric: 'ArticlesAdded' },
  },
  {
    id: 'getArticle',
    method: 'GET',
    path: '/articles/{articleId}',
    handler: 'get-article',
    group: 'Articles',
    summary: 'Get an article',
    actions: ['GetItem', 'BatchGetItem'],
    success: [{ status: 200, schema: articleSchema, example: 'Article' }],
    errors: ['40403'],
  },
  {
    id: 'listTags',
    method: 'GET',
    path: '/tags',
    handler: 'list-tags',
    group: 'Tags',
    summary: 'List tags',
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    query: pageQuery,
    success: [{ status: 200, schema: tagListSchema, example: 'TagList' }],
    errors: ['40004'],
    list: true,
  },
  {
    id: 'getTag',
    method: 'GET',
    path: '/tags/{tagId}',
    handler: 'get-tag',
    group: 'Tags',
    summary: 'Get a tag',
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    success: [{ status: 200, schema: tagResourceSchema, example: 'TagResource' }],
    errors: ['40404'],
  },
  {
    id: 'listTagMagazines',
    method: 'GET',
    path: '/tags/{tagId}/magazines',
    handler: 'list-tag-magazines',
    group: 'Tags',
    summary: 'List the magazines carrying a tag',
    actions: ['GetItem', 'BatchGetItem', 'Query'],
    query: tagMagazineListQuery,
    success: [{ ...magazineList, example: 'TagMagazineList' }],
    errors: ['40004', '40404'],
    list: true,
  },
  {
    id: 'getDocumentation',
    method: 'GET',
    path: '/documentation',
    handler: 'get-documentation',
    group: 'Documentation',
    summary: 'API reference (HTML)',
    actions: [],
    success: [{ status: 200, document: 'text/html' }],
    errors: [],
  },
  {
    id: 'listErrorPages',
    method: 'GET',
    path: '/documentation/errors',
    handler: 'list-error-pages',
    group: 'Documentation',
    summary: 'Index of error codes (HTML)',
    actions: [],
    success: [{ status: 200, document: 'text/html' }],
    errors: [],
  },
  {
    id: 'getErrorPage',
    method: 'GET',
    path: '/documentation/errors/{errorCode}',
    handler: 'get-error-page',
    group: 'Documentation',
    summary: 'Documentation of one error code (HTML)',
    actions: [],
    success: [{ status: 200, document: 'text/html' }],
    errors: ['40405'],
  },
  {
    id: 'getOpenApi',
    method: 'GET',
    path: '/openapi.json',
    handler: 'get-openapi',
    group: 'Documentation',
    summary: 'OpenAPI 3.1 document of this API',
    actions: [],
    success: [{ status: 200, document: 'application/json' }],
    errors: [],
  },
] as const satisfies readonly Operation<ErrorCode>[];

export type OperationId = (typeof operations)[number]['id'];
export type OperationOf<Id extends OperationId> = Extract<(typeof operations)[number], { readonly id: Id }>;

/** Operations that read or write the table (and so get a store). */
export type TableOperationId = Exclude<OperationOf<OperationId>, { readonly actions: readonly [] }>['id'];
/** Operations that never touch it (documents). */
export type DocumentOperationId = Exclude<OperationId, TableOperationId>;

/**
 * What API Gateway serves beside the operations: `ANY` on every resource for the methods it does
 * not support (405), and `/{proxy+}` for every path no resource matches (404).
 */
export const fallbacks = [
  { id: 'methodNotAllowed', handler: 'method-not-allowed' },
  { id: 'notFound', handler: 'not-found' },
] as const;

export type FallbackId = (typeof fallbacks)[number]['id'];
export const methodNotAllowedHandler = fallbacks[0].handler;
export const notFoundHandler = fallbacks[1].handler;

/**
 * The janitor: clears the garbage that deletions and bulk writes could not clear within their
 * request (the articles of deleted magazines, replaced generations), whether or not anyone writes.
 * Requests never wait for it: nothing it deletes is readable.
 */
export const scheduledTasks = [
  {
    id: 'sweepGarbage',
    handler: 'sweep-garbage',
    summary: 'Clears the garbage of deletions and bulk writes',
    everyMinutes: 15,
    timeoutSeconds: 300,
    actions: ['Query', 'BatchGetItem', 'BatchWriteItem'],
  },
] as const satisfies readonly ScheduledTask[];

/**
 * The folder: moves the tickets writes leave in a list's partition into its counts and blocks, so
 * that readers have few to add up. Writes never wait for it; readers are exact without it.
 */
export const streamTasks = [
  {
    id: 'foldCounts',
    handler: 'fold-counts',
    summary: 'Folds the count changes writes leave into the lists',
    newItemsPrefix: '#T',
    batchWindowSeconds: 1,
    parallelization: 10,
    timeoutSeconds: 60,
    actions: ['GetItem', 'Query', 'BatchGetItem', 'PutItem', 'DeleteItem'],
  },
  {
    id: 'publishEvents',
    handler: 'publish-events',
    summary: 'Puts every committed change on the event bus as a change event',
    // Magazines (their events and their articles'), deletion notes, head replicas: nothing else is a change.
    newItemsPrefix: ['MAGAZINE', 'DELETED#', 'HEAD'],
    changes: ['INSERT', 'MODIFY'],
    batchWindowSeconds: 1,
    // One lane: a consumer sees the events of a shard in the order they were committed.
    parallelization: 1,
    timeoutSeconds: 30,
    actions: ['BatchGetItem'],
    publishes: true,
  },
] as const satisfies readonly StreamTask[];

/** Functions no route serves, by the way they are started. */
export const backgroundTasks: readonly (ScheduledTask | StreamTask)[] = [...scheduledTasks, ...streamTasks];

export const scheduledTaskOfHandler = (handler: string): ScheduledTask | undefined =>
  (scheduledTasks as readonly ScheduledTask[]).find((task) => task.handler === handler);

export const streamTaskOfHandler = (handler: string): StreamTask | undefined =>
  (streamTasks as readonly StreamTask[]).find((task) => task.handler === handler);

/** The row a function module is built from: its operation's, or its scheduled task's. */
export const functionRowOf = (handler: string): Operation | ScheduledTask | StreamTask | undefined =>
  operationOfHandler(handler) ?? scheduledTaskOfHandler(handler) ?? streamTaskOfHandler(handler);

const byId = new Map<string, Operation>(
  (operations as readonly Operation[]).map((operation) => [operation.id, operation]),
);

export const operationById = (id: OperationId): Operation => byId.get(id) as Operation;

/** The operation a handler module serves; none for the 404 and 405 handlers. */
export const operationOfHandler = (handler: string): Operation | undefined =>
  (operations as readonly Operation[]).find((operation) => operation.handler === handler);

/** Seconds a function may run unless its row says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 10;

/** How long the function of a handler module may run, deployed or local. */
export const timeoutSecondsOf = (handler: string): number =>
  operationOfHandler(handler)?.timeoutSeconds ??
  scheduledTaskOfHandler(handler)?.timeoutSeconds ??
  streamTaskOfHandler(handler)?.timeoutSeconds ??
  DEFAULT_TIMEOUT_SECONDS;

/** What a deployment sets for every function (see infra/): the CDK stack and the local runtime both use it. */
export interface DeploymentSettings {
  readonly tableName: string;
  readonly mockEnabled: boolean;
  readonly baseUrl?: string | undefined;
  /** The secret holding the cursor key (deployed); its ARN only, never its value. */
  readonly cursorKeySecretArn?: string | undefined;
  /** A cursor key in plain text: for local runs only (the CDK stack refuses one, infra/plain-secrets.ts). */
  readonly cursorKey?: string | undefined;
  /** The `Stage` dimension of the functions' metrics. */
  readonly stage?: string | undefined;
}

/**
 * The environment of one function as deployed: only functions that use the table are told its
 * name. No `--enable-source-maps`: `npm run bench` measured it at 1.19× every cold start and 21×
 * the first error (6 → 125 ms); the `.map` files are deployed beside the code, to resolve a
 * logged stack by hand.
 */
export const functionEnvironment = (
  row: Operation | ScheduledTask | StreamTask | undefined,
  settings: DeploymentSettings,
): Record<string, string> => ({
  MOCK_ENABLED: String(settings.mockEnabled),
  ...(row && row.actions.length > 0 && { TABLE_NAME: settings.tableName }),
  ...(settings.baseUrl && { BASE_URL: settings.baseUrl }),
  ...(row &&
    'list' in row &&
    row.list &&
    settings.cursorKeySecretArn && { CURSOR_KEY_SECRET_ARN: settings.cursorKeySecretArn }),
  ...(row && 'list' in row && row.list && settings.cursorKey && { CURSOR_KEY: settings.cursorKey }),
  ...(settings.stage && { STAGE: settings.stage }),
});

export interface Route {
  readonly method: HttpMethod | 'ANY';
  /** The API Gateway resource path, as it appears in the proxy event's `resource`. */
  readonly resource: string;
  readonly handler: string;
  /** The operation served; absent for the 404/405 routes. */
  readonly operation?: Operation;
}

/**
 * Every route API Gateway has: operations, HEAD beside each GET, 405 per resource, 404 catch-all.
 * `table` is the route table's rows unless a test adds one to see what it costs.
 */
export const expandRoutes = (table: readonly Operation[] = operations): Route[] => {
  const routes: Route[] = [];
  const resources = new Set<string>();
  for (const operation of table) {
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

/** Every handler module the routes name. */
export const handlerNames = (): string[] => [...new Set(expandRoutes().map((route) => route.handler))].sort();

/** Every function module: the routes' handlers and the scheduled tasks. */
export const functionNames = (): string[] => [...handlerNames(), ...backgroundTasks.map((task) => task.handler)].sort();

let methodsByResource: Map<string, HttpMethod[]> | undefined;

/** The methods a resource path answers, for the `Allow` header; worked out once per function instance. */
export const allowedMethods = (resource: string): readonly HttpMethod[] => {
  if (!methodsByResource) {
    methodsByResource = new Map();
    for (const route of expandRoutes()) {
      if (route.method !== 'ANY')
        methodsByResource.set(route.resource, [...(methodsByResource.get(route.resource) ?? []), route.method]);
    }
  }
  return methodsByResource.get(resource) ?? [];
};

/** The resources of the API without prefix or label, such as `/magazines/{id}` (for the 404's advice). */
export const resourceList = (): string[] => [
  ...new Set((operations as readonly Operation[]).map((operation) => operation.path)),
];
