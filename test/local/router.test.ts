import { describe, expect, it } from 'vitest';
import { createRouter } from '../../local/router';
import type { Route } from '../../shared/routes/table';

const route = createRouter();

describe('router over the route table', () => {
  it('hands a format label on an identifier over inside the parameter, as API Gateway does', () => {
    const match = route('GET', '/magazines/1234.json');
    expect(match?.route.resource).toBe('/magazines/{id}');
    expect(match?.route.handler).toBe('get-magazine');
    expect(match?.pathParameters).toEqual({ id: '1234.json' });
  });

  it('matches a labelled collection to its literal resource, without path parameters', () => {
    const match = route('GET', '/magazines.json');
    expect(match?.route.resource).toBe('/magazines.json');
    expect(match?.route.handler).toBe('list-magazines');
    expect(match?.pathParameters).toBeNull();
  });

  it('matches versioned paths to their own resources', () => {
    const match = route('POST', '/api/v1/magazines/abc/articles');
    expect(match?.route.resource).toBe('/api/v1/magazines/{id}/articles');
    expect(match?.route.handler).toBe('create-article');
    expect(match?.pathParameters).toEqual({ id: 'abc' });
  });

  it('serves HEAD with the GET handler through its own HEAD method', () => {
    const match = route('HEAD', '/v1/tags/science/magazines.xml');
    expect(match?.route).toMatchObject({
      method: 'HEAD',
      resource: '/v1/tags/{tagId}/magazines.xml',
      handler: 'list-tag-magazines',
    });
    expect(match?.pathParameters).toEqual({ tagId: 'science' });
  });

  it('prefers the exact method over ANY on the same resource', () => {
    expect(route('DELETE', '/magazines/abc')?.route).toMatchObject({ method: 'DELETE', handler: 'delete-magazine' });
    expect(route('POST', '/magazines/abc')?.route).toMatchObject({
      method: 'ANY',
      resource: '/magazines/{id}',
      handler: 'method-not-allowed',
    });
    expect(route('PATCH', '/magazines')?.route).toMatchObject({
      method: 'ANY',
      resource: '/magazines',
      handler: 'method-not-allowed',
    });
  });

  it('falls back to {proxy+} for unknown paths, with the rest of the path as `proxy`', () => {
    expect(route('GET', '/magazine')).toMatchObject({
      route: { resource: '/{proxy+}', handler: 'not-found' },
      pathParameters: { proxy: 'magazine' },
    });
    expect(route('GET', '/v2/magazines/1')).toMatchObject({
      route: { handler: 'not-found' },
      pathParameters: { proxy: 'v2/magazines/1' },
    });
    expect(route('GET', '/magazines/abc/articles/extra')?.route.handler).toBe('not-found');
  });

  it('does not let a parameter match an empty segment', () => {
    expect(route('GET', '/magazines//articles')?.route.handler).toBe('not-found');
  });

  it('ignores a trailing slash', () => {
    expect(route('GET', '/documentation/errors/')?.route).toMatchObject({
      resource: '/documentation/errors',
      handler: 'list-error-pages',
    });
    expect(route('GET', '/magazines/abc/')).toMatchObject({
      route: { resource: '/magazines/{id}' },
      pathParameters: { id: 'abc' },
    });
  });

  it('keeps the `.html` of an error page inside the parameter', () => {
    expect(route('GET', '/v1/documentation/errors/41301.html')).toMatchObject({
      route: { resource: '/v1/documentation/errors/{errorCode}', handler: 'get-error-page' },
      pathParameters: { errorCode: '41301.html' },
    });
  });

  it('URL-decodes parameters after splitting, so an encoded slash stays inside one', () => {
    expect(route('GET', '/magazines/a%20b%C3%A9')?.pathParameters).toEqual({ id: 'a bé' });
    expect(route('GET', '/magazines/a%2Fb')).toMatchObject({
      route: { resource: '/magazines/{id}' },
      pathParameters: { id: 'a/b' },
    });
  });

  it('sends the root and resources that exist only as parents to not-found, as the deployed API does', () => {
    expect(route('GET', '/')).toMatchObject({
      route: { method: 'ANY', resource: '/', handler: 'not-found' },
      pathParameters: null,
    });
    expect(route('GET', '/v1')).toMatchObject({
      route: { resource: '/v1', handler: 'not-found' },
      pathParameters: null,
    });
    expect(route('GET', '/api/v1/articles')).toMatchObject({
      route: { resource: '/api/v1/articles', handler: 'not-found' },
      pathParameters: null,
    });
  });
});

describe('router precedence', () => {
  const routes: Route[] = [
    { method: 'GET', resource: '/things/{id}', handler: 'by-id' },
    { method: 'GET', resource: '/things/special', handler: 'special' },
    { method: 'ANY', resource: '/things/special', handler: 'special-any' },
    { method: 'GET', resource: '/things/{id}/parts', handler: 'parts' },
    { method: 'ANY', resource: '/{proxy+}', handler: 'fallback' },
  ];
  const custom = createRouter(routes);

  it('prefers a literal segment to a parameter, whatever the order of the table', () => {
    expect(custom('GET', '/things/special')?.route.handler).toBe('special');
    expect(custom('GET', '/things/other')?.route.handler).toBe('by-id');
    expect(custom('PUT', '/things/special')?.route.handler).toBe('special-any');
  });

  it('treats {proxy+} as the last resort, also for a method a matching resource lacks', () => {
    expect(custom('GET', '/things/special/parts')?.route.handler).toBe('parts');
    expect(custom('PUT', '/things/other')?.route.handler).toBe('fallback');
    expect(custom('GET', '/elsewhere/deep/path')).toMatchObject({
      route: { handler: 'fallback' },
      pathParameters: { proxy: 'elsewhere/deep/path' },
    });
  });
});
