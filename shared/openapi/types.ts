import type { HttpMethod } from '../routes';

export type JsonObject = { [key: string]: unknown };

export interface OpenApiOperation extends JsonObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: { $ref: string }[];
  requestBody?: { $ref: string };
  responses: Record<string, { $ref: string }>;
  'x-operation': string;
}

export interface OpenApiDocument extends JsonObject {
  openapi: '3.1.0';
  info: JsonObject & { title: string; version: string; description: string };
  servers: JsonObject[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<Lowercase<HttpMethod>, OpenApiOperation>>>;
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
