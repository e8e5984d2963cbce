import { type ConversionConfig, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { JsonObject } from './types';

/** The schemas of the document are JSON Schema 2020-12, as OpenAPI 3.1 has it. */
export const jsonSchemaConfig = {
  target: 'draft-2020-12',
  // Refinements (`check`) and transforms have no JSON Schema; the document shows what they act on.
  errorMode: 'ignore',
} satisfies ConversionConfig;

/**
 * Named schemas as `components.schemas`: a schema used inside another is referred to by its name,
 * as `#/components/schemas/{name}`. `typeMode` `input` shows what a client sends (before
 * transforms), `output` what the API sends.
 */
export const componentSchemas = (
  schemas: Readonly<Record<string, v.GenericSchema>>,
  typeMode: 'input' | 'output',
): Record<string, JsonObject> => {
  const definitions = toJsonSchemaDefs(schemas, {
    ...jsonSchemaConfig,
    typeMode,
    overrideSchema: ({ valibotSchema, jsonSchema }) => {
      // A literal's type is said too, for tools that read `type` before `const`.
      if (valibotSchema.type === 'literal' && typeof jsonSchema.const === 'string')
        return { type: 'string', ...jsonSchema };
      // What the API sends has exactly the fields its schema lists.
      if (typeMode === 'output' && valibotSchema.type === 'object')
        return { ...jsonSchema, additionalProperties: false };
      return undefined;
    },
  });
  return JSON.parse(JSON.stringify(definitions).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<
    string,
    JsonObject
  >;
};

/** The name under which `schema` is one of `schemas`. */
export const nameOf = (schemas: Readonly<Record<string, v.GenericSchema>>, schema: unknown, what: string): string => {
  const found = Object.entries(schemas).find(([, named]) => named === schema);
  if (!found) throw new Error(`${what} has no name in the document's schemas.`);
  return found[0];
};
