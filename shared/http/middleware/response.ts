import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { PreconditionFailed } from '../../domain/errors';
import { varyOf } from '../compression';
import { etagOf, isNotModified, lastModifiedHeader, unmetReadCondition } from '../conditional';
import { corsResponseHeaders } from '../cors';
import type { Negotiated } from '../negotiation';
import type { Reply, RepresentationReply } from '../replies';
import { toXml } from '../xml';
import { type ApiMiddleware, stateOf } from './state';

/**
 * Documents change only with a deployment, and a function instance starts after it: its start is
 * a safe `Last-Modified` (never earlier than the change; the ETag still matches across instances).
 */
const documentsSince = Math.floor(Date.now() / 1000);

const serialize = (negotiated: Negotiated, reply: RepresentationReply) =>
  negotiated.format === 'xml' ? toXml(reply.xml.root, reply.body, reply.xml.names) : JSON.stringify(reply.body);

const isReply = (value: unknown): value is Reply =>
  typeof value === 'object' &&
  value !== null &&
  'kind' in value &&
  (value.kind === 'representation' || value.kind === 'document');

/** `If-Match` and `If-Unmodified-Since` on a read hold before `If-None-Match` is asked (RFC 9110 §13.2.2). */
const checkReadConditions = (...args: Parameters<typeof unmetReadCondition>) => {
  const unmet = unmetReadCondition(...args);
  if (unmet) throw new PreconditionFailed(unmet);
};

const toResponse = (
  event: APIGatewayProxyEvent,
  negotiated: Negotiated,
  reply: Reply,
  mock: boolean,
): APIGatewayProxyResult => {
  const head = event.httpMethod === 'HEAD';
  const conditions = event.headers ?? {};
  if (reply.kind === 'document') {
    const etag = etagOf('json', reply.body);
    const headers = {
      ...corsResponseHeaders,
      Vary: varyOf(reply.body),
      'Content-Type': reply.contentType,
      ETag: etag,
      'Cache-Control': 'no-cache',
      ...lastModifiedHeader(documentsSince),
    };
    checkReadConditions(conditions, etag, documentsSince);
    if (isNotModified(conditions, etag, documentsSince)) {
      const { 'Content-Type': _, ...notModified } = headers;
      return { statusCode: 304, headers: notModified, body: '' };
    }
    return { statusCode: 200, headers, body: head ? '' : reply.body };
  }
  const body = serialize(negotiated, reply);
  const headers: Record<string, string> = {
    ...corsResponseHeaders,
    Vary: varyOf(body),
    'Content-Type': negotiated.contentType,
    ...reply.headers,
    // What a mock write "made" exists only in the mock data: its link keeps `mock`, as list links do.
    ...(reply.location && { Location: mock ? `${reply.location}?mock=True` : reply.location }),
  };
  if ((event.httpMethod === 'GET' || head) && reply.status === 200) {
    const etag = etagOf(negotiated.format, body, reply.revision);
    Object.assign(headers, { ETag: etag, 'Cache-Control': 'no-cache' }, lastModifiedHeader(reply.lastModified));
    checkReadConditions(conditions, etag, reply.lastModified);
    if (isNotModified(conditions, etag, reply.lastModified)) {
      const { 'Content-Type': _, ...notModified } = headers;
      return { statusCode: 304, headers: notModified, body: '' };
    }
  }
  return { statusCode: reply.status, headers, body: head ? '' : body };
};

/**
 * Turns what the operation returned into the HTTP response, in `after`: the negotiated format,
 * `Vary` and CORS on everything, `ETag`, `Last-Modified` and 304 for reads, no body for HEAD.
 */
export const response = (): ApiMiddleware => ({
  after: (request) => {
    const reply = request.response;
    if (!isReply(reply)) throw new Error('The operation returned no reply.');
    const state = stateOf(request);
    state.reply = reply;
    request.response = toResponse(request.event, state.negotiated, reply, state.mock);
  },
});
