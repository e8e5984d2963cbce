import { describe, expect, it } from 'vitest';
import { negotiate } from '../../../shared/http/negotiation';

describe('format negotiation', () => {
  it.each([
    [{}, 'json', 'text/javascript; charset=utf-8'],
    [{ accept: 'application/json, text/javascript' }, 'json', 'text/javascript; charset=utf-8'],
    [{ accept: 'application/json' }, 'json', 'application/json; charset=utf-8'],
    [{ accept: '*/*' }, 'json', 'text/javascript; charset=utf-8'],
    [{ accept: 'application/xml' }, 'xml', 'application/xml; charset=utf-8'],
    [{ accept: 'text/xml;q=0.9, application/json;q=0.5' }, 'xml', 'application/xml; charset=utf-8'],
    [{ accept: 'application/xml;q=0.1, application/*;q=0.8' }, 'json', 'application/json; charset=utf-8'],
    [{ formatParameter: 'xml', accept: 'application/json' }, 'xml', 'application/xml; charset=utf-8'],
    [{ label: 'json', formatParameter: 'xml' }, 'json', 'text/javascript; charset=utf-8'],
    [{ label: 'xml', accept: 'application/json, text/javascript' }, 'xml', 'application/xml; charset=utf-8'],
  ])('%j → %s as %s', (request, format, contentType) => {
    expect(negotiate(request)).toEqual({ format, contentType });
  });

  it.each([
    [{ label: 'html' }],
    [{ formatParameter: 'yaml' }],
    [{ accept: 'image/png' }],
    [{ accept: 'application/json;q=0, application/xml;q=0' }],
  ])('refuses %j with 406', (request) => {
    expect(() => negotiate(request)).toThrow(expect.objectContaining({ status: 406, code: '40601' }));
  });
});
