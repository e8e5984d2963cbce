import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  applyToBlocks,
  BLOCK_BYTES,
  BLOCK_ENTRIES,
  blockSplit,
  type Entry,
  encodeEntries,
  storedBytes,
} from '../../../shared/db/ranked';

/**
 * How big a block gets. A page reads one or two blocks whole, so their bytes are a page's. Ids and
 * tag spellings may be 64 characters each: 400 such tags made a block of about 60 KB, and a page
 * that read two of them 120 KB, where the same page of short ids reads 12.
 */
const bytes = storedBytes;
const id = (i: number, length: number) => `${String(i).padStart(5, '0')}-${'x'.repeat(Math.max(0, length - 6))}`;
const tag = (i: number, length = 64): Entry => ({ key: id(i, length), n: 1, names: [['N'.repeat(length), 1]] });

describe('a block split by entries and by bytes', () => {
  it('leaves a block of 400 short entries whole, and splits 401 as it always has (134 and 267)', () => {
    const short = Array.from({ length: 401 }, (_, i) => ({ key: id(i, 8), n: 1 }));
    expect(blockSplit(short.slice(0, 400), BLOCK_ENTRIES, BLOCK_BYTES).map((block) => block.length)).toEqual([400]);
    expect(blockSplit(short, BLOCK_ENTRIES, BLOCK_BYTES).map((block) => block.length)).toEqual([134, 267]);
  });

  it('makes no block of no entries: a block whose members all left is dropped', () => {
    expect(blockSplit([], BLOCK_ENTRIES, BLOCK_BYTES)).toEqual([]);
  });

  it('splits 400 tags of 64-character ids and spellings into blocks within the bytes a block holds', () => {
    const long = Array.from({ length: 400 }, (_, i) => tag(i));
    expect(bytes(long)).toBeGreaterThan(55 * 1024);
    const blocks = blockSplit(long, BLOCK_ENTRIES, BLOCK_BYTES);
    expect(blocks.flat()).toEqual(long);
    expect(Math.max(...blocks.map(bytes))).toBeLessThanOrEqual(BLOCK_BYTES);
    // About half full, room to grow before the next split.
    expect(Math.min(...blocks.slice(0, -1).map(bytes))).toBeGreaterThan(BLOCK_BYTES / 4);
  });

  it('keeps every entry, in order, within both limits, however long the entries (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 6, max: 64 }), { minLength: 1, maxLength: 900 }),
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 512, max: 16 * 1024 }),
        (lengths, most, mostBytes) => {
          const entries = lengths.map((length, i) => tag(i, length));
          const blocks = blockSplit(entries, most, mostBytes);
          expect(blocks.flat()).toEqual(entries);
          for (const block of blocks) {
            expect(block.length).toBeGreaterThan(0);
            expect(block.length).toBeLessThanOrEqual(most);
            if (block.length > 1) expect(bytes(block)).toBeLessThanOrEqual(mostBytes);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is how a fold writes blocks: a list of long tags folds into blocks within the bytes', () => {
    let next = 0;
    const { written, directory } = applyToBlocks(
      { blocks: [], retired: [] },
      new Map(),
      Array.from({ length: 400 }, (_, i) => tag(i)),
      { now: 0, newId: () => `b${next++}`, keepEmpty: true },
    );
    expect(written.length).toBeGreaterThan(3);
    expect(Math.max(...written.map((block) => bytes(block.entries)))).toBeLessThanOrEqual(BLOCK_BYTES);
    expect(directory.blocks.map((block) => block.visible).reduce((a, b) => a + b)).toBe(400);
  });

  it('encodes a whole list about twice to split it, not once a block (a bulk write splits 100,000 members at once)', () => {
    const members = Array.from({ length: 20_000 }, (_, i) => ({
      key: `00170000${String(i).padStart(4, '0')}#m-${i}`,
      n: 1,
    }));
    const once = encodeEntries(members).length;
    const measured = vi.spyOn(Buffer, 'byteLength');
    try {
      const blocks = blockSplit(members, BLOCK_ENTRIES, BLOCK_BYTES);
      expect(blocks.length).toBeGreaterThan(50);
      expect(blocks.flat()).toHaveLength(members.length);
      const encoded = measured.mock.calls.reduce((sum, [text]) => sum + String(text).length, 0);
      // Encoding the rest again for each block made this 53 times the list.
      expect(encoded).toBeGreaterThanOrEqual(once);
      expect(encoded).toBeLessThan(3 * once);
    } finally {
      measured.mockRestore();
    }
  });
});
