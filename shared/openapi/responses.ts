import { STATUS_CODES } from 'node:http';
import { errorGuide } from '../docs/error-guide';
import type { ErrorCode } from '../http/error-catalogue';
import { gatewayErrorCodes } from '../http/gateway-errors';
import { representationRegistry } from '../http/representations/schemas';
import type { formatLabels, HttpMethod, Operation, Success } from '../routes';
import { errorExample, errorXml, replyExamples, xmlOf } from './examples';
import type { OperationProse } from './operation-docs';
import { capitalize, type JsonObject, pascal, ref } from './types';

/** The responses of the document: successes from each row, errors from the catalogue, examples from the real builders. */

export const JSON_TYPES = ['text/javascript', 'application/json'] as const;
export const XML_TYPE = 'application/xml';
export type Label = (typeof formatLabels)[number];

/** One operation at one concrete path: a method, a version prefix, a format label. */
export interface Concrete {
  readonly operation: Operation;
  readonly prose: OperationProse;
  readonly method: HttpMethod;
  readonly label: Label | undefined;
  readonly prefix: string;
}

export const negotiates = (operation: Operation) => operation.success.every((success) => !('document' in success));

/** Errors every operation of a kind can give: format, body, signature, mock, gateway, store. */
export const commonErrors = ({ operation, method, label }: Concrete): ErrorCode[] => [
  ...(negotiates(operation) && !label ? (['40601'] as const) : []),
  ...(operation.body ? (['40001', '40002', '40003', '40011', '41301', '41501'] as const) : []),
  ...(method === 'GET' || method === 'HEAD' ? [] : (['40301'] as const)),
  '40005',
  '40006',
  // The gateway's catch-all refusal can meet any request.
  '40012',
  '42901',
  '50001',
  '50201',
  ...(operation.actions.length === 0 ? [] : (['50301'] as const)),
  '50401',
];

const successMediaTypes = (label: Label | undefined): string[] =>
  label === 'json' ? [...JSON_TYPES] : label === 'xml' ? [XML_TYPE] : [...JSON_TYPES, XML_TYPE];

/**
 * Codes API Gateway itself can answer with (its gateway responses, infra/gateway-responses.ts):
 * those are always `application/json`, whatever the label asked for.
 */
const errorMediaTypes = (concrete: Concrete, codes: readonly ErrorCode[], status: number): string[] => {
  // Errors raised before or outside negotiation (406, documents) are JSON, typed by `Accept` as any JSON.
  const types = new Set<string>(
    status === 406 || !negotiates(concrete.operation) ? JSON_TYPES : successMediaTypes(concrete.label),
  );
  if (codes.some((code) => gatewayErrorCodes.includes(code))) types.add('application/json');
  return [...types];
};

export const examplesOf = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, ref('examples', name)]));

/** Response components and examples, each built once and referred to by every operation that shares it. */
export interface Built {
  readonly responses: Record<string, JsonObject>;
  readonly examples: Record<string, JsonObject>;
}

const intern = (built: Built, name: string, response: JsonObject) => {
  const existing = built.responses[name];
  if (existing && JSON.stringify(existing) !== JSON.stringify(response))
    throw new Error(`Response component ${name} built twice differently.`);
  built.responses[name] = response;
  return ref('responses', name);
};

const schemaId = (schema: unknown): string => {
  const id = representationRegistry.get(schema as Parameters<typeof representationRegistry.get>[0])?.id;
  if (!id) throw new Error('A success schema of the route table has no id in the representation registry.');
  return id;
};

const documentSchema = (mediaType: string) =>
  mediaType === 'text/html'
    ? { type: 'string', description: 'A self-contained HTML page.' }
    : {
        type: 'object',
        description: 'An OpenAPI 3.1 document.',
        properties: {
          openapi: { type: 'string', pattern: '^3\\.1\\.' },
          info: { type: 'object' },
          paths: { type: 'object' },
        },
        required: ['openapi', 'info', 'paths'],
      };

export const successResponse = (built: Built, concrete: Concrete, success: Success) => {
  const head = concrete.method === 'HEAD';
  const description = concrete.prose.success[success.status] ?? '';
  const variant = `${head ? 'Head' : ''}${pascal(concrete.operation.id)}${success.status}${concrete.label ? capitalize(concrete.label) : ''}`;
  const common = { Vary: ref('headers', 'Vary'), 'Content-Type': ref('headers', 'ContentType') };
  if ('document' in success) {
    return intern(built, variant, {
      description,
      headers: { ...common, ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'CacheControl') },
      ...(!head && { content: { [success.document]: { schema: documentSchema(success.document) } } }),
    });
  }
  const reads = concrete.method === 'GET' || head;
  const headers: JsonObject = {
    ...common,
    ...(reads && {
      ETag: ref('headers', 'ETag'),
      'Last-Modified': ref('headers', 'LastModified'),
      'Cache-Control': ref('headers', 'CacheControl'),
    }),
    ...(concrete.operation.list && { Link: ref('headers', 'Link') }),
    ...(success.status === 201 && { Location: ref('headers', 'Location') }),
  };
  const jsonExample = `${success.example}Json`;
  const xmlExample = `${success.example}Xml`;
  const reply = replyExamples[success.example as keyof typeof replyExamples];
  if (!reply) throw new Error(`No example reply ${success.example} in examples.ts.`);
  built.examples[jsonExample] = { summary: description, value: reply.body };
  built.examples[xmlExample] = { summary: description, value: xmlOf(reply) };
  const content = Object.fromEntries(
    successMediaTypes(concrete.label).map((type) => [
      type,
      {
        schema: ref('schemas', schemaId(success.schema)),
        examples: examplesOf([type === XML_TYPE ? xmlExample : jsonExample]),
      },
    ]),
  );
  return intern(built, variant, { description, headers, ...(!head && { content }) });
};

export const notModifiedResponse = (built: Built, concrete: Concrete) =>
  intern(built, `NotModified${negotiates(concrete.operation) ? '' : 'Document'}`, {
    description: 'Not modified: the `If-None-Match` (or `If-Modified-Since`) precondition holds. No body.',
    headers: {
      Vary: ref('headers', 'Vary'),
      ETag: ref('headers', 'ETag'),
      'Cache-Control': ref('headers', 'CacheControl'),
      ...(negotiates(concrete.operation) && { 'Last-Modified': ref('headers', 'LastModified') }),
    },
  });

const describeCodes = (codes: readonly ErrorCode[]) =>
  codes.map((code) => `- \`${code}\` ${errorGuide[code].title}: ${errorGuide[code].cause}`).join('\n');

export const errorResponse = (built: Built, concrete: Concrete, status: number, codes: readonly ErrorCode[]) => {
  const head = concrete.method === 'HEAD';
  const types = errorMediaTypes(concrete, codes, status);
  for (const code of codes) {
    if (types.some((type) => type !== XML_TYPE))
      built.examples[`Error${code}`] = { summary: errorGuide[code].title, value: errorExample(code) };
    if (types.includes(XML_TYPE))
      built.examples[`Error${code}Xml`] = { summary: errorGuide[code].title, value: errorXml(code) };
  }
  const content = Object.fromEntries(
    types.map((type) => [
      type,
      {
        schema: ref('schemas', 'Error'),
        examples: examplesOf(codes.map((code) => (type === XML_TYPE ? `Error${code}Xml` : `Error${code}`))),
      },
    ]),
  );
  const name = `${head ? 'Head' : ''}${pascal(concrete.operation.id)}${status}${concrete.label ? capitalize(concrete.label) : ''}`;
  return intern(built, name, {
    description: `${STATUS_CODES[status] ?? 'Error'}. Error codes:\n\n${describeCodes(codes)}`,
    headers: {
      Vary: ref('headers', 'Vary'),
      'Content-Type': ref('headers', 'ContentType'),
      ...((status === 503 || status === 409) && { 'Retry-After': ref('headers', 'RetryAfter') }),
    },
    'x-error-codes': [...codes],
    ...(!head && { content }),
  });
};
