import { describe, expect, it } from 'vitest';
import { TAKEN_ID_ALLOW } from '../../shared/http/domain-errors';
import { resourcePaths } from '../../shared/operation/paths';
import type { Operation } from '../../shared/operation/row';
import { suggestPath } from '../../shared/routes/suggest-path';
import { allowedMethods, expandRoutes, operations } from '../../shared/routes/table';

describe('the route table', () => {
  const routes = expandRoutes();
  const has = (method: string, resource: string) => routes.some((r) => r.method === method && r.resource === resource);

  it('serves every operation under the three prefixes', () => {
    for (const operation of operations) {
      for (const prefix of ['', '/v1', '/api/v1'])
        expect(has(operation.method, `${prefix}${operation.path}`)).toBe(true);
    }
  });

  // The input middleware takes a list's parsed query as its page parameters (a cast: the row's type cannot say it).
  it("gives every list a query that takes the page's parameters", () => {
    const lists = (operations as readonly Operation[]).filter((operation) => operation.list);
    expect(lists.length).toBeGreaterThan(0);
    for (const operation of lists)
      expect(Object.keys(operation.query?.entries ?? {}), operation.id).toEqual(
        expect.arrayContaining(['offset', 'limit', 'sort', 'cursor']),
      );
  });

  it('adds .json and .xml labels where the last segment is literal, and HEAD beside every GET', () => {
    expect(resourcePaths('/magazines')).toEqual([
      '/magazines',
      '/magazines.json',
      '/magazines.xml',
      '/v1/magazines',
      '/v1/magazines.json',
      '/v1/magazines.xml',
      '/api/v1/magazines',
      '/api/v1/magazines.json',
      '/api/v1/magazines.xml',
    ]);
    expect(resourcePaths('/magazines/{id}')).toEqual([
      '/magazines/{id}',
      '/v1/magazines/{id}',
      '/api/v1/magazines/{id}',
    ]);
    expect(has('POST', '/api/v1/magazines/{id}/articles.json')).toBe(true);
    expect(has('HEAD', '/api/v1/magazines/{id}/articles.xml')).toBe(true);
    expect(has('GET', '/openapi.json.json')).toBe(false);
    expect(has('PUT', '/magazines.json')).toBe(false);
  });

  it('answers 405 on every resource and 404 everywhere else', () => {
    const resources = new Set(routes.filter((r) => r.operation).map((r) => r.resource));
    for (const resource of resources) expect(has('ANY', resource)).toBe(true);
    expect(routes.find((r) => r.resource === '/{proxy+}')?.handler).toBe('not-found');
  });

  it('lists the methods of a resource for the Allow header', () => {
    expect(allowedMethods('/api/v1/magazines')).toEqual(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']);
    expect(allowedMethods('/api/v1/magazines.json')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(allowedMethods('/magazines/{id}/articles.json')).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
    expect(allowedMethods('/magazines/{id}/articles')).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
    expect(allowedMethods('/openapi.json')).toEqual(['GET', 'HEAD', 'OPTIONS']);
  });

  it("gives the 405 of a taken id the collection's methods but POST", () => {
    expect(TAKEN_ID_ALLOW).toBe(
      allowedMethods('/magazines')
        .filter((method) => method !== 'POST')
        .join(', '),
    );
  });

  it('suggests the path a near miss meant', () => {
    expect(suggestPath('/magazine')).toBe('/magazines');
    expect(suggestPath('/api/v1/magazine/12/article')).toBe('/api/v1/magazines/12/articles');
    expect(suggestPath('/completely/else/here/now')).toBeUndefined();
  });
});
