import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { takesLabels } from '../../operation/paths';
import type { Operation } from '../../operation/row';
import { parsePrecondition } from '../conditional';
import { ApiError } from '../errors';
import type { Format } from '../negotiation';
import { isFormat } from '../negotiation';
import type { ListPaging, ListParameters } from '../paging';
import { readJsonBody } from '../request-body';
import { operationPath, splitLabel } from '../request-path';
import { parseWith } from '../validation';
import { type ApiMiddleware, stateOf } from './state';

/** Only the list functions page (shared/app.ts gives them theirs): any other row that lists is a defect. */
const noPaging: ListPaging = () => Promise.reject(new Error('This operation has no cursor key.'));

/** A non-list request makes no cursor; its links never ask for one. */
const noCursor = (): string => {
  throw new Error('This operation makes no cursors.');
};

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
 * API Gateway routes `/magazines/` to `/magazines`: a client that builds `/magazines/${id}` from an
 * empty id must not replace or delete the whole collection (reads and POSTs there are harmless).
 */
const refuseEmptyIdentifier = ({ method, path }: Operation, requestPath: string) => {
  if ((method === 'PUT' || method === 'DELETE') && !path.includes('{') && requestPath.endsWith('/'))
    throw new ApiError('40013', `\`${method} ${path}/\` names an empty identifier; nothing was changed.`);
};

/**
 * Checks the request against its row and hands the operation typed input: the query and the
 * body by the row's schemas (400 naming the parameter or field), the path parameters without
 * their label, `If-Match`, `Idempotency-Key`, and a list's page. Every refusal comes before the
 * store is asked anything.
 */
export const input = (operation: Operation | undefined, paging: ListPaging = noPaging): ApiMiddleware => ({
  before: async (request) => {
    const state = stateOf(request);
    const { event } = request;
    if (operation) refuseEmptyIdentifier(operation, event.path);
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
    const listed = operation && list ? await paging(operation, path, list, state.mock) : undefined;
    state.input = {
      method: event.httpMethod,
      params,
      query,
      body,
      path,
      label,
      requestPath: event.path,
      resource: event.resource,
      precondition: operation?.ifMatch ? parsePrecondition(headers) : undefined,
      idempotency: operation?.idempotent
        ? idempotencyOf(headers['idempotency-key'], event.httpMethod, path, rawBodyText(event))
        : undefined,
      page: listed?.page,
      formatParameter: formatParameterOf(event.queryStringParameters?.format),
      cursorFor: listed?.cursorFor ?? noCursor,
    };
  },
});
