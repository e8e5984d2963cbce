import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../shared/http/cursor';

/**
 * The cursor of a `next` link is remembered from one request to the next (a warm function signs
 * the same page's cursor again): whatever was made just before, a cursor is the one of its own
 * key, list, position and offset, and no other list's or key's check accepts it.
 */
describe('cursors', () => {
  const made = [
    ['k1', 'listMagazines|/magazines|||asc|table', '001717200000#mag-01', 25],
    ['k1', 'listMagazines|/magazines|||asc|table', '001717200000#mag-01', 25],
    ['k1', 'listMagazines|/magazines|||desc|table', '001717200000#mag-01', 25],
    ['k2', 'listMagazines|/magazines|||desc|table', '001717200000#mag-01', 25],
    ['k2', 'listMagazines|/magazines|||desc|table', '001717200000#mag-02', 25],
    ['k2', 'listMagazines|/magazines|||desc|table', '001717200000#mag-02', 50],
    ['k1', 'listMagazines|/magazines|||asc|table', '001717200000#mag-01', 25],
  ] as const;

  it('are each their own, made in any order', () => {
    const cursors = made.map(([key, list, position, offset]) => encodeCursor(key, list, position, offset));
    for (const [i, [key, list, position, offset]] of made.entries()) {
      expect(decodeCursor(key, list, cursors[i]!)).toEqual({ after: position, offset });
      for (const [j, other] of made.entries()) {
        const same = other[0] === key && other[1] === list && other[2] === position && other[3] === offset;
        expect(cursors[j] === cursors[i]).toBe(same);
        if (other[0] !== key || other[1] !== list)
          expect(() => decodeCursor(other[0], other[1], cursors[i]!)).toThrow(/not a cursor of this list/);
      }
    }
  });
});
