import { describe, expect, it } from 'vitest';
import { builtList } from '../../../shared/db/fold';
import { foldList } from '../../../shared/db/folder';
import { encodeDeltas } from '../../../shared/db/items';
import { ticketKey } from '../../../shared/db/keys';
import { fakeTableWithWrites } from '../../support/fake-table';

/**
 * The overlay of `TAGS` stays far under an item's 400 KB however long the tags' ids and spellings
 * and however many new tags a ticket brings: 6,000 tags of 64-character ids in blocks, then 120
 * writes that each bring 32 new tags with three 64-character spellings (3 bytes a character), all
 * waiting for the folder. Review finding: bounded by its number of tags only, the overlay reached
 * 516 KB on such tags (a fold's write then refused, and `TAGS` never folded again), and with
 * 32-tag rewrites it kept growing past its bound.
 */
const id = (prefix: string, i: number) => `${prefix.repeat(58)}${String(i).padStart(6, '0')}`;
const spelling = (i: number, v: number) => `${'漢'.repeat(60)}${String(i).padStart(3, '0')}${v}`;

describe('the overlay of TAGS under long new tags', () => {
  it('holds at most twice 24 KB, one fold and one merge, at every fold, and the folder takes every ticket', async () => {
    const { access, put, items } = fakeTableWithWrites();
    const existing = Array.from({ length: 6000 }, (_, i) => ({
      key: id('a', i),
      n: 1,
      names: [['A', 1]] as [string, number][],
    }));
    for (const item of builtList('0', 'TAGS', existing, 0)) put(item);
    for (let m = 0; m < 120; m++)
      put({
        ...ticketKey('0', 'TAGS', 1_700_000_000_000 + m, `w${m}`),
        changes: encodeDeltas(
          Array.from({ length: 32 }, (_, k) => ({
            key: id('b', m * 32 + k),
            n: 3,
            names: [1, 2, 3].map((v) => [spelling(m * 32 + k, v), 1] as [string, number]),
          })),
        ),
      });
    let largest = 0;
    const send = (access as unknown as { send: (request: unknown) => Promise<unknown> }).send;
    (access as unknown as { send: (request: unknown) => Promise<unknown> }).send = async (request) => {
      const answer = await send(request);
      const overlay = items.get('G#0#L#TAGS\u0000#V');
      const bytes = (text: unknown) => Buffer.byteLength(String(text ?? ''), 'utf8');
      // The tags a fold merged stay in the overlay, apart, until the next fold has written their states.
      largest = Math.max(largest, bytes(overlay?.entries) + bytes(overlay?.merged));
      return answer;
    };
    for (let pass = 0; pass < 20; pass++) await foldList(access, '0', 'TAGS', Date.now() + 60_000);
    const waiting = [...items.keys()].filter((key) => key.startsWith('G#0#L#TAGS\u0000#T'));
    expect(waiting).toHaveLength(0);
    // 48 KB, one fold of 30 tickets' worth of tags (a fold past 48 KB that grows it takes fewer) and
    // one merge's 24 KB at most.
    expect(largest).toBeLessThan(200 * 1024);
  }, 120_000);
});
