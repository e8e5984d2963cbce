import type { HttpMethod } from '../operation/row';

export type JsonObject = { [key: string]: unknown };

/** A reference; OpenAPI 3.1 lets it carry its own `description`, which wins over the target's. */
export interface Reference {
  $ref: string;
  description?: string;
}

export interface OpenApiOperation extends JsonObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: Reference[];
  requestBody?: Reference;
  responses: Record<string, Reference>;
  /** The route table's id of the operation, shared by its HEAD and its labelled form. */
  'x-operation': string;
  /**
   * The error codes of the statuses where this operation gives only some of the codes its shared
   * error response documents; elsewhere it gives them all.
   */
  'x-error-codes'?: Record<string, string[]>;
}

export type OperationMethod = Lowercase<HttpMethod>;

/** A path's operations by method, and the parameters of its template, which they share. */
type PathItem = Partial<Record<OperationMethod, OpenApiOperation>> & { parameters?: Reference[] };

export interface OpenApiDocument extends JsonObject {
  openapi: '3.1.0';
  info: JsonObject & { title: string; version: string; description: string };
  servers: JsonObject[];
  tags: { name: string; description: string }[];
  paths: Record<string, PathItem>;
  /** The change events, as the bus delivers them to a consumer. */
  webhooks?: JsonObject;
  components: {
    schemas: Record<string, JsonObject>;
    parameters: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    requestBodies: Record<string, JsonObject>;
    responses: Record<string, JsonObject>;
    examples: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
  'x-unrouted-responses': Record<string, JsonObject>;
}

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const capitalize = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

export const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(capitalize)
    .join('');

const methods: readonly OperationMethod[] = ['get', 'head', 'post', 'put', 'delete'];

/** Every operation of the document with its path and method, in the document's order. */
export const documentOperations = (document: Pick<OpenApiDocument, 'paths'>) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    methods.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ path, method, operation }] : [];
    }),
  );
