/**
 * JSON-shaped values to XML: field names become element names; an array becomes a
 * plural element holding singular ones (`<tags><tag>…</tag></tags>`). Written by hand because
 * the mapping is fixed and small; a builder library would add more to every bundle than this
 * file is long.
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A parser turns a raw CR (and CR LF) into LF, so XML readers would get other text than JSON readers.
  '\r': '&#13;',
};

const escapeText = (text: string) => text.replace(/[&<>"'\r]/g, (c) => ESCAPES[c] ?? c);

/** Characters XML 1.0 cannot carry at all, even escaped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are exactly what must be stripped.
const stripInvalid = (text: string) => text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');

/** What either of the two above would change: most values hold none of it, and are written as they are. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters stripInvalid strips.
const CHANGED = /[&<>"'\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

const text = (value: string) => (CHANGED.test(value) ? escapeText(stripInvalid(value)) : value);

export type ElementNames = Readonly<Record<string, string>>;

const singular = (plural: string, names: ElementNames) =>
  names[plural] ?? (plural.endsWith('s') ? plural.slice(0, -1) : 'item');

// Children are appended to one string rather than mapped to arrays and joined: a page of 25
// magazines has some 300 elements, and the arrays were most of XML's cost over JSON's.
const element = (name: string, value: unknown, names: ElementNames): string => {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value)) {
    const child = singular(name, names);
    let children = '';
    for (const item of value) children += element(child, item, names);
    return `<${name}>${children}</${name}>`;
  }
  if (typeof value === 'object') {
    const fields = value as Record<string, unknown>;
    let children = '';
    for (const key of Object.keys(fields)) children += element(key, fields[key], names);
    return `<${name}>${children}</${name}>`;
  }
  return `<${name}>${text(String(value))}</${name}>`;
};

export const toXml = (root: string, value: unknown, names: ElementNames = {}): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, value, names)}`;
