import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { PageQuery, PageStart } from '../../domain/paging';
import { takesLabels } from '../../operation/paths';
import type { Operation } from '../../operation/row';
import { parsePrecondition } from '../conditional';
import { decodeCursor, encodeCursor } from '../cursor';
import { ApiError, invalidParameter } from '../errors';
import type { Format } from '../negotiation';
import { isFormat } from '../negotiation';
import { readJsonBody } from '../request-body';
import { operationPath, splitLabel } from '../request-path';
import { parseWith } from '../validation';
import { type ApiMiddleware, stateOf } from './state';

interface ListParameters {
  readonly offset?: number | undefined;
  readonly limit: number;
  readonly sort: 'asc' | 'desc';
  readonly cursor?: string | undefined;
  readonly year?: number | undefined;
  readonly tag?: string | undefined;
}

/**
 * The list a cursor belongs to: the operation, its path (with the magazine or tag), its filters
 * and order, and its store: a position in the mock data means nothing in the table's, and back.
 */
const listIdentity = (operation: Operation, path: string, query: ListParameters, mock: boolean) =>
  [operation.id, path, query.year ?? '', query.tag ?? '', query.sort, mock ? 'mock' : 'table'].join('|');

const pageOf = (query: ListParameters, cursorKey: string, list: string): PageQuery => {
  if (query.offset !== undefined && query.cursor !== undefined) {
    throw invalidParameter(
      'Query parameters `offset` and `cursor` cannot be used together: a cursor already says where the page starts.',
    );
  }
  const start: PageStart =
    query.cursor !== undefined ? decodeCursor(cursorKey, list, query.cursor) : { offset: query.offset ?? 0 };
  return { start, limit: query.limit, sort: query.sort };
};

/** A list's row binds through shared/app.ts, which gives the key; an operation without one never makes a cursor. */
const noCursorKey = (): Promise<string> => Promise.reject(new Error('This operation has no cursor key.'));

/** RFC 9110 field values of the IETF draft's key: 1 to 255 printable ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,255}$/;

/**
 * The key, and a fingerprint of what it may be used with again: the method, the path and the body
 * as sent. The same key with another fingerprint is a different request (422).
 */
const idempotencyOf = (header: string | undefined, method: string, path: string, body: string) => {
  if (header === undefined) return undefined;
  const key = header.trim();
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('40014');
  return { key, fingerprint: createHash('sha256').update(`${method} ${path}\n${body}`).digest('base64url') };
};

const rawBodyText = (event: APIGatewayProxyEvent) =>
  event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : (event.body ?? '');

const formatParameterOf = (value: string | null | undefined): Format | undefined => {
  const lower = value?.toLowerCase();
  // Negotiation has refused any other value by now.
  return lower !== undefined && isFormat(lower) ? lower : undefined;
};

/**
 * Checks the request against its row and hands the operation typed input: the query and the
 * body by the row's schemas (400 naming the parameter or field), the path parameters without
 * their label, `If-Match`, `Idempotency-Key`, and a list's page. Every refusal comes before the
 * store is asked anything.
 */
export const input = (
  operation: Operation | undefined,
  cursorKey: () => Promise<string> = noCursorKey,
): ApiMiddleware => ({
  before: async (request) => {
    const state = stateOf(request);
    const { event } = request;
    const headers = event.headers ?? {};
    const rawQuery: Record<string, string> = {};
    for (const [name, value] of Object.entries(event.queryStringParameters ?? {}))
      if (value !== undefined) rawQuery[name] = value;
    const query = operation?.query ? parseWith(operation.query, rawQuery, 'query') : undefined;
    const body = operation?.body
      ? parseWith(
          operation.body,
          readJsonBody({
            body: event.body,
            isBase64Encoded: event.isBase64Encoded,
            contentType: headers['content-type'],
            contentEncoding: headers['content-encoding'],
          }),
          'body',
        )
      : undefined;
    const { params, label } = splitLabel(event, operation ? takesLabels(operation) : true);
    const path = operationPath(event.resource, params);
    // A list's row has a query schema that extends the page query (shared/http/query.ts).
    const list = operation?.list ? (query as unknown as ListParameters) : undefined;
    const cursorScope = operation && list ? listIdentity(operation, path, list, state.mock) : '';
    // Read once per instance (and during its init phase, by shared/app.ts): a promise already settled.
    const key = list ? await cursorKey() : '';
    state.input = {
      method: event.httpMethod,
      params,
      query,
      body,
      path,
      label,
      requestPath: event.path,
      resource: event.resource,
      precondition: operation?.ifMatch ? parsePrecondition(headers['if-match'], headers['if-none-match']) : undefined,
      idempotency: operation?.idempotent
        ? idempotencyOf(headers['idempotency-key'], event.httpMethod, path, rawBodyText(event))
        : undefined,
      page: list ? pageOf(list, key, cursorScope) : undefined,
      formatParameter: formatParameterOf(event.queryStringParameters?.format),
      cursorFor: (position, offset) => encodeCursor(key, cursorScope, position, offset),
    };
  },
});
