/**
 * JSON-shaped values to XML: field names become element names; an array becomes a
 * plural element holding singular ones (`<tags><tag>…</tag></tags>`). Written by hand because
 * the mapping is fixed and small; a builder library would add more to every bundle than this
 * file is long.
 */

const escapeText = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** Characters XML 1.0 cannot carry at all, even escaped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are exactly what must be stripped.
const stripInvalid = (text: string) => text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');

export type ElementNames = Readonly<Record<string, string>>;

const singular = (plural: string, names: ElementNames) =>
  names[plural] ?? (plural.endsWith('s') ? plural.slice(0, -1) : 'item');

const element = (name: string, value: unknown, names: ElementNames): string => {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value)) {
    const child = singular(name, names);
    return `<${name}>${value.map((item) => element(child, item, names)).join('')}</${name}>`;
  }
  if (typeof value === 'object') {
    const children = Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => element(key, v, names))
      .join('');
    return `<${name}>${children}</${name}>`;
  }
  return `<${name}>${escapeText(stripInvalid(String(value)))}</${name}>`;
};

export const toXml = (root: string, value: unknown, names: ElementNames = {}): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, value, names)}`;
