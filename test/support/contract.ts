import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type JsonObject, type OpenApiDocument, openApiDocument } from '../../shared/openapi/document';
import { resolveRef } from '../../shared/openapi/resolve-ref';
import type { OperationMethod } from '../../shared/openapi/types';
import type { ContractMatch, ContractRequest, ContractResponse, Template } from './contract-types';
import { xmlReader } from './contract-xml';

export type { ContractMatch, ContractRequest, ContractResponse } from './contract-types';

/**
 * Checks an HTTP response against the OpenAPI document the API publishes: the method and path
 * must be documented under one of its servers' version prefixes (or be the documented 404/405 of
 * an unknown path or method), the status
 * must be a documented response of that operation, an error's code one the operation documents
 * for that status, documented required headers must be there, the media type must be one the
 * response lists, and the body must fit the schema: JSON with ajv (JSON Schema 2020-12), XML by
 * the shape its string schema's `contentSchema` documents (root element, elements named as the
 * schema's `xml` hints, the content then validated with the same JSON schema).
 *
 *   expectMatchesContract({ method: 'GET', path: '/v1/magazines.xml', status: 200, headers, body })
 */

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// ajv-formats is CommonJS with a default export; under ESM interop it may arrive wrapped once more.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

class Contract {
  private readonly ajv: Ajv2020;
  private readonly defs: JsonObject;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    // `xml` and `example` are OpenAPI keywords JSON Schema does not know: not strict.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.defs = this.rewriteRefs(document.components.schemas) as JsonObject;
  }

  /** `#/components/schemas/X` → `#/$defs/X`, so that one compiled schema carries every definition. */
  private rewriteRefs(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.rewriteRefs(item));
    if (!isObject(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string'
          ? inner.replace('#/components/schemas/', '#/$defs/')
          : this.rewriteRefs(inner),
      ]),
    );
  }

  /** Follows `$ref`s inside the OpenAPI document; one that points nowhere throws. */
  resolve(value: unknown): JsonObject {
    return resolveRef(this.document, value, { strict: true });
  }

  validate(schema: unknown, value: unknown): string[] {
    const key = JSON.stringify(schema);
    let validator = this.validators.get(key);
    if (!validator) {
      validator = this.ajv.compile({ $defs: this.defs, ...(this.rewriteRefs(schema) as JsonObject) });
      this.validators.set(key, validator);
    }
    if (validator(value)) return [];
    return (validator.errors ?? []).map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
  }

  /** The version prefixes the document's servers add before its paths (`/v1`, `/api/v1`, none). */
  private get prefixes(): string[] {
    return this.document.servers
      .map((server) => String(server.url).replace(/^\{base_url\}/, ''))
      .sort((a, b) => b.length - a.length);
  }

  private get templates(): Template[] {
    this.compiled ??= Object.entries(this.document.paths).map(([path, item]) => {
      const names: string[] = [];
      const source = path.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
        if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        names.push(name);
        return '([^/]+)';
      });
      const schemas = Object.fromEntries(
        (item.parameters ?? []).map((reference) => {
          const parameter = this.resolve(reference);
          return [String(parameter.name), parameter.schema];
        }),
      );
      const segments = path.split('/');
      return {
        path,
        pattern: new RegExp(`^${source}$`),
        names,
        partial: new Set(names.filter((name) => !segments.includes(`{${name}}`))),
        schemas,
        literals: path.replace(/\{[^}]+\}/g, '').length,
      };
    });
    return this.compiled;
  }

  private compiled: Template[] | undefined;

  /**
   * The documented path a request path matches, under one of the servers' prefixes. A parameter
   * that shares its segment (`{format}` in `/magazines/{id}.{format}`) must fit its schema, or at
   * least be a label (letters and digits, as the API reads one, to answer 406); among
   * the templates left, one that has the method wins, then one whose parameters all fit their
   * schemas, then the one with the most literal characters.
   */
  template(requestPath: string, method?: string): string | undefined {
    const candidates: { template: string; fits: number; literals: number; hasMethod: boolean }[] = [];
    for (const prefix of this.prefixes) {
      if (prefix !== '' && requestPath !== prefix && !requestPath.startsWith(`${prefix}/`)) continue;
      const path = requestPath.slice(prefix.length);
      for (const template of this.templates) {
        const match = template.pattern.exec(path);
        if (!match) continue;
        let fits = 0;
        let possible = true;
        template.names.forEach((name, i) => {
          const raw = match[i + 1] ?? '';
          let value = raw;
          try {
            value = decodeURIComponent(raw);
          } catch {}
          const schema = template.schemas[name];
          const valid = schema === undefined || this.validate(schema, value).length === 0;
          if (valid) fits++;
          // A label that is no format (`/magazines.yaml`) still names the labelled path, which answers it 406.
          else if (template.partial.has(name) && !/^[A-Za-z0-9]+$/.test(value)) possible = false;
        });
        if (!possible) continue;
        const item = this.document.paths[template.path] ?? {};
        candidates.push({
          template: template.path,
          fits: fits === template.names.length ? 1 : 0,
          literals: template.literals,
          hasMethod: method !== undefined && method.toLowerCase() in item,
        });
      }
    }
    candidates.sort((a, b) => Number(b.hasMethod) - Number(a.hasMethod) || b.fits - a.fits || b.literals - a.literals);
    return candidates[0]?.template;
  }

  /** Reads XML bodies by the document's schemas and their `xml` hints. */
  readonly xml = xmlReader((value) => this.resolve(value));

  /**
   * What a validating client or proxy says of a request before sending it: the operation its
   * method and path name, each path and query parameter against its schema (a query value read
   * as a proxy reads it: `true`/`false` as booleans and digits as numbers where the schema says
   * so, an empty value only where `allowEmptyValue` allows it), required ones present, and a JSON
   * body against the request body's schema.
   */
  checkRequest(request: ContractRequest): string[] {
    const url = new URL(request.path, 'http://contract.invalid');
    const method = request.method.toLowerCase();
    const path = url.pathname.replace(/(.)\/$/, '$1');
    const template = this.template(path, method);
    const operation = template ? this.document.paths[template]?.[method as OperationMethod] : undefined;
    if (!template || !operation) return [`${request.method} ${path} is no documented operation`];
    const problems: string[] = [];
    const parameters = [...(this.document.paths[template]?.parameters ?? []), ...operation.parameters].map((p) =>
      this.resolve(p),
    );
    const pathValues = new Map<string, string>();
    const compiled = this.templates.find((candidate) => candidate.path === template);
    const prefix = this.prefixes.find((p) => p !== '' && (path === p || path.startsWith(`${p}/`))) ?? '';
    const match = compiled?.pattern.exec(path.slice(prefix.length));
    for (const [i, name] of (compiled?.names ?? []).entries())
      pathValues.set(name, decodeURIComponent(match?.[i + 1] ?? ''));
    for (const parameter of parameters) {
      const name = String(parameter.name);
      const where = `${String(parameter.in)} parameter \`${name}\``;
      let raw: string | undefined;
      if (parameter.in === 'path') raw = pathValues.get(name);
      else if (parameter.in === 'query') raw = url.searchParams.get(name) ?? undefined;
      else continue;
      if (raw === undefined) {
        if (parameter.required === true) problems.push(`${where} is required`);
        continue;
      }
      if (raw === '' && parameter.in === 'query') {
        if (parameter.allowEmptyValue !== true) problems.push(`${where} may not be empty`);
        continue;
      }
      const schema = this.resolve(parameter.schema);
      const value =
        schema.type === 'boolean' && (raw === 'true' || raw === 'false')
          ? raw === 'true'
          : (schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)
            ? Number(raw)
            : raw;
      for (const problem of this.validate(schema, value)) problems.push(`${where} = \`${raw}\`: ${problem}`);
    }
    if (request.body !== undefined) {
      const body = operation.requestBody ? this.resolve(operation.requestBody) : undefined;
      const media = isObject(body?.content) ? body.content['application/json'] : undefined;
      if (!isObject(media)) problems.push(`${request.method} ${template} documents no JSON request body`);
      else {
        try {
          problems.push(...this.validate(media.schema, JSON.parse(request.body)).map((p) => `body: ${p}`));
        } catch (error) {
          problems.push(`body is not JSON: ${(error as Error).message}`);
        }
      }
    }
    return problems;
  }

  check(response: ContractResponse): { problems: string[]; match: ContractMatch } {
    const problems: string[] = [];
    const headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const path = new URL(response.path, 'http://contract.invalid').pathname.replace(/(.)\/$/, '$1');
    const method = response.method.toLowerCase();
    const template = this.template(path, method);
    const operation = template ? this.document.paths[template]?.[method as OperationMethod] : undefined;

    let documented: JsonObject | undefined;
    let operationId = 'unrouted';
    let operationCodes: string[] | undefined;
    if (operation) {
      operationId = operation.operationId;
      operationCodes = operation['x-error-codes']?.[String(response.status)];
      const responses: Record<string, unknown> = operation.responses;
      const entry =
        responses[String(response.status)] ?? responses[`${String(response.status).charAt(0)}XX`] ?? responses.default;
      if (!entry)
        problems.push(
          `${response.method} ${template} (${operationId}) documents no ${response.status} response; it documents ${Object.keys(responses).join(', ')}`,
        );
      else documented = this.resolve(entry);
    } else {
      const unrouted = this.document['x-unrouted-responses'];
      const expected = template ? '405' : '404';
      if (String(response.status) !== expected) {
        problems.push(
          template
            ? `${response.method} ${template} is not a documented operation: expected the documented 405, got ${response.status}`
            : `${path} matches no documented path: expected the documented 404, got ${response.status}`,
        );
      } else {
        documented = unrouted[expected];
      }
    }

    let value: unknown;
    if (documented) {
      for (const [name, header] of Object.entries(isObject(documented.headers) ? documented.headers : {})) {
        const resolved = this.resolve(header);
        const sent = headers[name.toLowerCase()];
        if (resolved.required === true && sent === undefined)
          problems.push(`header ${name} is documented as required but missing`);
        if (sent !== undefined && resolved.schema)
          for (const p of this.validate(resolved.schema, sent)) problems.push(`header ${name}: ${p}`);
      }
      const codes =
        operationCodes ??
        (Array.isArray(documented['x-error-codes']) ? documented['x-error-codes'].map(String) : undefined);
      const content = isObject(documented.content) ? documented.content : undefined;
      const bodyless = method === 'head' || response.status === 304 || !content;
      if (bodyless) {
        if (response.body !== '')
          problems.push(
            `a ${response.status} to ${response.method} documents no body, but one was sent (${response.body.length} characters)`,
          );
      } else {
        const contentType = headers['content-type'] ?? '';
        const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
        const media = content[mediaType];
        if (!/charset=utf-8/i.test(contentType))
          problems.push(`Content-Type \`${contentType}\` does not say charset=utf-8`);
        if (!isObject(media)) {
          problems.push(
            `media type \`${mediaType}\` is not documented for this response (documented: ${Object.keys(content).join(', ')})`,
          );
        } else if (mediaType === 'application/xml') {
          const shape = this.xml.content(media.schema, problems);
          value = this.xml.toValue(response.body, shape, problems);
          problems.push(...this.validate(shape, value).map((p) => `XML body: ${p}`));
        } else if (mediaType === 'text/html') {
          if (!/^<!doctype html>/i.test(response.body)) problems.push('HTML body does not start with <!doctype html>');
        } else {
          try {
            value = JSON.parse(response.body);
            problems.push(...this.validate(media.schema, value).map((p) => `JSON body: ${p}`));
          } catch (error) {
            problems.push(`body is not JSON: ${(error as Error).message}`);
          }
        }
        if (codes && isObject(value) && !codes.includes(String(value.errorCode))) {
          problems.push(
            `errorCode ${String(value.errorCode)} is not among the codes documented for this response (${codes.join(', ')})`,
          );
        }
      }
    }
    return { problems, match: { operationId, template, value } };
  }
}

let contract: Contract | undefined;
const theContract = () => (contract ??= new Contract(openApiDocument()));

/** Problems of a response against the OpenAPI document; empty when it matches. */
export const contractProblems = (response: ContractResponse): string[] => theContract().check(response).problems;

/** Throws, listing every problem, unless the response matches the OpenAPI document. */
export const expectMatchesContract = (response: ContractResponse): ContractMatch => {
  const { problems, match } = theContract().check(response);
  if (problems.length > 0) {
    throw new Error(
      `${response.method} ${response.path} → ${response.status} does not match the OpenAPI document:\n- ${problems.join('\n- ')}\nBody: ${response.body.slice(0, 500)}`,
    );
  }
  return match;
};

/** Problems a validating client or proxy finds in a request (its parameters and JSON body); empty when it fits the document. */
export const requestProblems = (request: ContractRequest): string[] => theContract().checkRequest(request);

/** Validates a value (or XML text, for `xml: true`) against a schema of the document, such as `{ $ref: '#/components/schemas/Magazine' }`. */
export const schemaProblems = (schema: unknown, value: unknown, { xml = false } = {}): string[] => {
  const problems: string[] = [];
  const shape = xml ? theContract().xml.content(schema, problems) : schema;
  const json = xml ? theContract().xml.toValue(String(value), shape, problems) : value;
  return [...problems, ...theContract().validate(shape, json)];
};
