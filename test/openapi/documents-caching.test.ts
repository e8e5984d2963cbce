import { describe, expect, it } from 'vitest';
import { handler as getDocumentation } from '../../functions/get-documentation';
import { handler as getErrorPage } from '../../functions/get-error-page';
import { handler as getOpenApi } from '../../functions/get-openapi';
import { openApiDocument } from '../../shared/openapi/document';
import { invoke } from '../support/proxy-event';

/**
 * The documents (reference page, error pages, OpenAPI document) are read conditionally as the
 * representations are: what they send and honour is what the OpenAPI document says of them.
 */

type Json = Record<string, unknown>;
const document = openApiDocument() as unknown as Json;

const resolve = (value: unknown): Json => {
  const ref = (value as Json).$ref;
  if (typeof ref !== 'string') return value as Json;
  return resolve(
    ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json)[key], document),
  );
};

/** Headers every response carries that the document states once, not per response. */
const TRANSPORT = new Set(['access-control-allow-origin', 'access-control-expose-headers']);

const sentHeaders = (headers: Record<string, string>) =>
  Object.keys(headers)
    .map((name) => name.toLowerCase())
    .filter((name) => !TRANSPORT.has(name))
    .sort();

const documentedHeaders = (response: unknown) =>
  Object.keys(resolve(response).headers as Json)
    .map((name) => name.toLowerCase())
    .sort();

const DOCUMENTS = [
  { path: '/openapi.json', handler: getOpenApi, resource: '/openapi.json', params: undefined },
  { path: '/documentation', handler: getDocumentation, resource: '/v1/documentation', params: undefined },
  {
    path: '/documentation/errors/{errorCode}',
    handler: getErrorPage,
    resource: '/v1/documentation/errors/{errorCode}',
    params: { errorCode: '40401.html' },
  },
];

describe('documents: conditional reads as the OpenAPI document states them', () => {
  it.each(DOCUMENTS)(
    'GET $path: every header of its 200 and 304 is documented, and the 304 has no Content-Type',
    async ({ path, handler, resource, params }) => {
      const operation = ((document.paths as Json)[path] as Json).get as Json;
      const first = await invoke(handler, { resource, params });
      expect(first.status).toBe(200);
      expect(first.headers['Last-Modified']).toBeDefined();
      expect(documentedHeaders((operation.responses as Json)['200'])).toEqual(sentHeaders(first.headers));

      const notModified = await invoke(handler, {
        resource,
        params,
        headers: { 'If-Modified-Since': first.headers['Last-Modified'] ?? '' },
      });
      expect(notModified.status).toBe(304);
      expect(notModified.headers['Content-Type']).toBeUndefined();
      expect(documentedHeaders((operation.responses as Json)['304'])).toEqual(sentHeaders(notModified.headers));

      const parameters = (operation.parameters as unknown[]).map((parameter) => resolve(parameter).name);
      expect(parameters).toEqual(expect.arrayContaining(['If-None-Match', 'If-Modified-Since']));
    },
  );
});
