import { request as httpRequest } from 'node:http';

/**
 * A small HTTP client for the integration tests, on `node:http` rather than `fetch`, so that a
 * test controls every header sent: `fetch` adds `Accept: *\/*` and a `text/plain` body type of
 * its own, and both change what the API answers.
 */

/** What the API's clients send by default. */
export const SPEC_ACCEPT = 'application/json, text/javascript';

export interface HttpResponse {
  /** The request that was answered, as sent (path with query string). */
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** Header names in lower case, repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The body parsed as JSON (throws if it is not JSON). */
  json<T = JsonObject>(): T;
}

export type JsonObject = Record<string, unknown>;

export interface RequestOptions {
  /** Headers to send; `Accept` defaults to the clients' usual one, `null` leaves a header out. */
  readonly headers?: Readonly<Record<string, string | null>>;
  /** A value sent as JSON (with `Content-Type: application/json` unless a header says otherwise). */
  readonly json?: unknown;
  /** Raw bytes or text sent as they are. */
  readonly body?: string | Buffer;
}

/** Every response this module received since the last `takeResponses()` (one list per test file's worker). */
const received: HttpResponse[] = [];

/** The responses received since the last call, oldest first. */
export const takeResponses = (): HttpResponse[] => received.splice(0, received.length);

export const send = (
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResponse> => {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { Accept: SPEC_ACCEPT };
  let body: Buffer | undefined;
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json), 'utf8');
    headers['Content-Type'] = 'application/json';
  } else if (options.body !== undefined) {
    body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
    if (existing) delete headers[existing];
    if (value !== null) headers[name] = value;
  }
  if (body) headers['Content-Length'] = String(body.byteLength);

  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: `${url.pathname.replace(/\/$/, '')}${path}`, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined)
              responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
          }
          const response: HttpResponse = {
            method,
            path,
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            text,
            json: <T>() => JSON.parse(text) as T,
          };
          received.push(response);
          resolve(response);
        });
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
};

/** A client bound to one API: `client.get('/magazines')`. */
export const clientFor = (baseUrl: string) => ({
  baseUrl,
  request: (method: string, path: string, options?: RequestOptions) => send(baseUrl, method, path, options),
  get: (path: string, options?: RequestOptions) => send(baseUrl, 'GET', path, options),
  head: (path: string, options?: RequestOptions) => send(baseUrl, 'HEAD', path, options),
  post: (path: string, json?: unknown, options?: RequestOptions) =>
    send(baseUrl, 'POST', path, { ...options, ...(json !== undefined && { json }) }),
  put: (path: string, json?: unknown, options?: RequestOptions) =>
    send(baseUrl, 'PUT', path, { ...options, ...(json !== undefined && { json }) }),
  delete: (path: string, options?: RequestOptions) => send(baseUrl, 'DELETE', path, options),
});

export type Client = ReturnType<typeof clientFor>;

/** RFC 8288 `Link` header → `{ rel: url }`. */
export const parseLinkHeader = (header: string | undefined): Record<string, string> => {
  const links: Record<string, string> = {};
  if (!header) return links;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>\s*;\s*rel="?([^";]+)"?/.exec(part);
    if (match) links[match[2]!] = match[1]!;
  }
  return links;
};
