import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type Envelope, type TagView, useLocalApi } from './expect-api';

const local = useLocalApi();

/** The counter items behind the tags, read behind the API's back. */
const catalogueItems = async () =>
  (
    await local.api.documentClient.send(
      new QueryCommand({
        TableName: local.api.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': 'CATALOGUE' },
      }),
    )
  ).Items ?? [];

const tagAttributes = (items: Record<string, unknown>[]) =>
  items.flatMap((item) => Object.keys(item).filter((attribute) => attribute.includes('#T#')));

describe('many distinct tags', () => {
  it('take 45 magazines of 32 long, distinct tags each, and leave no counter behind once the magazines are gone', async () => {
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
    expect(tagAttributes(await catalogueItems())).toEqual([]);
  });

  it('drop a tag from the shards when its last magazine stops carrying it', async () => {
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
    const left = tagAttributes(await catalogueItems());
    expect(left.filter((attribute) => attribute.includes('ephemeral'))).toEqual([]);
    expect(left.filter((attribute) => attribute.includes('lasting')).sort()).toEqual([
      expect.stringMatching(/^count#T#lasting$/),
      expect.stringMatching(/^count#T#lasting#Y\d{4}$/),
      'name#T#lasting',
    ]);
  });
});
