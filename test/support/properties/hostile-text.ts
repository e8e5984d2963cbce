import fc from 'fast-check';

/** Text a hostile client sends (hostile.ts): odd strings of every plane, and percent-encoding, good and broken. */

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes the UTF-8 bytes of `text` (a lone surrogate becomes U+FFFD, as a client's encoder would make it). */
export const percentEncode = (text: string, keep: RegExp = UNRESERVED): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return byte < 0x80 && keep.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');

export const safeDecode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const oddTexts = [
  '',
  ' ',
  '.',
  '..',
  '/',
  '\\',
  '%',
  '#',
  '?',
  '&',
  '=',
  ';',
  '~',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'prototype',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  'é',
  'Ⅻ',
  '日本語',
  '😀',
  '\u0000',
  '\u202e',
  '\ufeff',
  '\ud800',
  "'; --",
  '<x/>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder, sent as text on purpose.
  '${x}',
  '{id}',
  '../../etc/passwd',
  'a b',
  'a+b',
  'a'.repeat(65),
  'b'.repeat(1500),
] as const;

/** A string a client might send: printable, unicode of every plane, lone surrogates, controls, or an odd constant. */
export const anyText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...oddTexts) },
    { weight: 2, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
  );

export const identifier = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,20}$/);

/** How a text goes on the request line: percent-encoded, raw (only where the request line allows it), or with broken escapes. */
export const encoded = (text: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: text.map((t) => percentEncode(t)) },
    { weight: 1, arbitrary: text.map((t) => percentEncode(t, /[A-Za-z0-9\-._~!$&'()*+,;=:@]/)) },
    { weight: 1, arbitrary: text.map((t) => percentEncode(percentEncode(t))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4', '%C0%AF', '%FF', 'a%', '%2', '%%41') },
  );
