/**
 * The paths an operation is served on: its path under each version prefix, and with a `.json` or
 * `.xml` format label where it takes one, exactly as API Gateway resources are created. The stack
 * reads them to split a label off a request; the route table expands its rows with them.
 */
import type { Operation } from './row';

/** `''` is the anonymous (latest) version. */
export const versionPrefixes = ['', '/v1', '/api/v1'] as const;
export const currentVersion = 'v1';
export const formatLabels = ['json', 'xml'] as const;

/** Resources whose representation can be chosen by a `.json`/`.xml` label on their path. */
const hasLabels = (path: string) => !path.startsWith('/documentation') && path !== '/openapi.json';

/** The version prefix a request path carries (`''`, `/v1` or `/api/v1`). */
export const versionPrefixOf = (path: string): (typeof versionPrefixes)[number] =>
  [...versionPrefixes].reverse().find((p) => p !== '' && (path === p || path.startsWith(`${p}/`))) ?? '';

/** Whether a `.json`/`.xml` at the end of a request to this API Gateway resource is a format label (not on documents, whose names end in `.html` and `.json`). */
export const resourceTakesLabels = (resource: string): boolean =>
  hasLabels(resource.slice(versionPrefixOf(resource).length));

/** Whether a `.json`/`.xml` label may end the operation's path (or its last parameter). */
export const takesLabels = (operation: Operation) =>
  hasLabels(operation.path) && (operation.labels ?? operation.method === 'GET');

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
