import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handler as getOpenApi } from '../../functions/get-openapi';
import { errorCodes } from '../../shared/http/error-catalogue';
import {
  buildOpenApi,
  documentOperations,
  type JsonObject,
  openApiDocument,
  openApiJson,
  serversFor,
} from '../../shared/openapi/document';
import { resolveRef } from '../../shared/openapi/resolve-ref';
import { formatLabels, versionPrefixes } from '../../shared/operation/paths';
import { expandRoutes, operations } from '../../shared/routes/table';
import { schemaProblems } from '../support/contract';
import { invoke } from '../support/proxy-event';

const document = buildOpenApi();
const documented = documentOperations(document);
const resolve = (value: unknown) => resolveRef(document, value, { strict: true });
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The version prefix each server adds before the document's paths. */
const serverPrefixes = document.servers.map((server) => String(server.url).replace('{base_url}', ''));

/**
 * The API Gateway resources a documented path stands for: itself, or for a labelled path
 * (`…​.{format}`) each label on a literal end (`/magazines.json`), or the parameter that API
 * Gateway hands the label over in (`/magazines/{id}`).
 */
const resourcesOf = (path: string): string[] => {
  if (!path.endsWith('.{format}')) return [path];
  const plain = path.slice(0, -'.{format}'.length);
  return plain.endsWith('}') ? [plain] : formatLabels.map((label) => `${plain}.${label}`);
};

const parametersOf = (path: string, operation: (typeof documented)[number]['operation']) =>
  [...(document.paths[path]?.parameters ?? []), ...operation.parameters].map((p) => resolve(p));

describe('the OpenAPI document', () => {
  it("lists each resource once, and the route table's method and path pairs are its paths under each server", () => {
    expect([...serverPrefixes].sort()).toEqual([...versionPrefixes].sort());
    const routed = expandRoutes()
      .filter((route) => route.method !== 'ANY')
      .map((route) => `${route.method} ${route.resource}`);
    expect(new Set(routed).size).toBe(routed.length);
    const expanded = documented.flatMap(({ path, method }) =>
      serverPrefixes.flatMap((prefix) =>
        resourcesOf(path).map((resource) => `${method.toUpperCase()} ${prefix}${resource}`),
      ),
    );
    expect([...new Set(expanded)].sort()).toEqual([...routed].sort());

    const paths = Object.keys(document.paths);
    for (const path of paths) {
      expect(versionPrefixes.filter((prefix) => prefix !== '' && path.startsWith(`${prefix}/`))).toEqual([]);
      expect(path === '/openapi.json' || !/\.(json|xml)$/.test(path), path).toBe(true);
    }
    expect(paths).toEqual(expect.arrayContaining(['/magazines', '/magazines.{format}', '/magazines/{id}.{format}']));
    expect(Object.keys(document.paths['/magazines'] ?? {}).sort()).toEqual(['delete', 'get', 'head', 'post', 'put']);
  });

  it("uses the route table's operation ids; HEAD and the labelled form derive theirs", () => {
    const ids = documented.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations)
      expect(document.paths[operation.path]?.[operation.method.toLowerCase() as 'get']?.operationId).toBe(operation.id);
    expect(document.paths['/magazines/{id}']?.head?.operationId).toBe('headMagazine');
    expect(document.paths['/magazines.{format}']?.get?.operationId).toBe('listMagazinesInFormat');
    expect(document.paths['/magazines/{id}/articles.{format}']?.post?.operationId).toBe('createArticleInFormat');
    expect(ids.filter((id) => /V1|ApiV|Json$|Xml$/.test(id))).toEqual([]);
  });

  it('is served in at most 150 KB, everything shared as a $ref', () => {
    const served = openApiJson('https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod');
    expect(Buffer.byteLength(served)).toBeLessThanOrEqual(150 * 1024);
    for (const { operation } of documented) {
      for (const parameter of operation.parameters) expect(Object.keys(parameter)).toEqual(['$ref']);
      for (const response of Object.values(operation.responses))
        expect(Object.keys(response).filter((key) => key !== 'description')).toEqual(['$ref']);
    }
    const inline = JSON.stringify(document.paths).match(/"(examples|content|schema)"/g);
    expect(inline).toBeNull();
  });

  it('names the versions as servers at the base URL of the request that asked for the document', async () => {
    const response = await invoke(getOpenApi, {
      resource: '/api/v1/openapi.json',
      headers: { Host: 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com' },
    });
    expect(response.status).toBe(200);
    const base = 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/test';
    expect(((response.json?.servers ?? []) as JsonObject[]).map((server) => server.url)).toEqual([
      `${base}/v1`,
      base,
      `${base}/api/v1`,
    ]);
    expect(response.json).toEqual({ ...openApiDocument(), servers: serversFor(base) });
  });

  it('types parameters for clients: integers, enumerations, and the headers and cursor each operation takes', () => {
    const { components } = document;
    expect(components.parameters.QueryLimit?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 25,
    });
    expect(components.parameters.QueryOffset?.schema).toEqual({ type: 'integer', minimum: 0 });
    expect(components.parameters.QueryYear?.schema).toEqual({ type: 'integer', minimum: 1000, maximum: 9999 });
    expect(components.parameters.QuerySort?.schema).toMatchObject({ enum: ['asc', 'desc'], default: 'asc' });
    expect(components.parameters.QueryFormat?.schema).toMatchObject({ enum: ['json', 'xml'] });
    expect(components.parameters.PathFormat?.schema).toMatchObject({ enum: ['json', 'xml'] });
    expect(String(components.parameters.QueryLimit?.description)).toContain('Must be an integer from 1 to 100.');

    const takes = (name: string) =>
      documented
        .filter(({ path, operation }) => parametersOf(path, operation).some((p) => p.name === name))
        .map(({ operation }) => operation.operationId)
        .sort();
    expect(takes('Idempotency-Key')).toEqual(['createArticle', 'createArticleInFormat', 'createMagazine']);
    expect(takes('If-Match')).toEqual([
      'deleteAllMagazines',
      'deleteMagazine',
      'replaceAllMagazines',
      'replaceMagazine',
    ]);
    const reads = documented.filter(({ method }) => method === 'get' || method === 'head');
    expect(takes('If-None-Match')).toEqual(
      [...reads.map(({ operation }) => operation.operationId), ...takes('If-Match')].sort(),
    );
    const lists = documented.filter(({ operation }) =>
      /^(list|head)(Magazines|Articles|Tags|TagMagazines)/.test(operation.operationId),
    );
    expect(takes('cursor')).toEqual(lists.map(({ operation }) => operation.operationId).sort());
    expect(takes('cursor').length).toBe(16);
  });

  it('types `mock` so that every value the API takes fits it (`True`, `1`, none), and no other', () => {
    const mock = document.components.parameters.QueryMock!;
    expect(mock.allowEmptyValue).toBe(true);
    for (const value of ['True', 'TRUE', 'true', '1', 'False', 'false', 'FALSE', '0', ''])
      expect(schemaProblems(mock.schema, value), value).toEqual([]);
    for (const value of ['maybe', 'yes', '2', 'truee', ' true', 'on'])
      expect(schemaProblems(mock.schema, value), value).not.toEqual([]);
  });

  it('documents the 406 of an unknown format label (`/magazines.yaml`, 40601) on every labelled operation', () => {
    const labelled = documented.filter(({ path }) => path.endsWith('.{format}'));
    expect(labelled.length).toBeGreaterThan(10);
    for (const { path, method, operation } of labelled) {
      // A HEAD answers without a body: its errors are one bodiless 4XX.
      if (method === 'head') {
        expect(operation.responses['4XX'], `${method} ${path}`).toBeDefined();
        continue;
      }
      const response = operation.responses['406'];
      expect(response, `${method} ${path}`).toBeDefined();
      expect(resolve(response)['x-error-codes'], `${method} ${path}`).toContain('40601');
      expect(operation['x-error-codes']?.['406'] ?? ['40601'], `${method} ${path}`).toContain('40601');
    }
    expect(String(document.components.parameters.PathFormat?.description)).toContain('`40601`');
  });

  it('types XML as text whose content schema gives its shape, so that clients do not parse it as JSON', () => {
    let xml = 0;
    for (const response of Object.values(document.components.responses)) {
      for (const [type, media] of Object.entries(isObject(response.content) ? response.content : {})) {
        const schema = resolve((media as JsonObject).schema);
        if (type === 'application/xml') {
          expect(schema).toMatchObject({ type: 'string', contentMediaType: 'application/xml' });
          expect(resolve(schema.contentSchema).xml).toBeDefined();
          xml++;
        } else if (type !== 'text/html') expect(schema.type, type).not.toBe('string');
      }
    }
    expect(xml).toBeGreaterThan(10);
  });

  it('never documents a path two documented paths both match (an identifier holds no `.`)', () => {
    for (const path of Object.keys(document.paths).filter((p) => p.endsWith('}.{format}'))) {
      const plain = path.slice(0, -'.{format}'.length);
      expect(document.paths[plain], plain).toBeDefined();
      const name = /\{([^}]+)\}$/.exec(plain)?.[1];
      const parameter = (document.paths[plain]?.parameters ?? []).map((p) => resolve(p)).find((p) => p.name === name);
      expect(parameter, `${plain}: {${name}}`).toBeDefined();
      for (const label of formatLabels)
        expect(schemaProblems(parameter?.schema, `abc.${label}`), `${name} = abc.${label}`).not.toEqual([]);
      expect(schemaProblems(parameter?.schema, 'abc')).toEqual([]);
    }
  });

  it('documents every code of the error catalogue on some response', () => {
    const documentedCodes = new Set<string>();
    for (const response of [
      ...Object.values(document.components.responses),
      ...Object.values(document['x-unrouted-responses']),
    ]) {
      if (Array.isArray(response['x-error-codes']))
        for (const code of response['x-error-codes']) documentedCodes.add(String(code));
    }
    expect([...documentedCodes].sort()).toEqual([...errorCodes].sort());
  });

  it("names each operation's own error codes where it gives only some of a status's", () => {
    const create = document.paths['/magazines']?.post;
    expect(create?.['x-error-codes']?.['400']).toEqual(expect.arrayContaining(['40001', '40014']));
    expect(create?.['x-error-codes']?.['400']).not.toContain('40004');
    expect(create?.responses['400']?.description).toContain('`40014` Invalid Idempotency-Key');
    for (const { operation } of documented) {
      for (const [status, codes] of Object.entries(operation['x-error-codes'] ?? {})) {
        const shared = resolve(operation.responses[status])['x-error-codes'] as string[];
        expect(shared).toEqual(expect.arrayContaining(codes));
        expect(codes.length).toBeLessThan(shared.length);
      }
    }
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
    for (const name of ['offset', 'limit', 'sort', 'year', 'tag', 'fields', 'format', 'mock', 'cursor'])
      expect(parameters).toContain(`query:${name}`);
    for (const name of ['Accept', 'If-Match', 'If-None-Match', 'If-Modified-Since', 'Idempotency-Key'])
      expect(parameters).toContain(`header:${name}`);
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
    const written = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as unknown;
    expect(written, 'openapi.json is stale: run `npm run openapi`').toEqual(JSON.parse(JSON.stringify(document)));
  });

  it.each(versionPrefixes.map((prefix) => [`${prefix}/openapi.json`]))(
    'is served unchanged at %s',
    async (resource) => {
      const response = await invoke(getOpenApi, { resource });
      expect(response.status).toBe(200);
      expect(response.headers['Content-Type']).toBe('application/json; charset=utf-8');
      expect(response.headers.Vary).toBe('Accept, Accept-Encoding');
      expect(response.body).toBe(openApiJson('https://api.example.com'));
    },
  );
});
