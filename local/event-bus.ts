import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The stack's event bus, on this machine: an endpoint that answers EventBridge's PutEvents as the
 * service does, so that `functions/publish-events.ts` runs unchanged (the same signed call, to
 * `EVENTBRIDGE_ENDPOINT`), and keeps what it was given for whoever watches (`/v1/events` of the
 * local server, tests).
 */
export interface PublishedEvent {
  readonly source: string;
  readonly 'detail-type': string;
  readonly detail: Record<string, unknown>;
  readonly time: string;
}

export interface LocalEventBus {
  readonly busName: string;
  /** Where PutEvents is sent (`EVENTBRIDGE_ENDPOINT`). */
  readonly endpoint: string;
  /** Every event put so far, in the order it was put. */
  readonly events: readonly PublishedEvent[];
  /** Calls `listener` with each event put from now on; returns how to stop. */
  subscribe(listener: (event: PublishedEvent) => void): () => void;
  /** Refuses the next `n` entries put (their `ErrorCode`), as EventBridge may: for tests. */
  refuseNext(n: number): void;
  stop(): Promise<void>;
}

interface PutEntry {
  readonly Source?: string;
  readonly DetailType?: string;
  readonly Detail?: string;
  readonly Time?: number;
  readonly EventBusName?: string;
}

const readJson = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
};

export const startLocalEventBus = async (busName = 'magazine-api-local'): Promise<LocalEventBus> => {
  const events: PublishedEvent[] = [];
  const listeners = new Set<(event: PublishedEvent) => void>();
  let refusals = 0;
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
      answer(res, 400, { __type: 'UnknownOperationException', message: 'Only PutEvents is served here.' });
      return;
    }
    const { Entries = [] } = (await readJson(req)) as { Entries?: PutEntry[] };
    if (Entries.length > 10) {
      answer(res, 400, { __type: 'ValidationException', message: 'At most 10 entries a call.' });
      return;
    }
    const results = Entries.map((entry) => {
      if (refusals > 0) {
        refusals--;
        return { ErrorCode: 'InternalFailure', ErrorMessage: 'Refused for a test.' };
      }
      if (entry.EventBusName !== busName)
        return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: 'No such bus.' };
      const event: PublishedEvent = {
        source: entry.Source ?? '',
        'detail-type': entry.DetailType ?? '',
        detail: JSON.parse(entry.Detail ?? '{}') as Record<string, unknown>,
        time: new Date((entry.Time ?? Date.now() / 1000) * 1000).toISOString(),
      };
      events.push(event);
      for (const listener of listeners) listener(event);
      return { EventId: String(events.length) };
    });
    answer(res, 200, { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    busName,
    endpoint: `http://127.0.0.1:${port}/`,
    events,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refuseNext: (n) => {
      refusals = n;
    },
    stop: () =>
      new Promise<void>((done) => {
        listeners.clear();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
