import { describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../local/event-bus';
import { articleBody, magazineBody, uniqueId, useLocalApi } from './expect-api';

const local = useLocalApi({ events: true });

/** The events a step published, once the publisher has read every change the step wrote. */
const eventsOf = async (step: () => Promise<unknown>): Promise<PublishedEvent[]> => {
  const bus = local.api.eventBus!;
  await local.api.foldersCaughtUp();
  const before = bus.events.length;
  await step();
  await local.api.foldersCaughtUp();
  return bus.events.slice(before);
};
const names = (events: readonly PublishedEvent[]) => events.map((event) => event['detail-type']);
const requestIdOf = (response: { headers: Record<string, string | undefined> }) => response.headers['x-amzn-requestid'];

const newMagazine = async () => {
  const id = uniqueId();
  const response = await local.client.put(`/magazines/${id}`, magazineBody({ title: 'First' }));
  expect(response.status, response.text).toBe(201);
  return { id, response };
};

describe('change events (published from the table’s stream, as `npm start` serves them)', () => {
  it('creating a magazine publishes one MagazineCreated with its representation and the request id', async () => {
    let created: Awaited<ReturnType<typeof newMagazine>> | undefined;
    const events = await eventsOf(async () => {
      created = await newMagazine();
    });
    expect(names(events)).toEqual(['MagazineCreated']);
    expect(events[0]).toMatchObject({
      source: 'magazine-api',
      detail: {
        magazineId: created!.id,
        requestId: requestIdOf(created!.response),
        magazine: { id: created!.id, type: 'magazine', title: 'First' },
      },
    });
    // When the change was committed, in seconds as the stream tells it: within a minute of now.
    const occurred = new Date(events[0]!.detail.occurredAt as string).getTime();
    expect(Math.abs(occurred - Date.now())).toBeLessThan(60_000);
  });

  it('replacing, adding articles and deleting publish, in commit order, one event each', async () => {
    const { id } = await newMagazine();
    const responses: { headers: Record<string, string | undefined> }[] = [];
    const changes = await eventsOf(async () => {
      responses.push(await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Second' })));
      responses.push(await local.client.post(`/magazines/${id}/articles`, articleBody({ title: 'One' })));
      responses.push(await local.client.post(`/magazines/${id}/articles`, articleBody({ title: 'Two' })));
      responses.push(await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Third' })));
    });
    // Deleted once those are out: an article deleted with its magazine before its event is
    // published is shown by its id only (the next test), and this one shows articles whole.
    const deletion = await eventsOf(async () => {
      responses.push(await local.client.delete(`/magazines/${id}`));
    });
    const events = [...changes, ...deletion];
    expect(names(events)).toEqual([
      'MagazineReplaced',
      'ArticleAdded',
      'ArticleAdded',
      'MagazineReplaced',
      'MagazineDeleted',
    ]);
    expect(events.map((event) => event.detail.requestId)).toEqual(responses.map(requestIdOf));
    expect(events.map((event) => event.detail.magazineId)).toEqual(Array(5).fill(id));
    expect(events[0]!.detail).toMatchObject({ magazine: { title: 'Second' } });
    expect(events[1]!.detail).toMatchObject({ article: { title: 'One', magazine_id: id, type: 'article' } });
    expect(events[2]!.detail).toMatchObject({ article: { title: 'Two' } });
    expect(events[4]!.detail).toMatchObject({ deleted: { id } });
    expect(new Set(events.map((event) => event.detail.eventId)).size).toBe(5);
  });

  it('an article deleted with its magazine before its event went out is shown by its id, still in commit order', async () => {
    const { id } = await newMagazine();
    const events = await eventsOf(async () => {
      const added = await local.client.post(`/magazines/${id}/articles`, articleBody({ title: 'Brief' }));
      expect(added.status).toBe(201);
      expect((await local.client.delete(`/magazines/${id}`)).status).toBe(200);
    });
    expect(names(events)).toEqual(['ArticleAdded', 'MagazineDeleted']);
    const { article } = events[0]!.detail as { article: { id: string; title?: string } };
    // Whole if the publisher read it before the deletion removed it, else its id alone.
    expect(article.id).toMatch(new RegExp(`^${id}~`));
    if (article.title !== undefined) expect(article.title).toBe('Brief');
  });

  it('publishes nothing for refusals, mock requests, a replace that changes nothing, and an idempotent replay', async () => {
    const { id } = await newMagazine();
    const stale = (await local.client.get(`/magazines/${id}`)).headers.etag!;
    expect((await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Now' }))).status).toBe(200);
    const key = { headers: { 'Idempotency-Key': uniqueId('key') } };
    const first = await local.client.post('/magazines', magazineBody({ title: 'Once' }), key);
    expect(first.status).toBe(201);
    const events = await eventsOf(async () => {
      expect((await local.client.post('/magazines', { tags: 'not a list' })).status).toBe(400);
      expect(
        (await local.client.put(`/magazines/${id}`, magazineBody(), { headers: { 'If-Match': stale } })).status,
      ).toBe(412);
      expect((await local.client.delete(`/magazines/${uniqueId('absent')}`)).status).toBe(404);
      expect((await local.client.post(`/magazines/${uniqueId('absent')}/articles`, articleBody())).status).toBe(404);
      expect((await local.client.post('/magazines?mock=true', magazineBody())).status).toBe(201);
      expect((await local.client.delete(`/magazines/${id}?mock=true`)).status).toBeLessThan(300);
      expect((await local.client.put(`/magazines/${id}`, magazineBody({ title: 'Now' }))).status).toBe(200);
      expect((await local.client.post('/magazines', magazineBody({ title: 'Once' }), key)).status).toBe(201);
    });
    expect(names(events)).toEqual([]);
  });

  it('a bulk replace publishes one CollectionReplaced that says how to read the new set, and no item events; DELETE /magazines one CollectionDeleted', async () => {
    const replaced = await eventsOf(async () => {
      const response = await local.client.put('/magazines', [
        { title: 'Bulk 1' },
        { title: 'Bulk 2' },
        { title: 'Bulk 3' },
      ]);
      expect(response.status, response.text).toBe(200);
    });
    expect(names(replaced)).toEqual(['CollectionReplaced']);
    expect(replaced[0]!.detail).toMatchObject({
      collection: { count: 3, href: `${local.api.baseUrl}/v1/magazines` },
    });
    expect(replaced[0]!.detail).not.toHaveProperty('magazineId');
    const deleted = await eventsOf(async () => {
      expect((await local.client.delete('/magazines')).status).toBe(200);
    });
    expect(names(deleted)).toEqual(['CollectionDeleted']);
    // Writes after the switch are events of the new generation again.
    expect(names(await eventsOf(newMagazine))).toEqual(['MagazineCreated']);
  });

  it('a batch whose events the bus kept refusing is given again by the stream and then published once', async () => {
    const bus = local.api.eventBus!;
    const events = await eventsOf(async () => {
      bus.refuseNext(6);
      await newMagazine();
    });
    expect(names(events)).toEqual(['MagazineCreated']);
  });
});
