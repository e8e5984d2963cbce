import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { JsonObject } from '../../shared/openapi/document';

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads an XML body as the contract test sees it (contract.ts): the JSON value it stands for,
 * guided by the document's schemas and their `xml` hints, with every problem of shape collected.
 * `resolve` follows the document's `$ref`s.
 */
export const xmlReader = (resolve: (value: unknown) => JsonObject) => {
  /**
   * What an XML body holds: its media type's schema is a string (XML is text to a client) whose
   * `contentSchema` gives the shape, read by the element names of its `xml` hints.
   */
  const content = (schema: unknown, problems: string[]): unknown => {
    const text = resolve(schema);
    if (text.type !== 'string' || text.contentMediaType !== 'application/xml' || !isObject(text.contentSchema)) {
      problems.push('the XML media type is not documented as a string of `application/xml` with a `contentSchema`');
      return schema;
    }
    return text.contentSchema;
  };

  /** XML text → the JSON value it stands for, guided by the schema; shape problems are collected. */
  const toValue = (xml: string, schema: unknown, problems: string[]): unknown => {
    if (!xml.startsWith('<?xml')) problems.push('XML body does not start with an XML declaration');
    const wellFormed = XMLValidator.validate(xml);
    if (wellFormed !== true) {
      problems.push(`XML body is not well formed: ${wellFormed.err.msg} (line ${wellFormed.err.line})`);
      return undefined;
    }
    const parsed = new XMLParser({
      ignoreAttributes: true,
      parseTagValue: false,
      trimValues: false,
      ignoreDeclaration: true,
    }).parse(xml) as JsonObject;
    const roots = Object.keys(parsed);
    const rootSchema = resolve(schema);
    const expectedRoot = isObject(rootSchema.xml) ? rootSchema.xml.name : undefined;
    if (roots.length !== 1) problems.push(`XML body has ${roots.length} root elements`);
    const root = roots[0] ?? '';
    if (expectedRoot !== undefined && root !== expectedRoot)
      problems.push(`XML root element is <${root}>, the document says <${String(expectedRoot)}>`);
    return fromXml(parsed[root], schema, `/${root}`, problems);
  };

  const mergedProperties = (schema: JsonObject): Record<string, unknown> => {
    if (Array.isArray(schema.anyOf))
      return Object.assign({}, ...[...schema.anyOf].reverse().map((branch) => mergedProperties(resolve(branch))));
    return isObject(schema.properties) ? schema.properties : {};
  };

  const typeOf = (schema: JsonObject): string | undefined => {
    if (typeof schema.type === 'string') return schema.type;
    if (Array.isArray(schema.anyOf)) return typeOf(resolve(schema.anyOf[0]));
    return undefined;
  };

  const fromXml = (node: unknown, schemaRef: unknown, where: string, problems: string[]): unknown => {
    const schema = resolve(schemaRef);
    const type = typeOf(schema);
    if (type === 'object') {
      if (node === '') return {};
      if (!isObject(node)) {
        problems.push(`${where} should hold elements, has text`);
        return node;
      }
      const properties = mergedProperties(schema);
      return Object.fromEntries(
        Object.entries(node).map(([name, child]) => {
          if (Array.isArray(child)) problems.push(`${where}/${name} appears ${child.length} times`);
          return [name, name in properties ? fromXml(child, properties[name], `${where}/${name}`, problems) : child];
        }),
      );
    }
    if (type === 'array') {
      const itemSchema = resolve(schema.items);
      const itemName =
        isObject(itemSchema.xml) && typeof itemSchema.xml.name === 'string' ? itemSchema.xml.name : undefined;
      if (!(isObject(schema.xml) && schema.xml.wrapped === true))
        problems.push(`${where}: the document gives no wrapped XML form for this array`);
      if (node === '') return [];
      if (!isObject(node)) {
        problems.push(`${where} should hold <${itemName ?? 'item'}> elements, has text`);
        return [];
      }
      const names = Object.keys(node);
      for (const name of names)
        if (itemName !== undefined && name !== itemName)
          problems.push(`${where} holds <${name}>, the document says <${itemName}>`);
      const children = names.flatMap((name) => {
        const value = node[name];
        return Array.isArray(value) ? value : [value];
      });
      return children.map((child, i) => fromXml(child, schema.items, `${where}/${itemName ?? 'item'}[${i}]`, problems));
    }
    if (isObject(node)) {
      problems.push(`${where} should be text, holds elements`);
      return node;
    }
    const text = typeof node === 'string' ? node : String(node ?? '');
    if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
    return text;
  };

  return { content, toValue };
};
