import { describe, expect, it } from 'vitest';
import type { Store } from '../../../shared/domain/store';
import { ok } from '../../../shared/http/replies';
import { api } from '../../../shared/routes/api';
import { row as getMagazineRow } from '../../../shared/routes/rows/get-magazine';
import { invoke } from '../../support/proxy-event';

/**
 * A list-valued header sent on several lines is one list (RFC 9110 §5.3): API Gateway hands the
 * function only the last line in `headers`, and every line in `multiValueHeaders`.
 */

/** A magazine of revision `rev1`, last changed at 1,700,000,000. */
const reader = api(getMagazineRow, {
  stores: { real: () => ({}) as Store, mock: {} as Store },
  run: ({ params }) =>
    ok(
      { id: params.id, title: 'T', tags: [] },
      { root: 'magazine', names: { tags: 'tag' } },
      { revision: 'rev1', lastModified: 1_700_000_000 },
    ),
});

const read = (headers: [string, string][]) =>
  invoke(reader, { resource: '/magazines/{id}', params: { id: 'm1' }, headers });

describe('a header sent on more than one line', () => {
  it('Accept: the lines are one list, so XML ranked first on one line is chosen over JSON ranked low on the next', async () => {
    const response = await read([
      ['Accept', 'application/xml'],
      ['Accept', 'application/json;q=0.1'],
    ]);
    expect(response.status).toBe(200);
    expect(response.headers['Content-Type']).toBe('application/xml; charset=utf-8');
  });

  it('If-None-Match: an ETag on any line matches, so the read is a 304', async () => {
    for (const order of [
      ['"rev1-json"', '"other-json"'],
      ['"other-json"', '"rev1-json"'],
    ]) {
      const response = await read(order.map((tag) => ['If-None-Match', tag]));
      expect(response.status, order.join(' then ')).toBe(304);
    }
  });

  it('If-Modified-Since and If-Unmodified-Since: several dates are a list of dates, and are ignored', async () => {
    const changed = 'Tue, 14 Nov 2023 22:13:20 GMT';
    const earlier = 'Thu, 01 Jan 1970 00:00:00 GMT';
    // Read alone, the last line makes a 304 or a 412; after another line, it is ignored.
    for (const [header, first, last, alone] of [
      ['If-Modified-Since', earlier, changed, 304],
      ['If-Unmodified-Since', changed, earlier, 412],
    ] as const) {
      expect((await read([[header, last]])).status, header).toBe(alone);
      expect(
        (
          await read([
            [header, first],
            [header, last],
          ])
        ).status,
        header,
      ).toBe(200);
    }
  });
});
