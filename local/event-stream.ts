import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LocalEventBus, PublishedEvent } from './event-bus';

/** Where `npm start` shows the change events as they are put on the bus (local only: the deployed API has no such path). */
export const EVENTS_PATH = '/v1/events';

/**
 * The bus's events as Server-Sent Events: `event:` is the event's name, `data:` the event as
 * EventBridge delivers it (`source`, `detail-type`, `detail`, `time`), `id:` its place on the bus,
 * so a client that reconnects with `Last-Event-ID` (browsers do) misses nothing. A new client gets
 * the events put from then on, or all of them with `?from=start`.
 */
export const serveEvents = (req: IncomingMessage, res: ServerResponse, bus: LocalEventBus) => {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  // HEAD: the headers of GET, as every GET path of the API answers it, and no stream.
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const write = (event: PublishedEvent, position: number) => {
    res.write(`id: ${position}\nevent: ${event['detail-type']}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  // Only an id this stream wrote (a place on the bus, digits) resumes; `-2`, `0x10` or `2.5` named
  // no event, and taken as a number they replayed the wrong events under wrong ids.
  const lastId = String(req.headers['last-event-id'] ?? '').trim();
  const from = /^\d+$/.test(lastId)
    ? Math.min(Number(lastId), bus.events.length)
    : new URL(req.url ?? '/', 'http://localhost').searchParams.get('from') === 'start'
      ? 0
      : bus.events.length;
  for (const [index, event] of bus.events.slice(from).entries()) write(event, from + index + 1);
  res.write(': connected\n\n');
  const stop = bus.subscribe((event) => write(event, bus.events.length));
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  req.once('close', () => {
    stop();
    clearInterval(keepAlive);
  });
};
