import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalEventBus, startLocalEventBus } from '../../local/event-bus';
import { type LocalServer, startLocalServer } from '../../local/server';
import { eventBus } from '../../shared/events/event-bus';

let bus: LocalEventBus;
let server: LocalServer;

beforeAll(async () => {
  bus = await startLocalEventBus();
  server = await startLocalServer({
    quiet: true,
    logErrors: false,
    handlers: async () => {
      throw new Error('no handler in this test');
    },
    events: () => bus,
  });
});
afterAll(async () => {
  await server.close();
  await bus.stop();
});

/** Reads the stream until `count` events have come, then hangs up. */
const readEvents = async (url: string, count: number, headers: Record<string, string> = {}) => {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while ((text.match(/\ndata: /g) ?? []).length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  controller.abort();
  return { response, text };
};

describe('GET /v1/events on the local server', () => {
  it('serves what the publisher put on the bus, by the same signed PutEvents call, as Server-Sent Events', async () => {
    const put = eventBus({ busName: bus.busName, region: 'us-east-1', endpoint: bus.endpoint });
    const result = await put([
      { Source: 'magazine-api', DetailType: 'MagazineCreated', Detail: '{"eventId":"e1","magazineId":"m1"}' },
      { Source: 'magazine-api', DetailType: 'MagazineDeleted', Detail: '{"eventId":"e2","magazineId":"m1"}' },
    ]);
    expect(result.failed).toEqual([]);
    const { response, text } = await readEvents(`${server.url}/v1/events?from=start`, 2);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(text).toContain(
      'id: 1\nevent: MagazineCreated\ndata: {"source":"magazine-api","detail-type":"MagazineCreated"',
    );
    expect(text).toContain('id: 2\nevent: MagazineDeleted\n');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const response = await fetch(`${server.url}/v1/events`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  it('resumes after Last-Event-ID', async () => {
    const { text } = await readEvents(`${server.url}/v1/events`, 1, { 'Last-Event-ID': '1' });
    expect(text).not.toContain('id: 1\n');
    expect(text).toContain('id: 2\nevent: MagazineDeleted\n');
  });

  it('takes only an id it wrote as Last-Event-ID: a negative or hexadecimal one replays nothing under a wrong id', async () => {
    for (const lastId of ['-1', '0x1', '1.5']) {
      const { text } = await readEvents(`${server.url}/v1/events?from=start`, 2, { 'Last-Event-ID': lastId });
      expect(text).toContain('id: 1\nevent: MagazineCreated\n');
      expect(text).toContain('id: 2\nevent: MagazineDeleted\n');
      expect(text).not.toMatch(/^id: (0|-)/m);
    }
  });

  it('reports a refused entry by index, as EventBridge does', async () => {
    const put = eventBus({ busName: bus.busName, region: 'us-east-1', endpoint: bus.endpoint });
    bus.refuseNext(1);
    const result = await put([
      { Source: 'magazine-api', DetailType: 'MagazineCreated', Detail: '{}' },
      { Source: 'magazine-api', DetailType: 'MagazineCreated', Detail: '{}' },
    ]);
    expect(result.failed).toEqual([0]);
  });
});
