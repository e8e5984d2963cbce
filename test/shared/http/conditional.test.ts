import { describe, expect, it } from 'vitest';
import { satisfies as matches } from '../../../shared/domain/store';
import { isNotModified, parsePrecondition, unmetReadCondition } from '../../../shared/http/conditional';

const preconditionOf = (ifMatch?: string, ifNoneMatch?: string, ifUnmodifiedSince?: string) =>
  parsePrecondition({ 'if-match': ifMatch, 'if-none-match': ifNoneMatch, 'if-unmodified-since': ifUnmodifiedSince });
const parseIfMatch = (header: string) => preconditionOf(header);
/** A version of `revision` last changed at `updated` (Unix seconds). */
const at = (revision: string, updated = 1_700_000_000) => ({ revision, updated });
const NOV_14 = 'Tue, 14 Nov 2023 22:13:20 GMT'; // 1,700,000,000

describe('conditional requests', () => {
  it('reads If-Match revisions whatever the format suffix, and no weak tag (strong comparison)', () => {
    expect(parseIfMatch('"r1-json", "r2-xml"')).toEqual({ match: ['r1', 'r2'] });
    expect(parseIfMatch('"r1-json", W/"r2-xml"')).toEqual({ match: ['r1'] });
    expect(parseIfMatch('*')).toEqual({ match: '*' });
    expect(preconditionOf()).toBeUndefined();
  });

  it('reads If-None-Match on a write: `*`, or revisions compared weakly', () => {
    expect(preconditionOf(undefined, '*')).toEqual({ noneMatch: '*' });
    expect(preconditionOf(undefined, 'W/"r1-json", "r2-xml"')).toEqual({ noneMatch: ['r1', 'r2'] });
    expect(preconditionOf('"r1-json"', '*')).toEqual({ match: ['r1'], noneMatch: '*' });
  });

  it('reads If-Unmodified-Since only as an HTTP-date, and not at all beside If-Match', () => {
    expect(preconditionOf(undefined, undefined, NOV_14)).toEqual({ unmodifiedSince: 1_700_000_000 });
    expect(preconditionOf(undefined, undefined, 'yesterday')).toBeUndefined();
    expect(preconditionOf(undefined, undefined, `${NOV_14}, ${NOV_14}`)).toBeUndefined();
    expect(preconditionOf('"r1-json"', undefined, NOV_14)).toEqual({ match: ['r1'] });
  });

  it('matches a write precondition only against the current revision', () => {
    expect(matches(parseIfMatch('"r1-json"'), at('r1'))).toBe(true);
    expect(matches(parseIfMatch('"r1-json"'), at('r2'))).toBe(false);
    expect(matches(parseIfMatch('*'), undefined)).toBe(false);
    expect(matches(undefined, undefined)).toBe(true);
  });

  it('lets If-Unmodified-Since through a version changed at or before its date, and where nothing exists', () => {
    const since = preconditionOf(undefined, undefined, NOV_14);
    expect(matches(since, at('r1', 1_700_000_000))).toBe(true);
    expect(matches(since, at('r1', 1_700_000_001))).toBe(false);
    expect(matches(since, undefined)).toBe(true);
    // With If-None-Match: * as well, what exists fails that one.
    expect(matches(preconditionOf(undefined, '*', NOV_14), at('r1', 1))).toBe(false);
  });

  it('lets If-None-Match: * through only where nothing exists, and If-None-Match tags only where none is current', () => {
    expect(matches(preconditionOf(undefined, '*'), undefined)).toBe(true);
    expect(matches(preconditionOf(undefined, '*'), at('r1'))).toBe(false);
    expect(matches(preconditionOf(undefined, '"r1-json"'), at('r1'))).toBe(false);
    expect(matches(preconditionOf(undefined, '"r1-json"'), at('r2'))).toBe(true);
    expect(matches(preconditionOf(undefined, '"r1-json"'), undefined)).toBe(true);
    // Both: what exists must match, and nothing may: never.
    expect(matches(preconditionOf('*', '*'), at('r1'))).toBe(false);
    expect(matches(preconditionOf('*', '*'), undefined)).toBe(false);
  });

  it("holds a read's If-Match (strongly) before its If-Unmodified-Since", () => {
    expect(unmetReadCondition({ 'if-match': '"a"' }, '"a"', 2_000_000_000)).toBeUndefined();
    expect(unmetReadCondition({ 'if-match': '*' }, '"a"', undefined)).toBeUndefined();
    expect(unmetReadCondition({ 'if-match': 'W/"a"' }, '"a"', undefined)).toBe('match');
    expect(unmetReadCondition({ 'if-match': '"b", "c"' }, '"a"', undefined)).toBe('match');
    expect(unmetReadCondition({ 'if-unmodified-since': NOV_14 }, '"a"', 1_700_000_000)).toBeUndefined();
    expect(unmetReadCondition({ 'if-unmodified-since': NOV_14 }, '"a"', 1_700_000_001)).toBe('unmodifiedSince');
    expect(unmetReadCondition({ 'if-unmodified-since': 'soon' }, '"a"', 1_700_000_001)).toBeUndefined();
    expect(
      unmetReadCondition({ 'if-match': '"a"', 'if-unmodified-since': NOV_14 }, '"a"', 1_700_000_001),
    ).toBeUndefined();
  });

  it('prefers If-None-Match over If-Modified-Since', () => {
    const headers = { 'if-none-match': '"b"', 'if-modified-since': NOV_14 };
    expect(isNotModified(headers, '"a"', 1_700_000_000)).toBe(false);
    expect(isNotModified({ 'if-modified-since': NOV_14 }, '"a"', 1_700_000_000)).toBe(true);
    expect(isNotModified({ 'if-modified-since': 'Tue, 14 Nov 2023 22:13:19 GMT' }, '"a"', 1_700_000_000)).toBe(false);
    expect(isNotModified({ 'if-modified-since': 'not a date' }, '"a"', 1_700_000_000)).toBe(false);
  });
});
