import { STATUS_CODES } from 'node:http';
import { carriesRetryAfter, type ErrorCode, errorCatalogue } from '../http/error-catalogue';
import { representationSchemas } from '../http/representations/schemas';
import type { HttpMethod, Operation, Success } from '../operation/row';
import { errorGuide } from './error-guide';
import { errorExample, errorXml, replyExamples, xmlOf } from './examples';
import type { OperationProse } from './operation-docs';
import { type JsonObject, pascal, type Reference, ref } from './types';

/**
 * The responses of the document: successes from each row, errors from the catalogue, examples
 * from the real builders. Each is a component that every operation sharing it refers to: an
 * error status is one component whatever the operation, and each operation names the codes it
 * can give in `x-error-codes` (and in the description beside its reference).
 */

export const JSON_TYPES = ['text/javascript', 'application/json'] as const;
export const XML_TYPE = 'application/xml';

/** One operation as the document shows it: a method, on the plain path or on its labelled form. */
export interface Documented {
  readonly operation: Operation<ErrorCode>;
  readonly prose: OperationProse;
  readonly method: HttpMethod;
  readonly labelled: boolean;
}

export const negotiates = (operation: Operation) => operation.success.every((success) => !('document' in success));

/** Errors every operation of a kind can give: format, body, signature, mock, gateway, store. */
export const commonErrors = ({ operation, method }: Documented): ErrorCode[] => [
  // A labelled path answers an unknown label (`/magazines.yaml`) with 406 as well.
  ...(negotiates(operation) ? (['40601'] as const) : []),
  ...(operation.body ? (['40001', '40002', '40003', '40011', '41301', '41501', '41502'] as const) : []),
  // A read answers `If-Match` and `If-Unmodified-Since` that fail with 412; a write names 412 in its row if it takes them.
  ...(method === 'GET' || method === 'HEAD' ? (['41201'] as const) : (['40301'] as const)),
  '40005',
  '40006',
  // Every operation takes text: `mock` at least.
  '40015',
  // The gateway's catch-all refusal can meet any request.
  '40012',
  // The firewall stands before every path; keys and plans before all but the documentation.
  '40303',
  ...(negotiates(operation) ? (['40302', '42902'] as const) : []),
  '42901',
  '50001',
  '50201',
  ...(operation.actions.length === 0 ? [] : (['50301'] as const)),
  '50401',
];

/** The error codes of one documented operation, by status. */
export const errorCodesByStatus = (documented: Documented): Map<number, ErrorCode[]> => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...documented.operation.errors, ...commonErrors(documented)]) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])].sort());
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
};

export const examplesOf = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, ref('examples', name)]));

/**
 * XML is text to a client: a string, never an object to parse as JSON. `contentSchema` says what
 * the text holds (JSON Schema's own keyword for a string's content), read by the element names of
 * the schema's `xml` hints.
 */
export const xmlSchema = (schema: JsonObject) => ({
  type: 'string',
  contentMediaType: XML_TYPE,
  contentSchema: schema,
});

/** Response components and examples, each built once and referred to by every operation that shares it. */
export interface Built {
  readonly responses: Record<string, JsonObject>;
  readonly examples: Record<string, JsonObject>;
  /** Codes documented under each shared error component, gathered as operations use them. */
  readonly errorCodes: Map<string, Set<ErrorCode>>;
}

const intern = (built: Built, name: string, response: JsonObject) => {
  const existing = built.responses[name];
  if (existing && JSON.stringify(existing) !== JSON.stringify(response))
    throw new Error(`Response component ${name} built twice differently.`);
  built.responses[name] = response;
  return ref('responses', name);
};

const schemaId = (name: string): string => {
  if (!(name in representationSchemas)) throw new Error(`A success of the route table names no schema: ${name}.`);
  return name;
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

const reads = (method: HttpMethod) => method === 'GET' || method === 'HEAD';

/** The headers of a successful read, or (HEAD) all it sends. */
const readHeaders = (operation: Operation): JsonObject => ({
  Vary: ref('headers', 'Vary'),
  'Content-Type': ref('headers', 'ContentType'),
  ETag: ref('headers', 'ETag'),
  'Last-Modified': ref('headers', 'LastModified'),
  'Cache-Control': ref('headers', 'CacheControl'),
  ...(operation.list && { Link: ref('headers', 'Link') }),
});

/** A HEAD's answer: the GET's headers, no body; one component for lists, one for the rest. */
const headSuccess = (built: Built, operation: Operation) =>
  intern(built, operation.list ? 'HeadList' : 'HeadRepresentation', {
    description: `The status and headers the GET sends${operation.list ? ', `Link` included' : ''}, without a body.`,
    headers: readHeaders(operation),
  });

export const successResponse = (built: Built, documented: Documented, success: Success): Reference => {
  const { operation, method, prose } = documented;
  if (method === 'HEAD') return headSuccess(built, operation);
  const name = `${pascal(operation.id)}${success.status}`;
  const description = prose.success[success.status] ?? '';
  if ('document' in success) {
    return intern(built, name, {
      description,
      headers: readHeaders(operation),
      content: { [success.document]: { schema: documentSchema(success.document) } },
    });
  }
  const headers: JsonObject = reads(method)
    ? readHeaders(operation)
    : {
        Vary: ref('headers', 'Vary'),
        'Content-Type': ref('headers', 'ContentType'),
        ...(success.status === 201 && { Location: ref('headers', 'Location') }),
      };
  const jsonExample = `${success.example}Json`;
  const xmlExample = `${success.example}Xml`;
  const reply = replyExamples[success.example as keyof typeof replyExamples];
  if (!reply) throw new Error(`No example reply ${success.example} in examples.ts.`);
  built.examples[jsonExample] = { summary: description, value: reply.body };
  built.examples[xmlExample] = { summary: description, value: xmlOf(reply) };
  const schema = ref('schemas', schemaId(success.schema));
  const content = {
    ...Object.fromEntries(JSON_TYPES.map((type) => [type, { schema, examples: examplesOf([jsonExample]) }])),
    [XML_TYPE]: { schema: xmlSchema(schema), examples: examplesOf([xmlExample]) },
  };
  return intern(built, name, { description, headers, content });
};

export const notModifiedResponse = (built: Built) =>
  intern(built, 'NotModified', {
    description: 'Not modified: the `If-None-Match` (or `If-Modified-Since`) precondition holds. No body.',
    headers: {
      Vary: ref('headers', 'Vary'),
      ETag: ref('headers', 'ETag'),
      'Cache-Control': ref('headers', 'CacheControl'),
      'Last-Modified': ref('headers', 'LastModified'),
    },
  });

const errorHeaders = (status: number) => ({
  Vary: ref('headers', 'Vary'),
  'Content-Type': ref('headers', 'ContentType'),
  ...(carriesRetryAfter(status) && { 'Retry-After': ref('headers', 'RetryAfter') }),
  ...(status === 405 && { Allow: ref('headers', 'Allow') }),
  ...(status === 415 && { 'Accept-Encoding': ref('headers', 'AcceptEncoding') }),
});

/** A HEAD's errors: whatever the GET's are, without a body; documented by class. */
export const headErrorResponses = (built: Built): Record<string, Reference> => {
  const reference = intern(built, 'HeadError', {
    description: 'The status and headers of the error the GET would send (see the GET), without its body.',
    headers: errorHeaders(503),
  });
  return { '4XX': reference, '5XX': reference };
};

/**
 * An error status of an operation: a reference to the status's shared component, which documents
 * every code of that status; where the operation gives only some of them, the reference names
 * those in its description, and the operation lists them in `x-error-codes`. Errors raised before
 * negotiation (406) or by operations that serve documents are JSON only; the others come in the
 * negotiated format.
 */
export const errorResponse = (
  built: Built,
  documented: Documented,
  status: number,
  codes: readonly ErrorCode[],
): Reference => {
  const xml = status !== 406 && negotiates(documented.operation);
  const name = `Error${status}${xml ? '' : 'Json'}`;
  const known = built.errorCodes.get(name) ?? new Set();
  for (const code of codes) known.add(code);
  built.errorCodes.set(name, known);
  // The component itself is written once every operation has added its codes (`errorComponents`).
  built.responses[name] = { status, xml };
  return ref('responses', name);
};

/**
 * The description beside a reference to a shared error component that names only some of its
 * codes: the codes alone, as the status beside it says what kind they are.
 */
export const errorSubset = (codes: readonly ErrorCode[]) =>
  `${codes.map((code) => `\`${code}\` ${errorGuide[code].title}`).join('; ')}.`;

/**
 * The shared error components, each with the prose of every code documented under it and one
 * example in each format (the page each code's `moreInfo` names shows that code's own).
 */
export const errorComponents = (built: Built) => {
  for (const [name, codeSet] of built.errorCodes) {
    const { status, xml } = built.responses[name] as { status: number; xml: boolean };
    const codes = [...codeSet].sort();
    const shown = codes[0]!;
    built.examples[`Error${shown}`] = { summary: errorGuide[shown].title, value: errorExample(shown) };
    if (xml) built.examples[`Error${shown}Xml`] = { summary: errorGuide[shown].title, value: errorXml(shown) };
    const schema = ref('schemas', 'Error');
    built.responses[name] = {
      description: `${STATUS_CODES[status] ?? 'Error'}. Error codes:\n\n${codes.map((code) => `- \`${code}\` ${errorGuide[code].title}: ${errorGuide[code].cause}`).join('\n')}`,
      headers: errorHeaders(status),
      'x-error-codes': codes,
      content: {
        ...Object.fromEntries(JSON_TYPES.map((type) => [type, { schema, examples: examplesOf([`Error${shown}`]) }])),
        ...(xml && { [XML_TYPE]: { schema: xmlSchema(schema), examples: examplesOf([`Error${shown}Xml`]) } }),
      },
    };
  }
};

const unroutedContent = () => ({
  ...Object.fromEntries(JSON_TYPES.map((type) => [type, { schema: ref('schemas', 'Error') }])),
  [XML_TYPE]: { schema: xmlSchema(ref('schemas', 'Error')) },
});

/** The answers of paths and methods no operation serves (`x-unrouted-responses`). */
export const unroutedResponses = (): Record<string, JsonObject> => ({
  '404': {
    description: 'Any path that names no resource of the API.',
    'x-error-codes': ['40401', '40406'],
    headers: { Vary: ref('headers', 'Vary') },
    content: unroutedContent(),
  },
  '405': {
    description: 'A path of the API with a method it does not support.',
    'x-error-codes': ['40501'],
    headers: {
      Vary: ref('headers', 'Vary'),
      Allow: ref('headers', 'Allow'),
    },
    content: unroutedContent(),
  },
});
