import { expect, it } from 'vitest';
import { handler as getDocumentation } from '../../functions/get-documentation';
import { changeEventNames } from '../../shared/events/names';
import { documentOperations, openApiDocument } from '../../shared/openapi/document';
import { invoke } from '../support/proxy-event';

it('renders every operation of the OpenAPI document, self-contained', async () => {
  const response = await invoke(getDocumentation, { resource: '/v1/documentation' });
  expect(response.status).toBe(200);
  expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
  for (const { path, method, operation } of documentOperations(openApiDocument())) {
    expect(response.body).toContain(
      `id="${operation.operationId}" data-operation-id="${operation.operationId}" data-method="${method.toUpperCase()}" data-path="${path}"`,
    );
  }
  for (const schema of Object.keys(openApiDocument().components.schemas))
    expect(response.body).toContain(`id="schema-${schema}"`);
  expect(response.body).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)="(?!data:)/);
  // Its icon is in the page too: a browser asks for no /favicon.ico, which would be a 404.
  expect(response.body).toMatch(/<link rel="icon" href="data:image\/svg\+xml,/);
  expect(response.body).not.toMatch(/@import|url\(/);
});

it('gives each operation a curl line at the base URL the page was asked at, and its example response', async () => {
  const response = await invoke(getDocumentation, { resource: '/v1/documentation' });
  expect(response.body).toContain('curl -i https://api.example.com/v1/magazines/national-geographic</code>');
  expect(response.body).toContain('curl -I https://api.example.com/v1/magazines.xml</code>');
  // Its example responses' links are at that base URL too: one base URL on the page.
  expect(response.body).toContain('https://api.example.com/v1/tags/science');
  expect(response.body).not.toContain('127.0.0.1');
  expect(response.body).not.toContain('execute-api');
  expect(response.body).toMatch(
    /curl -i -X POST https:\/\/api\.example\.com\/v1\/magazines \\\n {2}-H &#39;Content-Type: application\/json&#39; \\\n {2}-d &#39;\{&quot;id&quot;:&quot;national-geographic&quot;/,
  );
  const section = response.body.slice(response.body.indexOf('id="op-getMagazine"'));
  const samples = section.slice(section.indexOf('<aside class="samples"'), section.indexOf('</aside>'));
  expect(samples).toContain('<h4>Response 200</h4>');
  expect(samples).toContain('&quot;title&quot;: &quot;National Geographic&quot;');
  expect(samples).toContain('&lt;magazine&gt;');
});

it('lists the six change events, each with its schema and a consumer’s rule pattern', async () => {
  const response = await invoke(getDocumentation, { resource: '/v1/documentation' });
  const section = /<section id="events">[\s\S]*?<\/section>/.exec(response.body)?.[0] ?? '';
  for (const name of changeEventNames) {
    expect(section).toContain(`<code>${name}</code>`);
    expect(section).toContain(`href="#schema-${name}Event"`);
  }
  expect(section).toContain('&quot;source&quot;: [&quot;magazine-api&quot;]');
});
