import { describe, expect, it } from 'vitest';
import { satisfies as matches } from '../../../shared/domain/store';
import { isNotModified, parsePrecondition } from '../../../shared/http/conditional';

const parseIfMatch = (header: string) => parsePrecondition(header, undefined);

describe('conditional requests', () => {
  it('reads If-Match revisions whatever the format suffix, and no weak tag (strong comparison)', () => {
    expect(parseIfMatch('"r1-json", "r2-xml"')).toEqual({ match: ['r1', 'r2'] });
    expect(parseIfMatch('"r1-json", W/"r2-xml"')).toEqual({ match: ['r1'] });
    expect(parseIfMatch('*')).toEqual({ match: '*' });
    expect(parsePrecondition(undefined, undefined)).toBeUndefined();
  });

  it('reads If-None-Match on a write: `*`, or revisions compared weakly', () => {
    expect(parsePrecondition(undefined, '*')).toEqual({ noneMatch: '*' });
    expect(parsePrecondition(undefined, 'W/"r1-json", "r2-xml"')).toEqual({ noneMatch: ['r1', 'r2'] });
    expect(parsePrecondition('"r1-json"', '*')).toEqual({ match: ['r1'], noneMatch: '*' });
  });

  it('matches a write precondition only against the current revision', () => {
    expect(matches(parseIfMatch('"r1-json"'), 'r1')).toBe(true);
    expect(matches(parseIfMatch('"r1-json"'), 'r2')).toBe(false);
    expect(matches(parseIfMatch('*'), undefined)).toBe(false);
    expect(matches(undefined, undefined)).toBe(true);
  });

  it('lets If-None-Match: * through only where nothing exists, and If-None-Match tags only where none is current', () => {
    expect(matches(parsePrecondition(undefined, '*'), undefined)).toBe(true);
    expect(matches(parsePrecondition(undefined, '*'), 'r1')).toBe(false);
    expect(matches(parsePrecondition(undefined, '"r1-json"'), 'r1')).toBe(false);
    expect(matches(parsePrecondition(undefined, '"r1-json"'), 'r2')).toBe(true);
    expect(matches(parsePrecondition(undefined, '"r1-json"'), undefined)).toBe(true);
    // Both: what exists must match, and nothing may: never.
    expect(matches(parsePrecondition('*', '*'), 'r1')).toBe(false);
    expect(matches(parsePrecondition('*', '*'), undefined)).toBe(false);
  });

  it('prefers If-None-Match over If-Modified-Since', () => {
    const headers = { 'if-none-match': '"b"', 'if-modified-since': 'Tue, 14 Nov 2023 22:13:20 GMT' };
    expect(isNotModified(headers, '"a"', 1_700_000_000)).toBe(false);
    expect(isNotModified({ 'if-modified-since': 'Tue, 14 Nov 2023 22:13:20 GMT' }, '"a"', 1_700_000_000)).toBe(true);
    expect(isNotModified({ 'if-modified-since': 'Tue, 14 Nov 2023 22:13:19 GMT' }, '"a"', 1_700_000_000)).toBe(false);
    expect(isNotModified({ 'if-modified-since': 'not a date' }, '"a"', 1_700_000_000)).toBe(false);
  });
});
