import middy, { type MiddlewareObj } from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { config } from '../config';
import { logger } from '../logger';
import { resourceTakesLabels } from '../routes';
import { etagOf, isNotModified, lastModifiedHeader, parseIfMatch, type IfMatch } from './conditional';
import { errorCatalogue } from './error-catalogue';
import { corsResponseHeaders } from './cors';
import { ApiError } from './errors';
import { linksFor, type Links } from './links';
import { defaultJson, isFormat, jsonFor, negotiate, type Format, type Negotiated } from './negotiation';
import type { Reply, RepresentationReply } from './replies';
import { readJsonBody } from './request-body';
import { parseWith } from './validation';
import { toXml } from './xml';

/** What an operation receives: validated input and the means to write links. */
export interface ApiRequest<Query, Body> {
  readonly method: string;
  /** Path parameters, with a format label split off the last one. */
  readonly params: PathParameters;
  readonly query: Query;
  readonly body: Body;
  /** Whether the request asked for simulated data. */
  readonly mock: boolean;
  /** The `format` query parameter, when the request chose its format so. */
  readonly formatParameter: Format | undefined;
  /** The request path without version prefix or label, such as `/magazines/abc`. */
  readonly path: string;
  /** The format label the path ended with (`json`, `xml`), if any. */
  readonly label: string | undefined;
  /** The path as requested, such as `/api/v1/magazines/abc.json`. */
  readonly requestPath: string;
  /** The API Gateway resource that matched, such as `/api/v1/magazines/{id}`. */
  readonly resource: string;
  readonly links: Links;
  readonly ifMatch: IfMatch | undefined;
  readonly requestId: string;
}

/** Every path parameter name the route table uses; those not in the matched path are `''`. */
export type PathParameters = Readonly<Record<'id' | 'articleId' | 'tagId' | 'errorCode', string>>;

export interface OperationDefinition<QuerySchema extends z.ZodMiniType, BodySchema extends z.ZodMiniType> {
  readonly query?: QuerySchema;
  readonly body?: BodySchema;
  /** Documents (HTML, the OpenAPI file) have one fixed format and take no label. */
  readonly negotiate?: boolean;
  readonly run: (request: ApiRequest<z.output<QuerySchema>, z.output<BodySchema>>) => Promise<Reply> | Reply;
  /**
   * Simulated answer for `mock` requests: same checks, no table access. Operations
   * that never touch the table leave it out and answer mock requests as real ones.
   */
  readonly mock?: (request: ApiRequest<z.output<QuerySchema>, z.output<BodySchema>>) => Reply;
}

interface RequestState {
  negotiated: Negotiated;
  mock: boolean;
  links: Links;
}

export type ApiContext = Context & { api: RequestState };

const errorBody = (links: Links | undefined, code: keyof typeof errorCatalogue, developerMessage: string) => ({
  developerMessage,
  userMessage: errorCatalogue[code].userMessage,
  errorCode: code,
  moreInfo: links ? links.to(`/documentation/errors/${code}.html`) : `/v1/documentation/errors/${code}.html`,
});

const corsHeaders = corsResponseHeaders;

const serialize = (negotiated: Negotiated, reply: RepresentationReply) =>
  negotiated.format === 'xml' ? toXml(reply.xml.root, reply.body, reply.xml.names) : JSON.stringify(reply.body);

const pathParameters = (event: APIGatewayProxyEvent) => {
  const given = event.pathParameters ?? {};
  const params: Record<keyof PathParameters, string> = { id: '', articleId: '', tagId: '', errorCode: '' };
  for (const name of Object.keys(params) as (keyof PathParameters)[]) params[name] = given[name] ?? '';
  return params;
};

const FORMAT_LABEL = /\.([A-Za-z0-9]+)$/;

/**
 * `.json`/`.xml` ends either a literal resource (`/magazines.json`) or the last parameter (`{id}` =
 * `1234.json`). On the catch-all `/{proxy+}` a known label still chooses the format of the 404.
 */
const splitLabel = (event: APIGatewayProxyEvent) => {
  const params = pathParameters(event);
  if (!resourceTakesLabels(event.resource)) return { params, label: undefined };
  if (event.resource.endsWith('{proxy+}')) {
    const label = FORMAT_LABEL.exec(event.path)?.[1]?.toLowerCase();
    return { params, label: label !== undefined && isFormat(label) ? label : undefined };
  }
  const lastParam = /\{([A-Za-z0-9_]+)\}$/.exec(event.resource)?.[1] as keyof PathParameters | undefined;
  if (lastParam && lastParam in params) {
    const value = params[lastParam];
    const label = FORMAT_LABEL.exec(value)?.[1];
    if (label !== undefined) params[lastParam] = value.slice(0, -label.length - 1);
    return { params, label };
  }
  return { params, label: FORMAT_LABEL.exec(event.resource)?.[1] };
};

const parseMock = (query: Record<string, string | undefined>): boolean => {
  const value = query.mock;
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower === '' || lower === 'true' || lower === '1') {
    if (!config().mockEnabled) throw new ApiError('40006');
    return true;
  }
  if (lower === 'false' || lower === '0') return false;
  throw new ApiError(
    '40005',
    `The \`mock\` query parameter accepts \`True\`, \`1\` or no value (mock on), and \`False\` or \`0\` (mock off); got \`${value}\`.`,
  );
};

/** Negotiates the format first, so that every later error is rendered in it. */
const negotiation = (
  negotiates: boolean,
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> => ({
  before: (request) => {
    const links = linksFor(request.event, config().baseUrl);
    const headers = request.event.headers ?? {};
    request.context.api = { negotiated: jsonFor(headers.accept), mock: false, links };
    if (!negotiates) return;
    request.context.api.negotiated = negotiate({
      label: splitLabel(request.event).label,
      formatParameter: request.event.queryStringParameters?.format ?? undefined,
      accept: headers.accept,
    });
  },
});

/**
 * Documents change only with a deployment, and a function instance starts after it: its start is
 * a safe `Last-Modified` (never earlier than the change; the ETag still matches across instances).
 */
const documentsSince = Math.floor(Date.now() / 1000);

const respond = (event: APIGatewayProxyEvent, negotiated: Negotiated, reply: Reply): APIGatewayProxyResult => {
  const head = event.httpMethod === 'HEAD';
  if (reply.kind === 'document') {
    const etag = etagOf('json', reply.body);
    const headers = {
      ...corsHeaders,
      Vary: 'Accept',
      'Content-Type': reply.contentType,
      ETag: etag,
      'Cache-Control': 'no-cache',
      ...lastModifiedHeader(documentsSince),
    };
    if (isNotModified(event.headers ?? {}, etag, documentsSince)) return { statusCode: 304, headers, body: '' };
    return { statusCode: 200, headers, body: head ? '' : reply.body };
  }
  const body = serialize(negotiated, reply);
  const headers: Record<string, string> = {
    ...corsHeaders,
    Vary: 'Accept',
    'Content-Type': negotiated.contentType,
    ...reply.headers,
    ...(reply.location && { Location: reply.location }),
  };
  const readsRepresentation = (event.httpMethod === 'GET' || head) && reply.status === 200;
  if (readsRepresentation) {
    const etag = etagOf(negotiated.format, body, reply.revision);
    Object.assign(headers, { ETag: etag, 'Cache-Control': 'no-cache' }, lastModifiedHeader(reply.lastModified));
    if (isNotModified(event.headers ?? {}, etag, reply.lastModified)) {
      const { 'Content-Type': _, ...notModifiedHeaders } = headers;
      return { statusCode: 304, headers: notModifiedHeaders, body: '' };
    }
  }
  return { statusCode: reply.status, headers, body: head ? '' : body };
};

const internalError = (requestId: string) =>
  new ApiError(
    '50001',
    `Something failed on the server while handling request ${requestId}; retry later, and quote this request id if it persists.`,
  );

/**
 * Renders every error as the spec's error object, in the negotiated format (JSON if that failed).
 * Should rendering itself fail, it leaves the response unset for `@middy/http-error-handler`.
 */
const errorRenderer = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> => ({
  onError: (request) => {
    const error = request.error;
    const state = request.context.api as RequestState | undefined;
    const negotiated = state?.negotiated ?? defaultJson;
    try {
      let apiError: ApiError;
      if (error instanceof ApiError) {
        apiError = error;
      } else {
        logger.error('Unhandled error', { error: error as Error, requestId: request.context.awsRequestId });
        apiError = internalError(request.context.awsRequestId);
      }
      const body = errorBody(state?.links, apiError.code, apiError.message);
      const serialized = negotiated.format === 'xml' ? toXml('error', body) : JSON.stringify(body);
      request.response = {
        statusCode: apiError.status,
        headers: { ...corsHeaders, Vary: 'Accept', 'Content-Type': negotiated.contentType, ...apiError.headers },
        body: request.event.httpMethod === 'HEAD' ? '' : serialized,
      };
    } catch (renderingError) {
      logger.error('Error rendering failed', {
        error: renderingError as Error,
        original: error as Error,
        requestId: request.context.awsRequestId,
      });
    }
  },
});

/** What `@middy/http-error-handler` answers if the renderer failed: still the spec's error object. */
const fallbackError = JSON.stringify(errorBody(undefined, '50001', errorCatalogue['50001'].developerMessage));

/**
 * Runs last on error: whatever answered, the response keeps the API's form (absolute `moreInfo`
 * with the request id, `Vary`, CORS, a JSON type with its charset).
 */
const lastResort = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> => ({
  onError: (request) => {
    const response = request.response;
    if (!response || response.body !== fallbackError) return;
    const links = (request.context.api as RequestState | undefined)?.links;
    response.body = JSON.stringify(errorBody(links, '50001', internalError(request.context.awsRequestId).message));
    response.headers = { ...response.headers, ...corsHeaders, Vary: 'Accept', 'Content-Type': defaultJson.contentType };
  },
});

/**
 * The one middleware stack of every function: header normalisation, format negotiation, mock
 * switch, query and body validation, the operation (or its mock), conditional requests, errors.
 */
export const api = <
  QuerySchema extends z.ZodMiniType = z.ZodMiniUnknown,
  BodySchema extends z.ZodMiniType = z.ZodMiniUnknown,
>(
  definition: OperationDefinition<QuerySchema, BodySchema>,
) =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>({ timeoutEarlyInMillis: 0 })
    .use(lastResort())
    .use(httpErrorHandler({ logger: false, fallbackMessage: fallbackError }))
    .use(httpHeaderNormalizer())
    .use(negotiation(definition.negotiate !== false))
    .use(errorRenderer())
    .handler(async (event, context) => {
      const rawQuery = Object.fromEntries(
        Object.entries(event.queryStringParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
      );
      const mock = parseMock(rawQuery);
      const query = definition.query
        ? parseWith(definition.query, rawQuery, 'query')
        : (undefined as z.output<QuerySchema>);
      const body = definition.body
        ? parseWith(
            definition.body,
            readJsonBody({
              body: event.body,
              isBase64Encoded: event.isBase64Encoded,
              contentType: event.headers?.['content-type'],
            }),
            'body',
          )
        : (undefined as z.output<BodySchema>);
      const { params, label } =
        definition.negotiate === false ? { params: pathParameters(event), label: undefined } : splitLabel(event);
      const request: ApiRequest<z.output<QuerySchema>, z.output<BodySchema>> = {
        method: event.httpMethod,
        params,
        query,
        body,
        mock,
        formatParameter: formatParameterOf(rawQuery),
        path: fillPath(event.resource, params),
        label,
        requestPath: event.path,
        resource: event.resource,
        links: context.api.links,
        ifMatch: parseIfMatch(event.headers?.['if-match']),
        requestId: context.awsRequestId,
      };
      const reply = mock && definition.mock ? definition.mock(request) : await definition.run(request);
      return respond(event, context.api.negotiated, reply);
    });

/** Negotiation has refused any other value by now. */
const formatParameterOf = (query: Readonly<Record<string, string>>): Format | undefined => {
  const value = query.format?.toLowerCase();
  return value !== undefined && isFormat(value) ? value : undefined;
};

/** `/api/v1/magazines/{id}.json` with `{id: "x"}` → `/magazines/x`. */
const fillPath = (resource: string, params: PathParameters) =>
  resource
    .replace(/^(\/api)?\/v\d+(?=\/)/, '')
    .replace(/\.(json|xml)$/, '')
    .replace(/\{([A-Za-z0-9_]+)\+?\}/g, (_, name: string) =>
      encodeURIComponent(params[name as keyof PathParameters] ?? ''),
    );
