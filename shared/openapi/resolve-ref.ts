const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Follows `$ref`s (JSON pointers such as `#/components/schemas/Magazine`, with `~1` and `~0`
 * unescaped) inside an OpenAPI document until it reaches a value that is no reference. A value
 * that is not an object resolves to `{}`; so does a reference that points nowhere, unless
 * `strict` is set, when that throws.
 */
export const resolveRef = (
  document: unknown,
  value: unknown,
  { strict = false }: { strict?: boolean } = {},
): Record<string, unknown> => {
  if (!isObject(value)) return {};
  const target = value.$ref;
  if (typeof target !== 'string') return value;
  const found = target
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, key) => (isObject(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
      document,
    );
  if (found === undefined && strict) throw new Error(`Unresolvable $ref ${target} in the OpenAPI document.`);
  return resolveRef(document, found, { strict });
};
