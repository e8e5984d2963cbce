import { expect, it } from 'vitest';
import { handler as getDocumentation } from '../../functions/get-documentation';
import { openApiDocument } from '../../shared/openapi/document';
import { invoke } from '../support/proxy-event';

it('renders every operation of the OpenAPI document, self-contained', async () => {
  const response = await invoke(getDocumentation, { resource: '/v1/documentation' });
  expect(response.status).toBe(200);
  expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
  for (const [path, item] of Object.entries(openApiDocument().paths)) {
    for (const [method, operation] of Object.entries(item)) {
      expect(response.body).toContain(
        `id="${operation.operationId}" data-operation-id="${operation.operationId}" data-method="${method.toUpperCase()}" data-path="${path}"`,
      );
    }
  }
  for (const schema of Object.keys(openApiDocument().components.schemas))
    expect(response.body).toContain(`id="schema-${schema}"`);
  expect(response.body).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/);
  expect(response.body).not.toMatch(/@import|url\(/);
});
