import { describe, expect, it } from 'vitest';
import { satisfies as matches } from '../../../shared/domain/store';
import { isNotModified, parseIfMatch } from '../../../shared/http/conditional';

describe('conditional requests', () => {
  it('reads If-Match revisions whatever the format suffix, and no weak tag (strong comparison)', () => {
    expect(parseIfMatch('"r1-json", "r2-xml"')).toEqual({ any: false, revisions: ['r1', 'r2'] });
    expect(parseIfMatch('"r1-json", W/"r2-xml"')).toEqual({ any: false, revisions: ['r1'] });
    expect(parseIfMatch('*')).toEqual({ any: true });
    expect(parseIfMatch(undefined)).toBeUndefined();
  });

  it('matches a write precondition only against the current revision', () => {
    expect(matches(parseIfMatch('"r1-json"'), 'r1')).toBe(true);
    expect(matches(parseIfMatch('"r1-json"'), 'r2')).toBe(false);
    expect(matches(parseIfMatch('*'), undefined)).toBe(false);
    expect(matches(undefined, undefined)).toBe(true);
  });

  it('prefers If-None-Match over If-Modified-Since', () => {
    const headers = { 'if-none-match': '"b"', 'if-modified-since': 'Tue, 14 Nov 2023 22:13:20 GMT' };
    expect(isNotModified(headers, '"a"', 1_700_000_000)).toBe(false);
    expect(isNotModified({ 'if-modified-since': 'Tue, 14 Nov 2023 22:13:20 GMT' }, '"a"', 1_700_000_000)).toBe(true);
    expect(isNotModified({ 'if-modified-since': 'Tue, 14 Nov 2023 22:13:19 GMT' }, '"a"', 1_700_000_000)).toBe(false);
    expect(isNotModified({ 'if-modified-since': 'not a date' }, '"a"', 1_700_000_000)).toBe(false);
  });
});
