import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { parseLinkHeader } from './http';

/** The load's HTTP client (api-load.ts): many sockets to the local API, and the `next` link of a page. */

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly ms: number;
}

export interface ApiClient {
  get(path: string): Promise<Reply>;
  post(path: string, json: unknown): Promise<Reply>;
  close(): void;
}

/**
 * A client of the API on `node:http` with kept-alive sockets, as many as the writers: `fetch`
 * costs several times the CPU per request, and the load, the proxy and often the API share
 * this machine's cores. A request that gets no answer resolves with status 0 and the error as text,
 * so that a writer counts it rather than stops.
 */
export const apiClient = (baseUrl: string, sockets = 64): ApiClient => {
  const base = new URL(baseUrl);
  // A socket idle for 2 s is closed on this side: the server closes its own after 5 s, and a request
  // sent on one it is closing at that moment fails with no answer, which is not the API's doing.
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, timeout: 2_000 });
  const send = (method: string, path: string, json?: unknown) =>
    new Promise<Reply>((resolve) => {
      const started = performance.now();
      const body = json === undefined ? undefined : Buffer.from(JSON.stringify(json), 'utf8');
      const failed = (error: Error) =>
        resolve({ status: 0, headers: {}, text: `${error.name}: ${error.message}`, ms: performance.now() - started });
      const outgoing = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          agent,
          headers: {
            Accept: 'application/json',
            ...(body && { 'Content-Type': 'application/json', 'Content-Length': body.length }),
          },
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.once('error', failed);
          incoming.once('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              text: Buffer.concat(chunks).toString('utf8'),
              ms: performance.now() - started,
            }),
          );
        },
      );
      outgoing.once('error', failed);
      outgoing.end(body);
    });
  return {
    get: (path) => send('GET', path),
    post: (path, json) => send('POST', path, json),
    close: () => agent.destroy(),
  };
};

/** The path and query of a reply's `next` link, as the local server routes it (links may carry API Gateway's stage). */
export const nextPathOf = (reply: Reply): string | undefined => {
  const link = reply.headers.link;
  const next = parseLinkHeader(Array.isArray(link) ? link.join(', ') : link).next;
  if (!next) return undefined;
  const url = new URL(next);
  return `${url.pathname.replace(/^\/v1(?=\/)/, '')}${url.search}`;
};
