import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handler as getOpenApi } from '../../functions/get-openapi';
import { errorCodes } from '../../shared/http/error-catalogue';
import { buildOpenApi, type JsonObject, openApiJson } from '../../shared/openapi/document';
import { expandRoutes, resourcePaths, versionPrefixes } from '../../shared/routes';
import { schemaProblems } from '../support/contract';
import { invoke } from '../support/proxy-event';

const document = buildOpenApi();
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

describe('the OpenAPI document', () => {
  it('documents exactly the method and path pairs the route table gives API Gateway (every prefix, label and HEAD)', () => {
    const routed = expandRoutes()
      .filter((route) => route.method !== 'ANY')
      .map((route) => `${route.method} ${route.resource}`)
      .sort();
    const documented = operations.map(({ method, path }) => `${method} ${path}`).sort();
    expect(new Set(documented).size).toBe(documented.length);
    expect(documented).toEqual(routed);
    expect(routed.filter((r) => r.startsWith('HEAD ')).length).toBeGreaterThan(0);
    for (const prefix of versionPrefixes) expect(documented).toContain(`GET ${prefix}/magazines.xml`);
  });

  it('gives every operation a unique operationId that names its method, prefix and label', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/magazines']?.get?.operationId).toBe('listMagazines');
    expect(document.paths['/v1/magazines']?.get?.operationId).toBe('listMagazinesV1');
    expect(document.paths['/api/v1/magazines.json']?.get?.operationId).toBe('listMagazinesApiV1Json');
    expect(document.paths['/api/v1/magazines.xml']?.head?.operationId).toBe('headListMagazinesApiV1Xml');
  });

  it('documents every code of the error catalogue on some response', () => {
    const documented = new Set<string>();
    for (const response of [
      ...Object.values(document.components.responses),
      ...Object.values(document['x-unrouted-responses']),
    ]) {
      if (Array.isArray(response['x-error-codes']))
        for (const code of response['x-error-codes']) documented.add(String(code));
    }
    expect([...documented].sort()).toEqual([...errorCodes].sort());
  });

  it('describes JSON as text/javascript and application/json, XML as application/xml, with the headers clients rely on', () => {
    const list = document.components.responses.ListMagazines200 as JsonObject;
    expect(Object.keys(list.content as JsonObject)).toEqual(['text/javascript', 'application/json', 'application/xml']);
    expect(Object.keys(list.headers as JsonObject)).toEqual(
      expect.arrayContaining(['Vary', 'Content-Type', 'ETag', 'Last-Modified', 'Link']),
    );
    expect(
      Object.keys((document.components.responses.CreateMagazine201 as JsonObject).headers as JsonObject),
    ).toContain('Location');
    expect(Object.keys((document['x-unrouted-responses']['405'] as JsonObject).headers as JsonObject)).toContain(
      'Allow',
    );
    const parameters = Object.values(document.components.parameters).map((p) => `${String(p.in)}:${String(p.name)}`);
    for (const name of ['offset', 'limit', 'sort', 'year', 'tag', 'fields', 'format', 'mock'])
      expect(parameters).toContain(`query:${name}`);
    for (const name of ['Accept', 'If-Match', 'If-None-Match', 'If-Modified-Since'])
      expect(parameters).toContain(`header:${name}`);
  });

  it('takes the query rules from the zod schemas the handlers validate with', () => {
    const limit = document.components.parameters.QueryLimit as { description: string; schema: JsonObject };
    expect(limit.schema).toMatchObject({ type: 'string', pattern: '^\\d{1,15}$', default: '25' });
    expect(limit.description).toContain('Must be an integer from 1 to 100.');
    const resources = new Set(expandRoutes().map((r) => r.resource));
    for (const path of resourcePaths('/magazines')) expect(resources.has(path)).toBe(true);
  });

  it('has examples that fit their schemas, JSON and XML', () => {
    let checked = 0;
    const visit = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!isObject(node)) return;
      for (const [mediaType, media] of Object.entries(isObject(node.content) ? node.content : {})) {
        if (!isObject(media) || !isObject(media.examples)) continue;
        for (const example of Object.values(media.examples)) {
          const name = String((example as JsonObject).$ref)
            .split('/')
            .pop()!;
          const value = (document.components.examples[name] as JsonObject).value;
          expect(
            schemaProblems(media.schema, value, { xml: mediaType === 'application/xml' }),
            `${name} as ${mediaType}`,
          ).toEqual([]);
          checked++;
        }
      }
      Object.values(node).forEach(visit);
    };
    visit(document.components.responses);
    visit(document.components.requestBodies);
    expect(checked).toBeGreaterThan(50);
  });

  it('is what openapi.json at the repository root holds (run `npm run openapi` after changing the API)', () => {
    const written = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
    expect(written === openApiJson(), 'openapi.json is stale: run `npm run openapi`').toBe(true);
  });

  it.each(versionPrefixes.map((prefix) => [`${prefix}/openapi.json`]))(
    'is served unchanged at %s',
    async (resource) => {
      const response = await invoke(getOpenApi, { resource });
      expect(response.status).toBe(200);
      expect(response.headers['Content-Type']).toBe('application/json; charset=utf-8');
      expect(response.headers.Vary).toBe('Accept');
      expect(response.body).toBe(openApiJson());
    },
  );
});
