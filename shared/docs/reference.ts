import type { Links } from '../http/links';
import type { JsonObject, OpenApiDocument, OpenApiOperation } from '../openapi/document';
import { resolveRef } from '../openapi/resolve-ref';
import { escapeHtml, markdown, page } from './html';

/**
 * The HTML API reference, rendered from the OpenAPI document alone: what the page shows is what
 * the document says. Operations that differ only by version prefix or format label are shown
 * once, with every concrete method, path and operationId listed in their section.
 */

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const refName = (value: unknown) =>
  isObject(value) && typeof value.$ref === 'string' ? value.$ref.split('/').pop() : undefined;

const schemaLink = (name: string) => `<a href="#schema-${escapeHtml(name)}"><code>${escapeHtml(name)}</code></a>`;

/** A one-line description of a schema: its type and rules. */
const typeOf = (schema: unknown): string => {
  const name = refName(schema);
  if (name) return schemaLink(name);
  if (!isObject(schema)) return '<span class="muted">any</span>';
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(typeOf).join(' or ');
  if (schema.type === 'array')
    return `array of ${typeOf(schema.items)}${typeof schema.maxItems === 'number' ? ` (at most ${schema.maxItems})` : ''}`;
  const rules: string[] = [];
  if (schema.const !== undefined) rules.push(`always <code>${escapeHtml(JSON.stringify(schema.const))}</code>`);
  if (Array.isArray(schema.enum))
    rules.push(`one of ${schema.enum.map((v) => `<code>${escapeHtml(String(v))}</code>`).join(', ')}`);
  if (typeof schema.minLength === 'number' || typeof schema.maxLength === 'number')
    rules.push(`${schema.minLength ?? 0} to ${schema.maxLength ?? '∞'} characters`);
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number')
    rules.push(`${schema.minimum ?? '−∞'} to ${schema.maximum ?? '∞'}`);
  if (typeof schema.pattern === 'string') rules.push(`matches <code>${escapeHtml(schema.pattern)}</code>`);
  if (typeof schema.format === 'string') rules.push(`format <code>${escapeHtml(schema.format)}</code>`);
  if (schema.default !== undefined) rules.push(`default <code>${escapeHtml(String(schema.default))}</code>`);
  const type = typeof schema.type === 'string' ? schema.type : Array.isArray(schema.anyOf) ? '' : 'any';
  return `<code>${escapeHtml(type)}</code>${rules.length ? `: ${rules.join('; ')}` : ''}`;
};

const methodBadge = (method: string) => `<span class="method ${method}">${method.toUpperCase()}</span>`;

interface Concrete {
  readonly method: string;
  readonly path: string;
  readonly operation: OpenApiOperation;
}

const pretty = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

export const renderReference = (document: OpenApiDocument, links: Links): string => {
  const resolve = (value: unknown): JsonObject => resolveRef(document, value);
  const concrete: Concrete[] = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation: operation as OpenApiOperation })),
  );
  const groups = new Map<string, Concrete[]>();
  for (const entry of concrete) {
    const key = entry.operation['x-operation'];
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const canonical = (entries: Concrete[]) =>
    entries.find((e) => e.method !== 'head' && e.operation.operationId === e.operation['x-operation']) ?? entries[0]!;

  const parametersTable = (operation: OpenApiOperation) => {
    const rows = operation.parameters.map((p) => {
      const parameter = resolve(p);
      return `<tr><td><code>${escapeHtml(String(parameter.name))}</code></td><td>${escapeHtml(String(parameter.in))}${parameter.required ? ' <span class="badge">required</span>' : ''}</td><td>${typeOf(parameter.schema)}</td><td>${markdown(String(parameter.description ?? ''))}</td></tr>`;
    });
    return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Schema</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  };

  const examplesOf = (media: JsonObject, shown = new Set<string>()) =>
    Object.entries(isObject(media.examples) ? media.examples : {})
      .filter(([name]) => !shown.has(name) && Boolean(shown.add(name)))
      .map(([name, example]) => {
        const resolved = resolve(example);
        return `<details><summary>Example ${escapeHtml(name)}${resolved.summary ? `: ${escapeHtml(String(resolved.summary))}` : ''}</summary><pre><code>${escapeHtml(pretty(resolved.value))}</code></pre></details>`;
      })
      .join('');

  const requestBody = (operation: OpenApiOperation) => {
    if (!operation.requestBody) return '';
    const body = resolve(operation.requestBody);
    const content = isObject(body.content) ? body.content : {};
    const [firstType, firstMedia] = Object.entries(content)[0] ?? [];
    const media = resolve(firstMedia);
    return `<h4>Request body</h4>${markdown(String(body.description ?? ''))}<p>Media types: ${Object.keys(content)
      .map((t) => `<code>${escapeHtml(t)}</code>`)
      .join(', ')}. Schema: ${typeOf(media.schema)}.</p>${firstType ? examplesOf(media) : ''}`;
  };

  const responsesTable = (operation: OpenApiOperation) => {
    const rows = Object.entries(operation.responses).map(([status, reference]) => {
      const response = resolve(reference);
      const content = isObject(response.content) ? response.content : {};
      const mediaTypes = Object.keys(content);
      const schema = mediaTypes[0] ? resolve(content[mediaTypes[0]]).schema : undefined;
      const headers = Object.keys(isObject(response.headers) ? response.headers : {});
      const shown = new Set<string>();
      const examples = Object.values(content)
        .map((media) => examplesOf(resolve(media), shown))
        .join('');
      return `<tr><td><span class="status s${status.charAt(0)}">${escapeHtml(status)}</span></td><td>${markdown(String(response.description ?? ''))}${examples}</td><td>${headers.map((h) => `<code>${escapeHtml(h)}</code>`).join(' ')}</td><td>${mediaTypes.map((t) => `<code>${escapeHtml(t)}</code>`).join('<br>') || '<span class="muted">no body</span>'}${schema ? `<br>${typeOf(schema)}` : ''}</td></tr>`;
    });
    return `<h4>Responses</h4><table><thead><tr><th>Status</th><th>Description</th><th>Headers</th><th>Body</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  };

  const pathsTable = (entries: Concrete[]) =>
    `<details class="paths" open><summary>${entries.length} method and path combinations (every version prefix and format label)</summary><table><thead><tr><th>Method</th><th>Path</th><th>operationId</th></tr></thead><tbody>${entries
      .map(
        (e) =>
          `<tr id="${escapeHtml(e.operation.operationId)}" data-operation-id="${escapeHtml(e.operation.operationId)}" data-method="${e.method.toUpperCase()}" data-path="${escapeHtml(e.path)}"><td>${methodBadge(e.method)}</td><td class="path">${escapeHtml(e.path)}</td><td><code>${escapeHtml(e.operation.operationId)}</code></td></tr>`,
      )
      .join('')}</tbody></table></details>`;

  const operationSection = (key: string, entries: Concrete[]) => {
    const main = canonical(entries);
    const { operation } = main;
    const head = entries.find((e) => e.method === 'head');
    const secured = Array.isArray(operation.security) && operation.security.length > 0;
    return `<section class="operation" id="op-${escapeHtml(key)}">
<header>${methodBadge(main.method)}${head ? methodBadge('head') : ''}<span class="path">${escapeHtml(main.path)}</span><h3>${escapeHtml(operation.summary)}</h3>${secured ? '<span class="badge">SigV4 signed</span>' : '<span class="badge">public</span>'}</header>
${markdown(operation.description.split('\n\nThis path:')[0] ?? '')}
${pathsTable(entries)}
${parametersTable(operation)}
${requestBody(operation)}
${responsesTable(operation)}
${head ? `<p class="muted">HEAD answers with the same status and headers as GET, without a body.</p>` : ''}
</section>`;
  };

  const schemaSection = ([name, schema]: [string, JsonObject]) => {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const xml =
      isObject(schema.xml) && schema.xml.name
        ? ` XML element <code>&lt;${escapeHtml(String(schema.xml.name))}&gt;</code>.`
        : '';
    const rows = Object.entries(properties)
      .map(([property, value]) => {
        const resolved = isObject(value) ? value : {};
        return `<tr><td><code>${escapeHtml(property)}</code>${required.has(property) ? ' <span class="badge">required</span>' : ''}</td><td>${typeOf(value)}</td><td>${markdown(String(resolved.description ?? ''))}</td></tr>`;
      })
      .join('');
    const shape = rows
      ? `<table><thead><tr><th>Field</th><th>Schema</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>${schema.additionalProperties === false ? '<p class="muted">No other fields.</p>' : ''}`
      : `<p>${typeOf(schema)}</p>`;
    return `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${markdown(String(schema.description ?? ''))}<p class="muted">${xml}</p>${shape}</section>`;
  };

  const tags = document.tags.map((tag) => ({
    ...tag,
    keys: [...groups.keys()].filter((key) => groups.get(key)![0]!.operation.tags[0] === tag.name),
  }));
  const toc = `<nav class="toc" aria-label="Contents">
<h2>Overview</h2><ul><li><a href="#overview">About this API</a></li><li><a href="#unrouted">Unknown paths and methods</a></li></ul>
${tags
  .map(
    (tag) =>
      `<h2>${escapeHtml(tag.name)}</h2><ul>${tag.keys
        .map((key) => {
          const main = canonical(groups.get(key)!);
          return `<li><a href="#op-${escapeHtml(key)}">${methodBadge(main.method)} ${escapeHtml(main.operation.summary)}</a></li>`;
        })
        .join('')}</ul>`,
  )
  .join('\n')}
<h2>Schemas</h2><ul>${Object.keys(document.components.schemas)
    .map((name) => `<li><a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a></li>`)
    .join('')}</ul>
</nav>`;

  const server = document.servers[0] ?? {};
  const unrouted = Object.entries(document['x-unrouted-responses'])
    .map(([status, response]) => {
      const codes = Array.isArray(response['x-error-codes']) ? response['x-error-codes'].map(String) : [];
      return `<tr><td><span class="status s${status.charAt(0)}">${escapeHtml(status)}</span></td><td>${markdown(String(response.description ?? ''))}</td><td>${codes.map((c) => `<a href="${escapeHtml(links.to(`/documentation/errors/${c}.html`))}"><code>${c}</code></a>`).join(' ')}</td><td>${Object.keys(
        isObject(response.headers) ? response.headers : {},
      )
        .map((h) => `<code>${escapeHtml(h)}</code>`)
        .join(' ')}</td></tr>`;
    })
    .join('');

  const body = `<div class="layout">
${toc}
<main>
<section id="overview">
<h2>About this API</h2>
<p><span class="badge">OpenAPI ${escapeHtml(document.openapi)}</span> <span class="badge">version ${escapeHtml(document.info.version)}</span> <span class="badge">${concrete.length} operations on ${Object.keys(document.paths).length} paths</span></p>
${markdown(document.info.description)}
<p>Server: <code>${escapeHtml(String(server.url ?? ''))}</code>, where <code>base_url</code> is the scheme, host and stage path, for example <code>${escapeHtml(String((isObject(server.variables) && isObject(server.variables.base_url) && server.variables.base_url.default) || ''))}</code>.</p>
</section>
<section id="unrouted">
<h2>Unknown paths and methods</h2>
<table><thead><tr><th>Status</th><th>When</th><th>Error codes</th><th>Headers</th></tr></thead><tbody>${unrouted}</tbody></table>
</section>
${tags
  .map(
    (tag) => `<h2 id="tag-${escapeHtml(tag.name)}">${escapeHtml(tag.name)}</h2>
${markdown(tag.description)}
${tag.keys.map((key) => operationSection(key, groups.get(key)!)).join('\n')}`,
  )
  .join('\n')}
<h2 id="schemas">Schemas</h2>
${Object.entries(document.components.schemas).map(schemaSection).join('\n')}
</main>
</div>`;

  return page({
    title: `${document.info.title} reference`,
    subtitle: typeof document.info.summary === 'string' ? document.info.summary : undefined,
    links: [
      { href: links.to('/openapi.json'), text: 'OpenAPI document' },
      { href: links.to('/documentation/errors/'), text: 'Error codes' },
    ],
    body,
  });
};
