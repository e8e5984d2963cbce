import fc from 'fast-check';
import type { Operation } from '../../../shared/operation/row';
import { anyText, percentEncode } from './hostile-text';

/** Query strings and headers of hostile requests (hostile.ts): values at and past each row's limits, repeated keys, odd Accept headers and header names. */

export const schemaKeys = (operation: Operation | undefined): string[] =>
  operation?.query ? Object.keys(operation.query.entries) : [];

const queryValues: Record<string, readonly string[]> = {
  offset: ['0', '1', '3', '25', '99999', '-1', '1.5', 'abc', '', ' 1', '01', '1e3', '9999999999999999', '0x1f', '١'],
  limit: ['1', '2', '25', '100', '0', '101', '-5', 'abc', '', '1.0', '99999999999999999999', '+5'],
  sort: ['asc', 'desc', 'ASC', 'Desc', 'up', '', 'asc,desc'],
  cursor: [
    '',
    'abc',
    '0.AAAA.BBBB',
    '1.MDAwMDAwMDAwMDAwI2FscGhh.AAAAAAAAAAAAAAAA',
    '25.MDAwMDAwMDAwMDAwI2FscGhh.aaaaaaaaaaaaaaaa',
    '99999999999999999.a.b',
    'x'.repeat(1025),
    '-1.a.b',
  ],
  year: ['2024', '2019', '1970', '0000', '9999', '24', '20245', 'abcd', '-001', '', '2024 '],
  tag: ['news', 'science', 'art-design', 'NEWS', 'a'.repeat(65), '-x', '', 'a b', '__proto__', 'constructor', 'é'],
  fields: ['title', 'title,tags', 'id,subtitle,date', '__proto__', 'constructor,toString', ',,,', '', ' title , tags '],
  format: ['json', 'xml', 'JSON', 'Xml', 'yaml', '', 'json,xml'],
  mock: ['True', 'true', '1', '', 'False', '0', 'false', 'maybe', 'TRUE'],
};

const NOISE_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'x',
  'a[b]',
  'offset[]',
  '',
  'Offset',
  'LIMIT',
] as const;

export type QueryPair = readonly [string, string];

export const pairFor = (keys: readonly string[]): fc.Arbitrary<QueryPair> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .constantFrom(...keys)
        .chain((key) =>
          fc.tuple(fc.constant(key), fc.oneof(fc.constantFrom(...(queryValues[key] ?? [''])), anyText())),
        ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NOISE_KEYS), anyText(12)) },
  );

export const renderQuery = (pairs: readonly QueryPair[], style: 'encoded' | 'raw' | 'bare') =>
  pairs.length === 0
    ? ''
    : `?${pairs
        .map(([key, value]) => {
          if (style === 'bare' && value === '') return percentEncode(key);
          if (style === 'raw')
            return `${percentEncode(key, /[A-Za-z0-9\-._~!$'()*+,;:@[\]]/)}=${percentEncode(value, /[A-Za-z0-9\-._~!$'()*+,;:@/?]/)}`;
          return `${percentEncode(key)}=${percentEncode(value)}`;
        })
        .join('&')}`;

// ---------------------------------------------------------------------------------------------
// Headers

export const SPEC_ACCEPT = 'application/json, text/javascript';

export const ACCEPTS = [
  SPEC_ACCEPT,
  'application/json',
  'application/xml',
  'text/xml',
  '*/*',
  'text/*',
  'application/*',
  'application/xml;q=0.9, application/json;q=0.1',
  'application/json;q=0',
  'application/json;q=abc, application/xml',
  'text/html',
  'image/png',
  '',
  ',,,',
  ';;;',
  '*/*;q=0',
  'application/json;q=0.5;q=0.9',
  'x'.repeat(2000),
] as const;

/** The format an Accept header of the list above asks for, where that is plain; undefined where it takes a careful reading. */
export const ACCEPTED: Record<string, 'json' | 'xml' | 'none'> = {
  [SPEC_ACCEPT]: 'json',
  'application/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
  '*/*': 'json',
  'application/xml;q=0.9, application/json;q=0.1': 'xml',
  'text/html': 'none',
  'image/png': 'none',
};

/** Accept headers that admit no format of the API: a write carrying one (and no label or `format`) is refused with 406. */
export const UNACCEPTABLE = ['text/html', 'image/png', 'application/pdf', 'application/json;q=0', '*/*;q=0'] as const;

const ODD_HEADER_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'X-HTTP-Method-Override',
  'X-Amz-Target',
  'Authorization',
  'X-Forwarded-Host',
  'Forwarded',
  'Origin',
  'Cookie',
  'ACCEPT',
] as const;

/** Header values Node will send: tab, printable ASCII and Latin-1. */
const headerValue = (maxLength = 40) =>
  fc.oneof(
    fc.string({ maxLength }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
    fc.string({
      unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x7e : c)),
      maxLength,
    }),
    fc.constantFrom('', ' ', '*', '"x"', 'W/"x"', 'null', '__proto__', 'Thu, 01 Jan 1970 00:00:00 GMT'),
  );

export const noiseHeaders = (method: string): fc.Arbitrary<[string, string][]> =>
  fc.array(
    fc.oneof(
      fc.tuple(fc.constantFrom(...ODD_HEADER_NAMES), headerValue()),
      ...(method === 'GET' || method === 'HEAD'
        ? [
            fc.tuple(
              fc.constantFrom('If-None-Match', 'If-Modified-Since'),
              fc.constantFrom(
                '*',
                '"x"',
                'W/"x"',
                '',
                'garbage',
                'Thu, 01 Jan 1970 00:00:00 GMT',
                'Sat, 31 Dec 9999 23:59:59 GMT',
                'not a date',
              ),
            ),
          ]
        : []),
    ),
    { maxLength: 3 },
  );
