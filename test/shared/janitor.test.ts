import { describe, expect, it } from 'vitest';
import { ticketKey } from '../../shared/db/keys';
import { listsOfNewItems } from '../../shared/janitor';

describe('the lists a stream batch names for folding', () => {
  it('are each named once, those with the most new tickets first, and only for tickets', () => {
    const token = '73b230f0-af03-428d-a5ab-7a59f3693517';
    const keys = [
      ticketKey('0', 'TAG#news', 1, token),
      ticketKey('0', 'ALL', 2, token),
      ticketKey('0', 'TAGS', 3, token),
      ticketKey('0', 'ALL', 4, token),
      ticketKey('0', 'TAGS', 5, token),
      ticketKey('0', 'ALL', 6, token),
      { PK: 'G#0#MAG#m1', SK: 'MAGAZINE' },
    ];
    expect(listsOfNewItems(keys)).toEqual([
      { generation: '0', list: 'ALL' },
      { generation: '0', list: 'TAGS' },
      { generation: '0', list: 'TAG#news' },
    ]);
  });
});
