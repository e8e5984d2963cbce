import { expandRoutes, notFoundHandler, type Route } from '../shared/routes/table';

/** A route chosen for a request, with the path parameters API Gateway would hand over. */
export interface RouteMatch {
  readonly route: Route;
  /** URL-decoded values; `null` when the resource has no parameter, as in a REST (v1) event. */
  readonly pathParameters: Record<string, string> | null;
}

type Segment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'greedy'; readonly name: string };

interface Resource {
  readonly path: string;
  readonly segments: readonly Segment[];
  readonly routes: readonly Route[];
}

/** Lower is more specific; API Gateway prefers a literal segment, then `{param}`, then `{proxy+}`. */
const rank = { literal: 0, param: 1, greedy: 2 } as const;

const parseSegment = (text: string): Segment => {
  const greedy = /^\{([A-Za-z0-9_]+)\+\}$/.exec(text);
  if (greedy) return { kind: 'greedy', name: greedy[1]! };
  const param = /^\{([A-Za-z0-9_]+)\}$/.exec(text);
  if (param) return { kind: 'param', name: param[1]! };
  return { kind: 'literal', text };
};

const splitPath = (path: string): string[] => path.split('/').slice(1);

/** Decodes like API Gateway: a malformed escape is handed over as sent rather than refused. */
const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Binds a resource to the request's segments (still percent-encoded, so `%2F` cannot split one). */
const bind = (resource: Resource, segments: readonly string[]): Record<string, string> | undefined => {
  const params: Record<string, string> = {};
  for (const [index, segment] of resource.segments.entries()) {
    if (segment.kind === 'greedy') {
      const rest = segments.slice(index);
      if (rest.length === 0 || rest.every((s) => s === '')) return undefined;
      params[segment.name] = rest.map(decode).join('/');
      return params;
    }
    const sent = segments[index];
    if (sent === undefined) return undefined;
    if (segment.kind === 'literal' && sent !== segment.text) return undefined;
    if (segment.kind === 'param') {
      if (sent === '') return undefined;
      params[segment.name] = decode(sent);
    }
  }
  return segments.length === resource.segments.length ? params : undefined;
};

/** Segment by segment, the first difference decides: literal before `{param}` before `{proxy+}`. */
const compareSpecificity = (a: Resource, b: Resource): number => {
  const length = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const left = a.segments[i];
    const right = b.segments[i];
    if (left === undefined || right === undefined) return left === undefined ? 1 : -1;
    const difference = rank[left.kind] - rank[right.kind];
    if (difference !== 0) return difference;
  }
  return 0;
};

/**
 * The routes as deployed: the route table, plus `ANY` → not-found on the root and on resources that
 * exist only as parents (`/v1`, `/articles`), as the CDK stack adds them; without those methods API
 * Gateway would answer such paths itself rather than reach `/{proxy+}`.
 */
export const deployedRoutes = (): Route[] => {
  const routes = expandRoutes();
  const routed = new Set(routes.map((route) => route.resource));
  const parents = new Set<string>(['/']);
  for (const resource of routed) {
    const segments = splitPath(resource);
    for (let length = 1; length < segments.length; length++) parents.add(`/${segments.slice(0, length).join('/')}`);
  }
  for (const resource of parents)
    if (!routed.has(resource)) routes.push({ method: 'ANY', resource, handler: notFoundHandler });
  return routes;
};

/**
 * Matches requests to the routes of `shared/routes/table.ts` the way an API Gateway REST API
 * resolves its resource tree, so that the local server hands handlers the same `resource` and
 * `pathParameters` the deployed API does.
 */
export const createRouter = (routes: readonly Route[] = deployedRoutes()) => {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) {
    const list = byPath.get(route.resource) ?? [];
    list.push(route);
    byPath.set(route.resource, list);
  }
  const resources: Resource[] = [...byPath].map(([path, list]) => ({
    path,
    segments: splitPath(path).map(parseSegment),
    routes: list,
  }));
  resources.sort(compareSpecificity);

  return (method: string, path: string): RouteMatch | undefined => {
    // API Gateway treats `/documentation/errors/` as `/documentation/errors`.
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const segments = splitPath(trimmed);
    const upper = method.toUpperCase();
    for (const resource of resources) {
      const params = bind(resource, segments);
      if (!params) continue;
      const route = resource.routes.find((r) => r.method === upper) ?? resource.routes.find((r) => r.method === 'ANY');
      if (!route) continue;
      return { route, pathParameters: Object.keys(params).length > 0 ? params : null };
    }
    return undefined;
  };
};

export type Router = ReturnType<typeof createRouter>;
