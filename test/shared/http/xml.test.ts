import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { toXml } from '../../../shared/http/xml';

describe('XML rendering', () => {
  it('starts with a declaration and nests plural elements around singular ones', () => {
    const xml = toXml(
      'response',
      { metadata: { resultset: { count: 1 } }, results: [{ id: '1', tags: [{ id: 'a' }] }] },
      { results: 'magazine' },
    );
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<response>')).toBe(true);
    expect(xml).toContain('<results><magazine><id>1</id><tags><tag><id>a</id></tag></tags></magazine></results>');
  });

  it('escapes markup and drops characters XML cannot carry', () => {
    const xml = toXml('magazine', { title: `<b>&"'\u0001` });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(new XMLParser({ processEntities: true }).parse(xml).magazine.title).toBe(`<b>&"'`);
  });

  it('writes a carriage return as a reference, which a parser keeps, and text with nothing to escape as it is', () => {
    expect(toXml('magazine', { title: 'a\rb\r\nc' })).toContain('<title>a&#13;b&#13;\nc</title>');
    expect(toXml('magazine', { title: 'a\nb\tc' })).toContain('<title>a\nb\tc</title>');
  });

  it('writes an empty list as an empty plural element', () => {
    expect(toXml('response', { results: [] })).toContain('<results></results>');
  });
});
