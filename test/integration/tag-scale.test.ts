import { describe, expect, it } from 'vitest';
import { type Envelope, type TagView, useLocalApi } from './expect-api';

const local = useLocalApi();

describe('many distinct tags', () => {
  it('take 45 magazines of 32 long, distinct tags each, and show none once the magazines are gone', {
    timeout: 90_000,
  }, async () => {
    const tag = (m: number, t: number) => ({
      id: `tag-${String(m).padStart(2, '0')}-${String(t).padStart(2, '0')}-${'x'.repeat(52)}`,
      name: `Tag ${m}/${t}`,
    });
    for (let m = 0; m < 45; m++) {
      const response = await local.client.post('/magazines', {
        id: `many-${m}`,
        title: `Many ${m}`,
        tags: Array.from({ length: 32 }, (_, t) => tag(m, t)),
      });
      expect(response.status, response.text).toBe(201);
    }
    const tags = (await local.client.get('/tags?limit=1')).json<Envelope<TagView>>();
    expect(tags.metadata.resultset.count).toBe(45 * 32);
    const one = tag(44, 31);
    expect((await local.client.get(`/tags/${one.id}`)).json<TagView>()).toMatchObject({
      id: one.id,
      name: one.name,
      magazine_count: 1,
    });

    expect((await local.client.delete('/magazines')).status).toBe(200);
    expect((await local.client.get('/tags')).json<Envelope<TagView>>().metadata.resultset.count).toBe(0);
    expect((await local.client.get(`/tags/${one.id}`)).status).toBe(404);
  });

  it('drop a tag from /tags when its last magazine stops carrying it', async () => {
    expect(
      (
        await local.client.post('/magazines', {
          id: 'solo',
          title: 'Solo',
          tags: [{ name: 'Ephemeral' }, { name: 'Lasting' }],
        })
      ).status,
    ).toBe(201);
    expect(
      (await local.client.post('/magazines', { id: 'other', title: 'Other', tags: [{ name: 'Lasting' }] })).status,
    ).toBe(201);
    expect((await local.client.put('/magazines/solo', { title: 'Solo', tags: [{ name: 'Lasting' }] })).status).toBe(
      200,
    );
    expect((await local.client.get('/tags/ephemeral')).status).toBe(404);
    expect((await local.client.get('/tags/lasting')).json<TagView>()).toMatchObject({ magazine_count: 2 });
    const ids = (await local.client.get('/tags?limit=100')).json<Envelope<TagView>>().results.map((tag) => tag.id);
    expect(ids).toContain('lasting');
    expect(ids).not.toContain('ephemeral');
  });
});
