import fc from 'fast-check';
import { resourceTakesLabels } from '../../../shared/operation/paths';
import type { Operation } from '../../../shared/operation/row';
import { allowedMethods, expandRoutes, type Route } from '../../../shared/routes/table';
import {
  badArticle,
  badMagazine,
  deeplyNested,
  type Json,
  MALFORMED,
  obj,
  renderJson,
  SEEDED_IDS,
  tooLarge,
  validArticle,
  validMagazine,
} from './hostile-bodies';
import {
  ACCEPTED,
  ACCEPTS,
  noiseHeaders,
  pairFor,
  type QueryPair,
  renderQuery,
  schemaKeys,
  UNACCEPTABLE,
} from './hostile-headers';
import { offTheRoutes, pathFor } from './hostile-paths';
import { identifier, percentEncode, safeDecode } from './hostile-text';
import type { WireRequest } from './wire';

export { SEEDED_IDS, SEEDED_WITH_ARTICLES } from './hostile-bodies';
export { SPEC_ACCEPT } from './hostile-headers';

/**
 * Hostile requests, generated from the route table: every route (each prefix, each label, HEAD,
 * the 405 of every resource, the 404 catch-all) with odd path segments, query values at and past
 * their limits (taken from each row's query schema), repeated query keys, odd headers and header
 * names, and bad bodies for each row's body schema. A write (POST, PUT, DELETE, PATCH) always
 * carries a defect that must make the API refuse it, so that any change to what clients see is a
 * state change from a refused write, unless `mock` made it a rehearsal that touches nothing.
 */

export const routes: readonly Route[] = expandRoutes();

// ---------------------------------------------------------------------------------------------
// Writes and their defects

export type Defect =
  | 'body'
  | 'malformed'
  | 'empty'
  | 'deep'
  | 'contentType'
  | 'idempotencyKey'
  | 'existingId'
  | 'ifMatch'
  | 'pathId'
  | 'idMismatch'
  | 'unknownId'
  | 'tooLarge'
  | 'unacceptable'
  | 'method';

const BAD_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/json',
  'application/jsonx',
  '*/*',
  'json',
] as const;

const JSON_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/javascript',
  'application/merge-patch+json',
  'APPLICATION/JSON',
] as const;

const BAD_KEYS = ['', '   ', 'k'.repeat(256), 'clé', 'a\tb', '\xff\xfe'] as const;
const BOGUS_ETAGS = ['"nope"', 'W/"nope"', '"', '""', ',', '', '"a", "b"', `"${'x'.repeat(300)}"`, 'alpha'] as const;

export interface HostileCase {
  readonly request: WireRequest;
  /** The route the request was made for (a path with odd segments may still land on the 404). */
  readonly resource: string;
  /** The defect that must get a write refused; undefined for reads. */
  readonly defect: Defect | undefined;
}

const isWrite = (method: string) => ['POST', 'PUT', 'DELETE', 'PATCH'].includes(method);

const defectsOf = (route: Route, method: string): Defect[] => {
  const operation = route.operation;
  if (!operation || route.method === 'ANY' || operation.method !== method) return ['method'];
  const labelled = /\.(json|xml)$/.test(route.resource);
  const negotiable: Defect[] = labelled ? [] : ['unacceptable'];
  const withBody: Defect[] = ['body', 'malformed', 'empty', 'deep', 'contentType', 'tooLarge'];
  switch (operation.id) {
    case 'createMagazine':
      return [...withBody, 'idempotencyKey', 'existingId', ...negotiable];
    case 'replaceMagazine':
      return [...withBody, 'ifMatch', 'pathId', 'idMismatch', ...negotiable];
    case 'deleteMagazine':
      return ['ifMatch', 'unknownId', 'pathId', ...negotiable];
    case 'replaceAllMagazines':
      return [...withBody, 'ifMatch', ...negotiable];
    case 'deleteAllMagazines':
      return ['ifMatch', ...negotiable];
    case 'createArticle':
      return [...withBody, 'idempotencyKey', 'unknownId', 'pathId', ...negotiable];
    default:
      return ['method'];
  }
};

const validBodyFor = (operation: Operation | undefined, pathId: string | undefined): fc.Arbitrary<Json> => {
  switch (operation?.id) {
    case 'createMagazine':
      return validMagazine(fc.option(fc.constantFrom('hostile-new', 'zz9'), { nil: undefined }));
    case 'replaceMagazine':
      return validMagazine(fc.option(fc.constant(pathId ?? 'x'), { nil: undefined }));
    case 'replaceAllMagazines':
      return fc
        .uniqueArray(identifier, { maxLength: 3 })
        .chain((ids) => fc.tuple(...ids.map((id) => validMagazine(fc.constant(id)))))
        .map((list) => list as Json[]);
    case 'createArticle':
      return validArticle;
    default:
      return fc.constant(obj({}));
  }
};

const badBodyFor = (operation: Operation | undefined): fc.Arbitrary<Json> => {
  switch (operation?.id) {
    case 'createArticle':
      return badArticle;
    case 'replaceAllMagazines':
      return fc.oneof(
        fc.constantFrom<Json>(obj({ title: 'x' }), null, 'x', 1),
        fc
          .tuple(fc.array(validMagazine(identifier), { maxLength: 2 }), badMagazine)
          .map(([good, bad]) => [...good, bad]),
        validMagazine(fc.constant('twice')).map((m) => [m, m]),
      );
    default:
      return badMagazine;
  }
};

interface Parts {
  path: string;
  query: readonly QueryPair[];
  queryStyle: 'encoded' | 'raw' | 'bare';
  accept: string | undefined;
  noise: [string, string][];
}

/** A write aimed at a seeded magazine (or at none), with exactly the parts its defect needs. */
const writeCase = (route: Route, method: string, parts: Parts): fc.Arbitrary<HostileCase> =>
  fc.constantFrom(...defectsOf(route, method)).chain((defect) => {
    const operation = route.operation;
    const idInPath = /\{id\}/.test(route.resource);
    const target = idInPath
      ? defect === 'pathId'
        ? fc.constantFrom('-x', '_x', 'a'.repeat(65), 'a.b', 'é', '__proto__', '%zz', ' ')
        : defect === 'unknownId'
          ? fc.constantFrom('no-such', 'ghost-1')
          : fc.constantFrom(...SEEDED_IDS)
      : fc.constant(undefined);
    return target.chain((id) => {
      const path =
        id === undefined ? parts.path : route.resource.replace('{id}', id === '%zz' ? id : percentEncode(id));
      const body: fc.Arbitrary<string | undefined> = !operation?.body
        ? fc.constant(undefined)
        : defect === 'body'
          ? badBodyFor(operation).map(renderJson)
          : defect === 'malformed'
            ? fc.constantFrom(...MALFORMED)
            : defect === 'empty'
              ? fc.constantFrom('', '   ', '\n')
              : defect === 'deep'
                ? fc.integer({ min: 100, max: 20_000 }).map(deeplyNested)
                : defect === 'tooLarge'
                  ? fc.constant(tooLarge())
                  : defect === 'existingId'
                    ? fc
                        .constantFrom(...SEEDED_IDS)
                        .chain((seeded) => validMagazine(fc.constant(seeded)).map(renderJson))
                    : defect === 'idMismatch'
                      ? validMagazine(fc.constant('someone-else')).map(renderJson)
                      : validBodyFor(operation, id).map(renderJson);
      const contentType: fc.Arbitrary<string | undefined> =
        body === undefined || !operation?.body
          ? fc.constant(undefined)
          : defect === 'contentType'
            ? fc.constantFrom(...BAD_CONTENT_TYPES)
            : fc.option(fc.constantFrom(...JSON_CONTENT_TYPES), { nil: undefined });
      const key: fc.Arbitrary<string | undefined> = !operation?.idempotent
        ? fc.constant(undefined)
        : defect === 'idempotencyKey'
          ? fc.constantFrom(...BAD_KEYS)
          : fc.option(fc.uuid(), { nil: undefined });
      const ifMatch = defect === 'ifMatch' ? fc.constantFrom(...BOGUS_ETAGS) : fc.constant(undefined);
      const accept = defect === 'unacceptable' ? fc.constantFrom(...UNACCEPTABLE) : fc.constant(parts.accept);
      return fc.record({ body, contentType, key, ifMatch, accept }).map((chosen): HostileCase => {
        // A `format` would choose the format that an unacceptable Accept leaves none of.
        const query = defect === 'unacceptable' ? parts.query.filter(([k]) => k !== 'format') : parts.query;
        const headers: [string, string][] = [
          ...(chosen.accept === undefined ? [] : [['Accept', chosen.accept] as [string, string]]),
          ...(chosen.contentType === undefined ? [] : [['Content-Type', chosen.contentType] as [string, string]]),
          ...(chosen.key === undefined ? [] : [['Idempotency-Key', chosen.key] as [string, string]]),
          ...(chosen.ifMatch === undefined ? [] : [['If-Match', chosen.ifMatch] as [string, string]]),
          ...parts.noise.filter(([name]) => !/^(accept|content-type|if-match|idempotency-key)$/i.test(name)),
        ];
        return {
          request: {
            method,
            path: `${path}${renderQuery(query, parts.queryStyle)}`,
            headers,
            ...(chosen.body !== undefined && { body: chosen.body }),
          },
          resource: route.resource,
          defect,
        };
      });
    });
  });

const methodsFor = (route: Route): readonly string[] => {
  if (route.resource === '/{proxy+}') return ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
  if (route.method !== 'ANY') return [route.method];
  const allowed = allowedMethods(route.resource);
  // OPTIONS is in Allow since the preflight answers it on every resource: still sent, to hold it to that.
  return ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].filter(
    (method) => method === 'OPTIONS' || !allowed.includes(method as never),
  );
};

/** A hostile request for one route of the table. */
const caseFor = (route: Route): fc.Arbitrary<HostileCase> => {
  const methods = methodsFor(route);
  const keys = [...schemaKeys(route.operation), 'format', 'mock'];
  return fc.constantFrom(...(methods.length > 0 ? methods : ['PATCH'])).chain((method) =>
    fc
      .record({
        path: pathFor(route, !isWrite(method)).map((path) =>
          route.resource === '/{proxy+}' && isWrite(method) ? offTheRoutes(path) : path,
        ),
        query: fc.array(pairFor(keys), { maxLength: 5 }),
        queryStyle: fc.constantFrom<'encoded' | 'raw' | 'bare'>('encoded', 'encoded', 'raw', 'bare'),
        accept: fc.option(fc.constantFrom(...ACCEPTS), { nil: undefined }),
        noise: noiseHeaders(method),
      })
      .chain((parts) => {
        if (isWrite(method)) return writeCase(route, method, parts);
        const headers: [string, string][] = [
          ...(parts.accept === undefined ? [] : [['Accept', parts.accept] as [string, string]]),
          ...parts.noise,
        ];
        return fc.constant<HostileCase>({
          request: { method, path: `${parts.path}${renderQuery(parts.query, parts.queryStyle)}`, headers },
          resource: route.resource,
          defect: undefined,
        });
      }),
  );
};

/** Every route of the table is drawn alike. */
export const hostileCase: fc.Arbitrary<HostileCase> = fc
  .integer({ min: 0, max: routes.length - 1 })
  .chain((index) => caseFor(routes[index] as Route));

// ---------------------------------------------------------------------------------------------
// What a client may conclude from the request alone

const lastQueryValue = (path: string, name: string): string | undefined => {
  const search = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  let found: string | undefined;
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = safeDecode(equals === -1 ? pair : pair.slice(0, equals));
    if (key === name) found = equals === -1 ? '' : safeDecode(pair.slice(equals + 1));
  }
  return found;
};

/** Whether `mock` turned the request into a rehearsal (a write then touches nothing, whatever it answers). */
export const isMock = (request: WireRequest): boolean => {
  const value = lastQueryValue(request.path, 'mock');
  return value !== undefined && (value === '' || value === '1' || value.toLowerCase() === 'true');
};

/**
 * The format the error of this request must come in, where the rules leave no doubt: the label
 * decides, else `format`, else a plain `Accept`, else JSON; a label or `format` that is no format
 * gets a 406 in JSON, as do documents' errors (and any 406: a label in capitals on a path outside
 * the routes is a 406 too). Undefined where it takes a careful reading.
 */
export const negotiatedFormat = (request: WireRequest, resource: string): 'json' | 'xml' | undefined => {
  const path = request.path.split('?')[0] ?? '';
  const isDocument = !resourceTakesLabels(resource);
  const operationDocument = isDocument && !/\{proxy\+\}/.test(resource);
  if (operationDocument && (request.method === 'GET' || request.method === 'HEAD')) return 'json';
  let label: string | undefined;
  if (resource === '/{proxy+}') {
    const found = /\.([A-Za-z0-9]+)$/.exec(path)?.[1];
    label = found === 'json' || found === 'xml' ? found : undefined;
  } else if (!isDocument && resource.endsWith('}')) {
    const last = safeDecode(path.slice(path.lastIndexOf('/') + 1));
    label = /\.([A-Za-z0-9]+)$/.exec(last)?.[1];
  } else if (!isDocument) {
    label = /\.(json|xml)$/.exec(resource)?.[1];
  }
  // Labels are lower case (`.XML` is no label); the `format` parameter is read in any case.
  const known = (value: string) => (value === 'json' || value === 'xml' ? value : 'json');
  if (label !== undefined) return known(label);
  const format = lastQueryValue(request.path, 'format');
  if (format !== undefined) return known(format.toLowerCase());
  const accepts = (request.headers ?? []).filter(([name]) => name.toLowerCase() === 'accept');
  if (accepts.length === 0) return 'json';
  if (accepts.length > 1) return undefined;
  const accepted = ACCEPTED[accepts[0]?.[1] ?? ''];
  return accepted === 'none' ? 'json' : accepted;
};

export const isWriteRequest = (request: WireRequest) => isWrite(request.method);
