import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeDirectory,
  decodeMagazineView,
  decodeTicket,
  directoryAttributes,
  encodeDeltas,
} from '../../../shared/db/items';
import { ticketKey } from '../../../shared/db/keys';
import { magazineItem } from '../../../shared/db/magazine-item';
import { type BlockRef, decodeEntries, type Entry, encodeEntries, separator } from '../../../shared/db/ranked';
import { IDENTIFIER_PATTERN } from '../../../shared/domain/fields';

const identifier = fc.stringMatching(IDENTIFIER_PATTERN);
const position = fc
  .tuple(fc.integer({ min: 0, max: 99_999_999_999 }), identifier)
  .map(([seconds, id]) => `${String(seconds).padStart(12, '0')}#${id}`);
const entry = fc.record({ key: fc.oneof(position, identifier), n: fc.integer({ min: -3, max: 500 }) });
const names = fc.array(fc.tuple(fc.string(), fc.integer({ min: 1, max: 9 })), { minLength: 1, maxLength: 3 });

describe('the stored forms of blocks, tickets and directories', () => {
  it('give back the entries they were made of, with or without spellings', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(entry, fc.record({ key: identifier, n: fc.nat(), names }))), (entries) => {
        const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        const decoded = decodeEntries(encodeEntries(sorted));
        expect(decoded).toEqual(
          sorted.map((e): Entry => ({ key: e.key, n: e.n, ...('names' in e && { names: e.names }) })),
        );
      }),
    );
  });

  it('are a third smaller than JSON for a block of magazine positions (what a page reads)', () => {
    const keys = Array.from(
      { length: 400 },
      (_, i) => `${String(1_700_000_000 + i * 787).padStart(12, '0')}#${crypto.randomUUID()}`,
    );
    const entries = keys.map((key) => ({ key, n: 1 }));
    // DynamoDB's JSON escapes each quote of a string attribute: what the wire carries.
    const wire = (text: string) => JSON.stringify(text).length;
    expect(wire(encodeEntries(entries))).toBeLessThan(wire(JSON.stringify(keys)) * 0.8);
    expect(decodeEntries(encodeEntries(entries))).toEqual(entries);
  });

  it('read what older folds and writes stored as JSON', () => {
    expect(decodeEntries('["000000000001#a",["000000000002#b",2],["x",3,[["X",3]]]]')).toEqual([
      { key: '000000000001#a', n: 1 },
      { key: '000000000002#b', n: 2 },
      { key: 'x', n: 3, names: [['X', 3]] },
    ]);
    expect(decodeTicket({ PK: 'p', SK: '#T1', at: 1, changes: '[["000000000001#a",-1]]' }).deltas).toEqual([
      { key: '000000000001#a', n: -1 },
    ]);
    expect(decodeDirectory({ PK: 'p', SK: '#X', blocks: '[["b1","",3,3],["b2","0002",4,2]]' }).blocks).toEqual([
      { id: 'b1', first: '', size: 3, visible: 3 },
      { id: 'b2', first: '0002', size: 4, visible: 2 },
    ]);
    // Bounds written whole, as folds wrote them before they were front-coded.
    expect(decodeDirectory({ PK: 'p', SK: '#X', blocks: 'b1,,3 b2,0002,4,2' }).blocks).toEqual([
      { id: 'b1', first: '', size: 3, visible: 3 },
      { id: 'b2', first: '0002', size: 4, visible: 2 },
    ]);
  });

  it('refuse a directory that is malformed: a bound claiming more of the one before than there is, counts that are no whole numbers, a missing end', () => {
    for (const blocks of [
      '~b1,0,3;b2,5x,4;',
      '~b1,,3;',
      '~b1,A,3;',
      '~b1,0,3',
      '~b1,0,;',
      '~b1,0,0x10;',
      '~b1,0,3.5;',
      '~b1,0,3,4,5;',
      'b1,,3 b2,0002,',
    ])
      expect(() => decodeDirectory({ PK: 'p', SK: '#X', blocks }), blocks).toThrow(/malformed/);
  });

  it("front-code a directory's bounds: a third smaller for a long list of magazines made a hundred a second", () => {
    // 100,000 positions, 100 a second, in blocks of 200 to 400: what a page of /magazines reads whole.
    const keys = Array.from(
      { length: 100_000 },
      (_, i) => `${String(1_764_000_000 + Math.floor(i / 100)).padStart(12, '0')}#${(i * 7919).toString(36)}`,
    ).sort();
    const blocks: BlockRef[] = [];
    for (let start = 0; start < keys.length; ) {
      const size = Math.min(200 + (blocks.length % 5) * 50, keys.length - start);
      const first = start === 0 ? '' : separator(keys[start - 1]!, keys[start]!);
      blocks.push({ id: `b${String(blocks.length).padStart(7, '0')}`, first, size, visible: size });
      start += size;
    }
    const stored = String(directoryAttributes({ blocks, retired: [] }, 1).blocks);
    const whole = blocks.map((block) => `${block.id},${block.first},${block.size}`).join(' ');
    expect(stored.length).toBeLessThan(whole.length * 0.75);
    expect(decodeDirectory({ PK: 'p', SK: '#X', blocks: stored }).blocks).toEqual(blocks);
  });

  it('are refused, not misread, by a reader of the form before (bounds whole, separated by spaces)', () => {
    // That reader's parse and check, as functions deployed before this form run them: a malformed
    // entry is a corrupt item, and a block it names that does not exist makes the read answer 503.
    const olderReader = (text: string) =>
      text.split(' ').map((coded) => {
        const [id = '', first = '', size = '', visible = size] = coded.split(',');
        if (!id || !Number.isFinite(Number(size)) || !Number.isFinite(Number(visible))) throw new Error('malformed');
        return { id, first };
      });
    const stored = (blocks: readonly BlockRef[]) => String(directoryAttributes({ blocks, retired: [] }, 1).blocks);
    const block = (n: number): BlockRef => ({
      id: `b000000${n}`,
      first: n ? `00176400001${n}` : '',
      size: 9,
      visible: 9,
    });
    // Any block of a directory may be read (and a sweep skips one it cannot find): every directory must be malformed to it.
    for (const blocks of [[block(0)], [block(0), block(1)], [block(0), block(1), block(2)]])
      expect(() => olderReader(stored(blocks))).toThrow('malformed');
  });

  it("keep a ticket's deltas, and a directory's blocks, as they were", () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1 }), (deltas) => {
        expect(decodeTicket({ PK: 'p', SK: '#T1', at: 1, changes: encodeDeltas(deltas) }).deltas).toEqual(deltas);
      }),
    );
    const blockId = fc.stringMatching(/^[A-Za-z0-9_-]{8}$/);
    // Long bounds sharing more than the 35 characters a front-coded digit can say, as well as positions.
    const longBound = fc.tuple(fc.integer({ min: 30, max: 40 }), identifier).map(([n, id]) => `${'7'.repeat(n)}${id}`);
    const ref = fc.record({
      id: blockId,
      first: fc.oneof(fc.constant(''), position, longBound),
      size: fc.integer({ min: -5, max: 100_000 }),
      visible: fc.nat(),
    });
    fc.assert(
      fc.property(fc.array(ref), (blocks: BlockRef[]) => {
        const item = { PK: 'p', SK: '#X', ...directoryAttributes({ blocks, retired: [] }, 1) };
        expect(decodeDirectory(item).blocks).toEqual(blocks);
      }),
    );
  });

  it("carry a ticket's time in its sort key, and its write token's first 64 bits in 11 characters", () => {
    const key = ticketKey('0', 'ALL', 1_795_754_958_123, '73b230f0-af03-428d-a5ab-7a59f3693517');
    expect(key.SK).toBe('#T1795754958123#c7Iw8K8DQo0');
    expect(decodeTicket({ ...key, changes: encodeDeltas([{ key: '001795754957#m-1', n: 1 }]) })).toEqual({
      sk: key.SK,
      at: 1_795_754_958,
      deltas: [{ key: '001795754957#m-1', n: 1 }],
    });
  });

  it('bound a block by the shortest prefix of its first key that sorts after the key before it', () => {
    expect(separator('000017000001#abc', '000017000002#abd')).toBe('000017000002');
    fc.assert(
      fc.property(position, position, (a, b) => {
        fc.pre(a !== b);
        const [last, first] = a < b ? [a, b] : [b, a];
        const bound = separator(last, first);
        expect(bound > last && bound <= first && first.startsWith(bound)).toBe(true);
      }),
    );
  });

  it("give back a magazine's tags, whatever their names hold, from one string a tag", () => {
    const tag = fc.record({ id: identifier, name: fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' }) });
    fc.assert(
      fc.property(fc.array(tag, { maxLength: 32 }), (tags) => {
        const magazine = { id: 'm-1', title: 'T', tags, created: 1, updated: 2, revision: 'r' };
        const item = magazineItem('0', magazine, 'inc');
        expect(item.tags).toEqual(tags.map((t) => `${t.id} ${t.name}`));
        expect(decodeMagazineView(item)).toEqual(magazine);
      }),
    );
  });

  it('read the tags of magazines written as maps of id and name, and refuse a tag of neither form', () => {
    const stored = { PK: 'p', SK: 'MAGAZINE', id: 'm-1', title: 'T', created: 1, updated: 2, revision: 'r' };
    const tags = [
      { id: 'a b', name: 'x' },
      { id: 'news', name: 'News  today ' },
    ];
    expect(decodeMagazineView({ ...stored, tags }).tags).toEqual(tags);
    expect(decodeMagazineView({ ...stored, tags: ['news News', { id: 'art', name: 'Art' }] }).tags).toEqual([
      { id: 'news', name: 'News' },
      { id: 'art', name: 'Art' },
    ]);
    for (const corrupt of [['news'], [' News'], [{ id: 'news' }], 'news News', [7]])
      expect(() => decodeMagazineView({ ...stored, tags: corrupt })).toThrow(/tags is not a list of tags/);
  });
});
