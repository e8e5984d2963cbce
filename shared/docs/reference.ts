import { STATUS_CODES } from 'node:http';
import type { Links } from '../http/links';
import { documentOperations, type JsonObject, type OpenApiDocument, type OpenApiOperation } from '../openapi/document';
import { EXAMPLE_BASE_URL } from '../openapi/examples';
import { resolveRef } from '../openapi/resolve-ref';
import { escapeHtml, markdown, page } from './html';
import { eventsSection } from './reference-events';
import { script, styles } from './reference-page-assets';

/**
 * The HTML API reference, rendered from the OpenAPI document alone: what the page shows is what
 * the document says. An operation is shown once, with its HEAD and its labelled form beside it;
 * each has a curl line at the first server, and the operation's example request and response sit
 * beside its description (a third column on wide screens, below it on narrow ones). A search box
 * filters the operations.
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
  if (schema.type === 'string' && schema.contentSchema !== undefined)
    return `<code>string</code>: ${escapeHtml(String(schema.contentMediaType ?? ''))} text holding ${typeOf(schema.contentSchema)}`;
  const rules: string[] = [];
  if (schema.const !== undefined) rules.push(`always <code>${escapeHtml(JSON.stringify(schema.const))}</code>`);
  if (Array.isArray(schema.enum))
    rules.push(
      schema.enum.length > 8
        ? `one of ${schema.enum.length} values such as <code>${escapeHtml(String(schema.enum[0]))}</code>`
        : `one of ${schema.enum.map((v) => `<code>${escapeHtml(String(v))}</code>`).join(', ')}`,
    );
  if (typeof schema.minLength === 'number' || typeof schema.maxLength === 'number')
    rules.push(`${schema.minLength ?? 0} to ${schema.maxLength ?? '∞'} characters`);
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number')
    rules.push(`${schema.minimum ?? '−∞'} to ${schema.maximum ?? '∞'}`);
  if (typeof schema.pattern === 'string') rules.push(`matches <code>${escapeHtml(schema.pattern)}</code>`);
  if (typeof schema.format === 'string') rules.push(`format <code>${escapeHtml(schema.format)}</code>`);
  if (schema.default !== undefined) rules.push(`default <code>${escapeHtml(String(schema.default))}</code>`);
  const type = typeof schema.type === 'string' ? schema.type : 'any';
  return `<code>${escapeHtml(type)}</code>${rules.length ? `: ${rules.join('; ')}` : ''}`;
};

const methodBadge = (method: string) => `<span class="method ${method}">${method.toUpperCase()}</span>`;

interface Entry {
  readonly method: string;
  readonly path: string;
  readonly operation: OpenApiOperation;
}

const pretty = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A word for the shell: single-quoted unless it needs no quotes. */
const shellWord = (word: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);

const copyable = (text: string) =>
  `<div class="copyable"><pre><code>${escapeHtml(text)}</code></pre><button type="button" class="copy" aria-label="Copy to the clipboard">Copy</button></div>`;

const plainText = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z#0-9]+;/g, ' ')
    .replace(/\s+/g, ' ');

export const renderReference = (document: OpenApiDocument, links: Links): string => {
  const resolve = (value: unknown): JsonObject => resolveRef(document, value);
  const entries: Entry[] = documentOperations(document);
  const groups = new Map<string, Entry[]>();
  for (const entry of entries) {
    const key = entry.operation['x-operation'];
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const main = (group: Entry[]) => group.find((e) => e.operation.operationId === e.operation['x-operation'])!;

  const server = String(document.servers[0]?.url ?? '').replace('{base_url}', links.baseUrl);
  const errorPage = (code: string) => links.to(`/documentation/errors/${code}.html`);

  // The titles of the error codes, as the shared error responses list them (`- \`40001\` Title: cause`).
  const errorTitles = new Map<string, string>();
  for (const response of Object.values(document.components.responses))
    for (const match of String(response.description ?? '').matchAll(/^- `(\d+)` ([^:\n]+):/gm))
      errorTitles.set(match[1] ?? '', match[2] ?? '');

  const parametersOf = (entry: Entry) =>
    [...(document.paths[entry.path]?.parameters ?? []), ...entry.operation.parameters].map(resolve);

  // The document's examples are written at one base URL; the page shows them at its own, as its curl lines.
  const atPageBase = (value: unknown): unknown =>
    typeof value === 'string'
      ? value.replaceAll(EXAMPLE_BASE_URL, links.baseUrl)
      : Array.isArray(value)
        ? value.map(atPageBase)
        : isObject(value)
          ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, atPageBase(inner)]))
          : value;
  const exampleOf = (reference: unknown) => atPageBase(resolve(reference).value);

  /** The curl line of one documented form, with the parameters' examples filled in. */
  const curl = (entry: Entry) => {
    const parameters = parametersOf(entry);
    const path = entry.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
      const parameter = parameters.find((p) => p.name === name && p.in === 'path');
      return parameter?.example === undefined ? whole : String(parameter.example);
    });
    const url = shellWord(`${server}${path}`);
    if (entry.method === 'head') return `curl -I ${url}`;
    if (entry.method === 'get') return `curl -i ${url}`;
    const body = entry.operation.requestBody ? resolve(entry.operation.requestBody) : undefined;
    const media = body && isObject(body.content) ? resolve(body.content['application/json']) : undefined;
    const example = media && isObject(media.examples) ? Object.values(media.examples)[0] : undefined;
    return [
      `curl -i -X ${entry.method.toUpperCase()} ${url}`,
      ...(example
        ? [`-H 'Content-Type: application/json'`, `-d ${shellWord(JSON.stringify(exampleOf(example)))}`]
        : []),
    ].join(' \\\n  ');
  };

  const parameterList = (entry: Entry) => {
    const items = parametersOf(entry).map(
      (parameter) =>
        `<li><code class="name">${escapeHtml(String(parameter.name))}</code><span class="muted">${escapeHtml(String(parameter.in))}</span>${parameter.required ? ' <span class="badge">required</span>' : ''}<div class="rule">${typeOf(parameter.schema)}</div>${markdown(String(parameter.description ?? ''))}</li>`,
    );
    return items.length ? `<h4>Parameters</h4><ul class="fields">${items.join('')}</ul>` : '';
  };

  const requestBody = (operation: OpenApiOperation) => {
    if (!operation.requestBody) return '';
    const body = resolve(operation.requestBody);
    const content = isObject(body.content) ? body.content : {};
    const media = resolve(Object.values(content)[0]);
    return `<h4>Request body</h4>${markdown(String(body.description ?? ''))}<p>Media types: ${Object.keys(content)
      .map((t) => `<code>${escapeHtml(t)}</code>`)
      .join(', ')}. Schema: ${typeOf(media.schema)}.</p>`;
  };

  const responseList = (operation: OpenApiOperation) => {
    const items = Object.entries(operation.responses).map(([status, reference]) => {
      const response = resolve(reference);
      const content = isObject(response.content) ? response.content : {};
      const mediaTypes = Object.keys(content);
      const schema = mediaTypes[0] ? resolve(content[mediaTypes[0]]).schema : undefined;
      const headers = Object.keys(isObject(response.headers) ? response.headers : {});
      const codes = operation['x-error-codes']?.[status] ?? response['x-error-codes'];
      // Errors differ by their codes; their headers and media types are those of every error (see the overview).
      if (Array.isArray(codes))
        return `<li><span class="status s${status.charAt(0)} name">${escapeHtml(status)}</span>${escapeHtml(STATUS_CODES[Number(status)] ?? 'Error')} <span class="muted">(${typeOf(schema)})</span><div class="codes">${codes
          .map(
            (code) =>
              `<a href="${escapeHtml(errorPage(String(code)))}"><code>${escapeHtml(String(code))}</code></a> ${escapeHtml(errorTitles.get(String(code)) ?? '')}`,
          )
          .join('<br>')}</div></li>`;
      const headerList = headers.map((h) => `<code>${escapeHtml(h)}</code>`).join(' ');
      return `<li><span class="status s${status.charAt(0)} name">${escapeHtml(status)}</span>${markdown(String(reference.description ?? response.description ?? ''))}${
        headers.length ? `<div class="rule">Headers: ${headerList}</div>` : ''
      }<div class="rule">${mediaTypes.map((t) => `<code>${escapeHtml(t)}</code>`).join(' ') || 'No body.'}${schema ? ` ${typeOf(schema)}` : ''}</div></li>`;
    });
    return `<h4>Responses</h4><ul class="fields">${items.join('')}</ul>`;
  };

  /** The example request (curl lines of every form, and the body) and the first success's example response. */
  const samples = (group: Entry[]) => {
    const { operation } = main(group);
    const forms = group
      .map(
        (e) =>
          `<li id="${escapeHtml(e.operation.operationId)}" data-operation-id="${escapeHtml(e.operation.operationId)}" data-method="${e.method.toUpperCase()}" data-path="${escapeHtml(e.path)}"><div class="form-head">${methodBadge(e.method)}<span class="path">${escapeHtml(e.path)}</span><code>${escapeHtml(e.operation.operationId)}</code></div>${copyable(curl(e))}</li>`,
      )
      .join('');
    const body = operation.requestBody ? resolve(operation.requestBody) : undefined;
    const bodyMedia = body && isObject(body.content) ? resolve(Object.values(body.content)[0]) : undefined;
    const bodyExample = bodyMedia && isObject(bodyMedia.examples) ? Object.values(bodyMedia.examples)[0] : undefined;
    const [status, success] = Object.entries(operation.responses).find(([code]) => code.startsWith('2')) ?? [];
    const response = resolve(success);
    const content = isObject(response.content) ? response.content : {};
    const shown = Object.entries(content)
      .flatMap(([type, media]) => {
        const examples = isObject(resolve(media).examples) ? Object.values(resolve(media).examples as JsonObject) : [];
        return examples.length ? [{ type, value: exampleOf(examples[0]) }] : [];
      })
      .filter((example, i, all) => all.findIndex((other) => other.value === example.value) === i);
    const [first, ...others] = shown;
    return `<aside class="samples" aria-label="Examples"><div class="pinned">
<h4>Request</h4><ul class="forms">${forms}</ul>
${bodyExample ? `<h4>Request body</h4><pre><code>${escapeHtml(pretty(exampleOf(bodyExample)))}</code></pre>` : ''}
<h4>Response ${escapeHtml(status ?? '')}</h4>
${
  first
    ? `<pre><code>${escapeHtml(pretty(first.value))}</code></pre>${others
        .map(
          (other) =>
            `<details><summary>As <code>${escapeHtml(other.type)}</code></summary><pre><code>${escapeHtml(pretty(other.value))}</code></pre></details>`,
        )
        .join('')}`
    : `<p>${Object.keys(content)
        .map((type) => `<code>${escapeHtml(type)}</code>`)
        .join(', ')}</p>`
}
</div></aside>`;
  };

  const operationSection = (key: string, group: Entry[]) => {
    const entry = main(group);
    const { operation } = entry;
    const secured = Array.isArray(operation.security) && operation.security.length > 0;
    const doc = `<div class="doc">
<header>${methodBadge(entry.method)}<span class="path">${escapeHtml(entry.path)}</span><h3>${escapeHtml(operation.summary)}</h3>${secured ? '<span class="badge">SigV4 signed</span>' : '<span class="badge">public</span>'}</header>
${markdown(operation.description)}
${parameterList(entry)}
${requestBody(operation)}
${responseList(operation)}
</div>`;
    const search = [
      ...group.flatMap((e) => [e.method, e.path, e.operation.operationId]),
      operation.summary,
      ...operation.tags,
      ...parametersOf(entry).map((parameter) => String(parameter.name)),
      plainText(markdown(operation.description)),
    ]
      .join(' ')
      .toLowerCase();
    return `<section class="operation" id="op-${escapeHtml(key)}" data-search="${escapeHtml(search)}">
${doc}
${samples(group)}
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
        return `<li><code class="name">${escapeHtml(property)}</code>${required.has(property) ? '<span class="badge">required</span>' : ''}<div class="rule">${typeOf(value)}</div>${markdown(String(resolved.description ?? ''))}</li>`;
      })
      .join('');
    const shape = rows
      ? `<ul class="fields">${rows}</ul>${schema.additionalProperties === false ? '<p class="muted">No other fields.</p>' : ''}`
      : `<p>${typeOf(schema)}</p>`;
    return `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${markdown(String(schema.description ?? ''))}<p class="muted">${xml}</p>${shape}</section>`;
  };

  // The change events are webhooks, not operations: they have a section of their own.
  const eventsTag = document.tags.find((tag) => tag.name === 'Events');
  const events = eventsSection(document, eventsTag);
  const tags = document.tags
    .filter((tag) => tag !== eventsTag)
    .map((tag) => ({
      ...tag,
      keys: [...groups.keys()].filter((key) => main(groups.get(key)!).operation.tags[0] === tag.name),
    }));
  const toc = `<nav class="toc" aria-label="Contents">
<div class="search"><input type="search" id="search" placeholder="Search operations (press /)" aria-label="Search operations" autocomplete="off"></div>
<p id="no-match" hidden>No operation matches.</p>
<h2>Overview</h2><ul><li><a href="#overview">About this API</a></li><li><a href="#unrouted">Unknown paths and methods</a></li><li><a href="#events">Change events</a></li></ul>
${tags
  .map(
    (tag) =>
      `<div data-group><h2>${escapeHtml(tag.name)}</h2><ul>${tag.keys
        .map((key) => {
          const entry = main(groups.get(key)!);
          return `<li data-op="op-${escapeHtml(key)}"><a href="#op-${escapeHtml(key)}">${methodBadge(entry.method)} ${escapeHtml(entry.operation.summary)}</a></li>`;
        })
        .join('')}</ul></div>`,
  )
  .join('\n')}
<h2>Schemas</h2><ul>${Object.keys(document.components.schemas)
    .map((name) => `<li><a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a></li>`)
    .join('')}</ul>
</nav>`;

  const servers = document.servers
    .map(
      (s) =>
        `<li><code>${escapeHtml(String(s.url).replace('{base_url}', links.baseUrl))}</code> ${markdown(String(s.description ?? ''))}</li>`,
    )
    .join('');
  const unrouted = Object.entries(document['x-unrouted-responses'])
    .map(([status, response]) => {
      const codes = Array.isArray(response['x-error-codes']) ? response['x-error-codes'].map(String) : [];
      return `<tr><td><span class="status s${status.charAt(0)}">${escapeHtml(status)}</span></td><td>${markdown(String(response.description ?? ''))}</td><td>${codes.map((c) => `<a href="${escapeHtml(errorPage(c))}"><code>${c}</code></a>`).join(' ')}</td><td>${Object.keys(
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
<p><span class="badge">OpenAPI ${escapeHtml(document.openapi)}</span> <span class="badge">version ${escapeHtml(document.info.version)}</span> <span class="badge">${entries.length} operations on ${Object.keys(document.paths).length} paths</span></p>
${markdown(document.info.description)}
<h3>Servers</h3>
<p>Every path below works under each of them; the examples use the first.</p>
<ul>${servers}</ul>
</section>
<section id="unrouted">
<h2>Unknown paths and methods</h2>
<table class="fixed"><thead><tr><th style="width: 12%">Status</th><th>When</th><th style="width: 22%">Error codes</th><th style="width: 18%">Headers</th></tr></thead><tbody>${unrouted}</tbody></table>
</section>
${events}
${tags
  .map(
    (tag) => `<div data-group><h2 id="tag-${escapeHtml(tag.name)}">${escapeHtml(tag.name)}</h2>
${markdown(tag.description)}
${tag.keys.map((key) => operationSection(key, groups.get(key)!)).join('\n')}</div>`,
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
    styles,
    script,
  });
};
