/**
 * The route table: every operation of the API, one row each. A row owns its operation: method and
 * path, handler module, the schemas of its query, body and responses, its DynamoDB grant, its
 * timeout, and the key of its prose (shared/openapi/operation-docs.ts). The local server, the CDK
 * stack, the `sam local invoke` events, the OpenAPI document and the IAM grants are all built from
 * this table, and a handler binds to the same row object (`api(row, { run })`), so none can
 * disagree. Each row is a module of its own under rows/, named as its handler, so that a
 * function's bundle carries its own row and schemas and no other operation's.
 * Paths use API Gateway's syntax; `expandRoutes` adds the version prefixes and the format labels
 * exactly as API Gateway resources are created.
 */
import type { ErrorCode } from '../http/error-catalogue';
import { resourcePaths, takesLabels } from '../operation/paths';
import type { HttpMethod, Operation, ScheduledTask, StreamTask } from '../operation/row';
import { row as createArticle } from './rows/create-article';
import { row as createMagazine } from './rows/create-magazine';
import { row as deleteAllMagazines } from './rows/delete-all-magazines';
import { row as deleteMagazine } from './rows/delete-magazine';
import { row as getArticle } from './rows/get-article';
import { row as getDocumentation } from './rows/get-documentation';
import { row as getErrorPage } from './rows/get-error-page';
import { row as getMagazine } from './rows/get-magazine';
import { row as getOpenApi } from './rows/get-openapi';
import { row as getTag } from './rows/get-tag';
import { row as listArticles } from './rows/list-articles';
import { row as listErrorPages } from './rows/list-error-pages';
import { row as listMagazines } from './rows/list-magazines';
import { row as listTagMagazines } from './rows/list-tag-magazines';
import { row as listTags } from './rows/list-tags';
import { row as replaceAllMagazines } from './rows/replace-all-magazines';
import { row as replaceMagazine } from './rows/replace-magazine';
import { backgroundTasks, scheduledTaskOfHandler, streamTaskOfHandler } from './tasks';

export const operations = [
  listMagazines,
  createMagazine,
  replaceAllMagazines,
  deleteAllMagazines,
  getMagazine,
  replaceMagazine,
  deleteMagazine,
  listArticles,
  createArticle,
  getArticle,
  listTags,
  getTag,
  listTagMagazines,
  getDocumentation,
  listErrorPages,
  getErrorPage,
  getOpenApi,
] as const satisfies readonly Operation<ErrorCode>[];

export type OperationId = (typeof operations)[number]['id'];

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

/** The row a function module is built from: its operation's, or its scheduled task's. */
export const functionRowOf = (handler: string): Operation | ScheduledTask | StreamTask | undefined =>
  operationOfHandler(handler) ?? scheduledTaskOfHandler(handler) ?? streamTaskOfHandler(handler);

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

type AllowedMethod = HttpMethod | 'OPTIONS';

let methodsByResource: Map<string, AllowedMethod[]> | undefined;

/**
 * The methods a resource path answers, for the `Allow` header: its routes', then OPTIONS, since
 * every routed resource answers the CORS preflight (API Gateway itself, and the local server as
 * it does). Worked out once per function instance.
 */
export const allowedMethods = (resource: string): readonly AllowedMethod[] => {
  if (!methodsByResource) {
    methodsByResource = new Map();
    for (const route of expandRoutes()) {
      if (route.method !== 'ANY')
        methodsByResource.set(route.resource, [...(methodsByResource.get(route.resource) ?? []), route.method]);
    }
    for (const methods of methodsByResource.values()) methods.push('OPTIONS');
  }
  return methodsByResource.get(resource) ?? [];
};

/** The resources of the API without prefix or label, such as `/magazines/{id}` (for the 404's advice). */
export const resourceList = (): string[] => [
  ...new Set((operations as readonly Operation[]).map((operation) => operation.path)),
];
