import fc from 'fast-check';
import type { Route } from '../../../shared/routes/table';
import { SEEDED_IDS } from './hostile-bodies';
import { anyText, encoded, identifier, percentEncode, safeDecode } from './hostile-text';

/** Request paths of hostile requests (hostile.ts): each route's parameters filled with odd segments, labels, and catch-alls kept off the routes. */

const segmentFor = (parameter: string): fc.Arbitrary<string> => {
  const aimed =
    parameter === 'articleId'
      ? fc.constantFrom(...SEEDED_IDS.map((id) => `${id}~abc~1`), 'alpha~x~0', 'alpha~x~99999999999', '~~', 'a~b')
      : parameter === 'tagId'
        ? fc.constantFrom('news', 'science', 'art-design', 'NEWS')
        : parameter === 'errorCode'
          ? fc.constantFrom('40001', '40402', '50301', '99999', '40001.html', '40402.html', 'index.html')
          : fc.constantFrom(...SEEDED_IDS);
  return fc.oneof(
    { weight: 4, arbitrary: aimed.map((id) => percentEncode(id)) },
    { weight: 2, arbitrary: identifier },
    { weight: 4, arbitrary: encoded(anyText()) },
  );
};

const proxyPath = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'magazine',
        'magazines',
        'v2',
        'api',
        'v7',
        'tags',
        'articles',
        'documentation',
        'errors',
        'x.xml',
      ),
      encoded(anyText(12)),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((segments) => `/${segments.join('/')}`);

const ROUTE_ROOTS = new Set(['', 'magazines', 'tags', 'articles', 'documentation', 'openapi.json', 'v1', 'api']);

/** A catch-all path kept off every route, so that a write sent there cannot land on an operation. */
export const offTheRoutes = (path: string) =>
  ROUTE_ROOTS.has(
    safeDecode(path.split('/')[1] ?? '')
      .toLowerCase()
      .replace(/\.(json|xml)$/, ''),
  )
    ? `/not-a-route${path}`
    : path;

/** The request path of a route: parameters filled, a label (good or not) sometimes on a last parameter. */
export const pathFor = (route: Route, labelled: boolean): fc.Arbitrary<string> => {
  if (route.resource === '/{proxy+}') return proxyPath;
  const names = [...route.resource.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] ?? '');
  if (names.length === 0) return fc.constant(route.resource);
  const label = labelled
    ? fc.option(fc.constantFrom('.json', '.xml', '.XML', '.yaml', '.html', '.json.xml', '.'), { nil: '' })
    : fc.constant('');
  return fc.tuple(fc.tuple(...names.map(segmentFor)), label).map(([values, suffix]) => {
    let i = 0;
    const path = route.resource.replace(/\{[A-Za-z0-9_]+\}/g, () => values[i++] ?? '');
    return route.resource.endsWith('}') ? `${path}${suffix}` : path;
  });
};
