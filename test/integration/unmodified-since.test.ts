import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  expectError,
  expectTableUnchanged,
  type MagazineView,
  magazineBody,
  uniqueId,
  useLocalApi,
} from './expect-api';

/**
 * `If-Unmodified-Since` on writes, and `If-Match` / `If-Unmodified-Since` on reads (RFC 9110
 * §13.1.1, §13.1.4, §13.2.2): a client that holds a `Last-Modified`, or an `ETag`, is refused 412
 * once the resource has moved on, and nothing changes.
 */
const local = useLocalApi();

/** Waits into the next second, so that a later write gets a later `Last-Modified` (HTTP dates have whole seconds). */
const nextSecond = () => sleep(1100 - (Date.now() % 1000));

const newMagazine = async () => {
  const id = uniqueId();
  expect((await local.client.post('/magazines', magazineBody({ id, title: 'Original' }))).status).toBe(201);
  return id;
};

const refused = async (send: () => ReturnType<typeof local.client.get>, header = '`If-Unmodified-Since`') => {
  const response = await expectTableUnchanged(local.api.documentClient, local.api.tableName, send);
  return expectError(response, { status: 412, baseUrl: local.api.baseUrl, mentions: [header] });
};

describe('If-Unmodified-Since on PUT and DELETE of a magazine', () => {
  it('applies a write when the magazine has not changed since the date, and refuses it (412, unchanged) once it has', async () => {
    const id = await newMagazine();
    const read = (await local.client.get(`/magazines/${id}`)).headers['last-modified']!;
    expect(
      (await local.client.put(`/magazines/${id}`, { title: 'Mine' }, { headers: { 'If-Unmodified-Since': read } }))
        .status,
    ).toBe(200);
    await nextSecond();
    expect((await local.client.put(`/magazines/${id}`, { title: 'Someone else' })).status).toBe(200);
    await refused(() =>
      local.client.put(`/magazines/${id}`, { title: 'Mine again' }, { headers: { 'If-Unmodified-Since': read } }),
    );
    await refused(() => local.client.delete(`/magazines/${id}`, { headers: { 'If-Unmodified-Since': read } }));
    expect((await local.client.get(`/magazines/${id}`)).json<MagazineView>().title).toBe('Someone else');
    const now = (await local.client.get(`/magazines/${id}`)).headers['last-modified']!;
    expect((await local.client.delete(`/magazines/${id}`, { headers: { 'If-Unmodified-Since': now } })).status).toBe(
      200,
    );
  });

  it('ignores it beside If-Match, when it is not an HTTP date, and where no magazine exists yet', async () => {
    const id = await newMagazine();
    const { etag, 'last-modified': read } = (await local.client.get(`/magazines/${id}`)).headers;
    await nextSecond();
    expect((await local.client.put(`/magazines/${id}`, { title: 'Moved on' })).status).toBe(200);
    const { etag: current } = (await local.client.get(`/magazines/${id}`)).headers;
    expect(etag).not.toBe(current);
    const matched = await local.client.put(
      `/magazines/${id}`,
      { title: 'By ETag' },
      { headers: { 'If-Match': current!, 'If-Unmodified-Since': read! } },
    );
    expect(matched.status, matched.text).toBe(200);
    const undated = await local.client.put(
      `/magazines/${id}`,
      { title: 'Undated' },
      { headers: { 'If-Unmodified-Since': 'yesterday' } },
    );
    expect(undated.status, undated.text).toBe(200);
    const fresh = uniqueId();
    const created = await local.client.put(
      `/magazines/${fresh}`,
      { title: 'New' },
      { headers: { 'If-Unmodified-Since': 'Mon, 01 Jan 2024 00:00:00 GMT' } },
    );
    expect(created.status, created.text).toBe(201);
  });
});

describe('If-Unmodified-Since on the collection', () => {
  it('PUT /magazines and DELETE /magazines are refused (412, unchanged) once any magazine changed after the date', async () => {
    const id = await newMagazine();
    const read = (await local.client.head('/magazines')).headers['last-modified']!;
    await nextSecond();
    expect((await local.client.put(`/magazines/${id}`, { title: 'Changed' })).status).toBe(200);
    await refused(() =>
      local.client.put('/magazines', [magazineBody({ id: 'only' })], { headers: { 'If-Unmodified-Since': read } }),
    );
    await refused(() => local.client.delete('/magazines', { headers: { 'If-Unmodified-Since': read } }));
    const now = (await local.client.head('/magazines')).headers['last-modified']!;
    const replaced = await local.client.put('/magazines', [magazineBody({ id: 'only' })], {
      headers: { 'If-Unmodified-Since': now },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect((await local.client.get('/magazines')).json<{ results: MagazineView[] }>().results.map((m) => m.id)).toEqual(
      ['only'],
    );
  });
});

describe('If-Match and If-Unmodified-Since on reads', () => {
  it('a GET or HEAD whose If-Match names no current ETag is 412; one that does (or `*`) is answered', async () => {
    const id = await newMagazine();
    const { etag } = (await local.client.get(`/magazines/${id}`)).headers;
    expect((await local.client.get(`/magazines/${id}`, { headers: { 'If-Match': etag! } })).status).toBe(200);
    expect((await local.client.get(`/magazines/${id}`, { headers: { 'If-Match': '*' } })).status).toBe(200);
    await refused(() => local.client.get(`/magazines/${id}`, { headers: { 'If-Match': '"gone-json"' } }), '`If-Match`');
    // Compared strongly: the same tag made weak matches nothing.
    await refused(() => local.client.get(`/magazines/${id}`, { headers: { 'If-Match': `W/${etag}` } }), '`If-Match`');
    const head = await local.client.head(`/magazines/${id}`, { headers: { 'If-Match': '"gone-json"' } });
    expectError(head, { status: 412, baseUrl: local.api.baseUrl, head: true });
    const list = await local.client.get('/magazines', { headers: { 'If-Match': '"gone"' } });
    expectError(list, { status: 412, baseUrl: local.api.baseUrl });
  });

  it('a GET of a resource changed after the If-Unmodified-Since date is 412; at or before it, answered', async () => {
    const id = await newMagazine();
    const read = (await local.client.get(`/magazines/${id}`)).headers['last-modified']!;
    expect((await local.client.get(`/magazines/${id}`, { headers: { 'If-Unmodified-Since': read } })).status).toBe(200);
    await nextSecond();
    expect((await local.client.put(`/magazines/${id}`, { title: 'Later' })).status).toBe(200);
    await refused(() => local.client.get(`/magazines/${id}`, { headers: { 'If-Unmodified-Since': read } }));
  });

  it('a read that would not be 200 is answered as it would be, whatever its preconditions', async () => {
    const missing = await local.client.get(`/magazines/${uniqueId()}`, { headers: { 'If-Match': '"any"' } });
    expectError(missing, { status: 404, baseUrl: local.api.baseUrl });
  });
});
