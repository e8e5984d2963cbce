import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isDocumentationRoute } from '../infra/rest-api-definition';
import { gatewayErrorHeaders, gatewayErrorObject, gatewayErrorOf } from '../shared/http/gateway-errors';
import { expandRoutes, timeoutSecondsOf } from '../shared/routes/table';
import { splitUrl, toApiGatewayEvent } from './api-gateway-event';
import type { LocalApiKeys } from './api-keys';
import { compressForClient, decodeRequestBody } from './compression';
import type { LocalEventBus } from './event-bus';
import { EVENTS_PATH, serveEvents } from './event-stream';
import {
  checkProxyResult,
  GatewayFailure,
  gatewayError,
  preflightHeaders,
  responseHeaders,
  unreadable,
} from './gateway-answers';
import { lambdaContext } from './lambda-context';
import type { HandlerLoader, LambdaHandler } from './load-handler';
import { createRouter, type RouteMatch, type Router } from './router';

export interface LocalServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** No request log lines. */
  readonly quiet?: boolean;
  /** Print why a request ended in a 502 (a handler that threw or answered malformed). Default true. */
  readonly logErrors?: boolean;
  readonly stage?: string;
  /** Resolves a route's `handler` name to its function: `sourceHandlers` or `bundledHandlers` of a prepared environment. */
  readonly handlers: HandlerLoader;
  readonly router?: Router;
  /**
   * API keys, checked as the deployed API checks them when keys are on: every route but the
   * documentation paths and CORS preflight needs a key of these (`x-api-key`), within its plan.
   */
  readonly apiKeys?: LocalApiKeys;
  /** The change events' bus, once there is one: served as Server-Sent Events at `/v1/events`. */
  readonly events?: () => LocalEventBus | undefined;
}

export interface LocalServer {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** API Gateway's payload limit; the API's own 1 MiB limit is the handlers' business. */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/** API Gateway's integration timeout. */
const INTEGRATION_TIMEOUT_MS = 29_000;

/** Like Lambda: a module is loaded once (cold start) and reused; a failed load is retried next time. */
const cachedLoader = (load: HandlerLoader): HandlerLoader => {
  const cache = new Map<string, Promise<LambdaHandler>>();
  return (name) => {
    let loading = cache.get(name);
    if (!loading) {
      loading = load(name);
      cache.set(name, loading);
      loading.catch(() => cache.delete(name));
    }
    return loading;
  };
};

const readBody = (req: IncomingMessage): Promise<Buffer | 'too-large'> =>
  new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit, keep reading (and dropping) so the client gets to read the 413.
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.once('end', () => resolveBody(size > MAX_REQUEST_BYTES ? 'too-large' : Buffer.concat(chunks)));
    req.once('error', reject);
  });

/** A function stopped by Lambda at its timeout is a failed integration (502); one API Gateway stops waiting for, a timeout (504). */
const withTimeout = <T>(
  work: Promise<T>,
  ms: number,
  outcome: 'INTEGRATION_FAILURE' | 'INTEGRATION_TIMEOUT',
): Promise<T> =>
  new Promise((resolveWork, reject) => {
    const timer = setTimeout(
      () => reject(new GatewayFailure(outcome, `The function did not answer within ${ms} ms.`)),
      ms,
    );
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolveWork(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

/**
 * The API on a local port, as API Gateway would serve it: each request is routed with the route
 * table, turned into a REST (v1) proxy event and handed to the function's `handler`; the answer is
 * compressed as the deployed API compresses it (infra/compression.ts).
 */
export const startLocalServer = async (options: LocalServerOptions): Promise<LocalServer> => {
  const host = options.host ?? '127.0.0.1';
  const stage = options.stage ?? 'local';
  const route = options.router ?? createRouter();
  const loadHandler = cachedLoader(options.handlers);
  const logErrors = options.logErrors ?? true;
  const routedResources = new Set(expandRoutes().map((r) => r.resource));
  // The documentation's paths are open whatever the method, as on the deployed API (infra/rest-api-definition.ts).
  const documentationResources = new Set(
    expandRoutes()
      .filter(isDocumentationRoute)
      .map((r) => r.resource),
  );

  const invoke = async (
    match: RouteMatch,
    event: APIGatewayProxyEvent,
    requestId: string,
  ): Promise<APIGatewayProxyResult> => {
    const name = match.route.handler;
    let handler: LambdaHandler;
    try {
      handler = await loadHandler(name);
    } catch (error) {
      throw new GatewayFailure('INTEGRATION_FAILURE', `functions/${name}.ts could not be loaded.`, error);
    }
    // The function's own timeout, as deployed: Lambda stops it there, and API Gateway answers 502.
    const timeoutMs = timeoutSecondsOf(name) * 1000;
    const context = lambdaContext(`magazine-api-${stage}-${name}`, requestId, { timeoutMs });
    let result: unknown;
    try {
      result = await withTimeout(
        handler(event, context),
        Math.min(timeoutMs, INTEGRATION_TIMEOUT_MS),
        timeoutMs < INTEGRATION_TIMEOUT_MS ? 'INTEGRATION_FAILURE' : 'INTEGRATION_TIMEOUT',
      );
    } catch (error) {
      if (error instanceof GatewayFailure) throw error;
      throw new GatewayFailure('INTEGRATION_FAILURE', `functions/${name}.ts threw.`, error);
    }
    return checkProxyResult(result);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = randomUUID();
    const method = (req.method ?? 'GET').toUpperCase();
    const { path } = splitUrl(req.url ?? '/');
    const log = () => {
      if (!options.quiet)
        console.log(`${method} ${req.url ?? '/'} ${res.statusCode} ${Math.round(performance.now() - started)}ms`);
    };
    res.once('finish', log);
    const bus = (method === 'GET' || method === 'HEAD') && path === EVENTS_PATH ? options.events?.() : undefined;
    if (bus) {
      serveEvents(req, res, bus);
      return;
    }
    try {
      const sent = await readBody(req);
      const body =
        sent === 'too-large' ? sent : decodeRequestBody(sent, req.headers['content-encoding'], MAX_REQUEST_BYTES);
      if (body === 'too-large') {
        throw new GatewayFailure('REQUEST_TOO_LARGE', `The request body is larger than ${MAX_REQUEST_BYTES} bytes.`);
      }
      if (body === 'refused') {
        throw new GatewayFailure(
          'UNSUPPORTED_MEDIA_TYPE',
          `The request body does not decode with Content-Encoding ${req.headers['content-encoding']}.`,
        );
      }
      const match = route(method, path);
      // Only a custom router can miss: the deployed routes send every path somewhere.
      if (!match) throw new GatewayFailure('RESOURCE_NOT_FOUND', `The router has no route for ${method} ${path}.`);
      if (method === 'OPTIONS' && routedResources.has(match.route.resource)) {
        res.writeHead(204, { ...preflightHeaders, 'x-amzn-RequestId': requestId });
        res.end();
        return;
      }
      const apiKeys = options.apiKeys;
      if (apiKeys && !documentationResources.has(match.route.resource)) {
        const header = req.headers['x-api-key'];
        const refusal = apiKeys.check(Array.isArray(header) ? header[0] : header);
        if (refusal)
          throw new GatewayFailure(refusal.responseType, refusal.developerMessage, undefined, refusal.developerMessage);
      }
      const event = toApiGatewayEvent(req, body, match, { stage, requestId });
      const result = await invoke(match, event, requestId);
      let payload: Buffer = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
      const headers = responseHeaders(result);
      // Like API Gateway, state the length of what is sent rather than stream it chunked.
      if (method !== 'HEAD') {
        for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length') delete headers[name];
        if (result.statusCode !== 204 && result.statusCode !== 304) {
          const encoded = Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding');
          const compressed = compressForClient(payload, req.headers['accept-encoding'], encoded);
          payload = compressed.body;
          if (compressed.coding) headers['Content-Encoding'] = [compressed.coding];
          headers['Content-Length'] = [String(payload.length)];
        }
      }
      res.writeHead(result.statusCode, { ...headers, 'x-amzn-RequestId': requestId });
      res.end(method === 'HEAD' || payload.length === 0 ? undefined : payload);
    } catch (error) {
      const gateway =
        error instanceof GatewayFailure
          ? error
          : new GatewayFailure('INTEGRATION_FAILURE', 'The local server failed.', error);
      if (
        logErrors &&
        (gateway.responseType === 'INTEGRATION_FAILURE' || gateway.responseType === 'INTEGRATION_TIMEOUT')
      ) {
        console.error(`${method} ${req.url ?? '/'} (request ${requestId}): ${gateway.message}`, gateway.cause ?? '');
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      gatewayError(req, res, requestId, gateway);
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  // Answer `Expect: 100-continue` with the 413 before the client sends a body that is too large.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_REQUEST_BYTES) {
      res.shouldKeepAlive = false;
      const requestId = randomUUID();
      res.once('finish', () => {
        if (!options.quiet) console.log(`${req.method ?? ''} ${req.url ?? '/'} 413 0ms`);
      });
      gatewayError(
        req,
        res,
        requestId,
        new GatewayFailure(
          'REQUEST_TOO_LARGE',
          `Content-Length ${declared} is larger than ${MAX_REQUEST_BYTES} bytes.`,
        ),
      );
      return;
    }
    res.writeContinue();
    void handle(req, res);
  });

  /** Where the server listens, once it does: the base of the links its own refusals write. */
  let url = '';

  // A request Node cannot parse (an unknown method, raw bytes in the URL, a URL and headers over 16 KB) is
  // refused before any route, as API Gateway refuses what it cannot read: still the error object.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const failure = gatewayErrorOf('DEFAULT_4XX');
    const body = JSON.stringify({
      ...gatewayErrorObject(failure, url),
      developerMessage: unreadable[error.code ?? ''] ?? unreadable.default,
    });
    const headers = { ...gatewayErrorHeaders(failure), 'Content-Length': Buffer.byteLength(body), Connection: 'close' };
    socket.end(
      `HTTP/1.1 400 Bad Request\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\r\n')}\r\n\r\n${body}`,
    );
  });

  await new Promise<void>((listening, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      listening();
    });
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    port,
    close: async () => {
      await new Promise<void>((closed, reject) => {
        server.close((error) => (error ? reject(error) : closed()));
        server.closeAllConnections();
      });
      await options.handlers.close?.();
    },
  };
};
