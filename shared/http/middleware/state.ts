import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { PageQuery } from '../../domain/paging';
import type { Precondition, Store, WriteOptions } from '../../domain/store';
import type { Links } from '../links';
import type { Format, Negotiated } from '../negotiation';
import type { Reply } from '../replies';
import type { PathParameters } from '../request-path';

/** The validated request, as the input middleware hands it to the operation. */
interface Input {
  readonly method: string;
  /** Path parameters, with a format label split off the last one. */
  readonly params: PathParameters;
  readonly query: unknown;
  readonly body: unknown;
  /** The request path without version prefix or label, such as `/magazines/abc`. */
  readonly path: string;
  /** The format label the path ended with (`json`, `xml`), if any. */
  readonly label: string | undefined;
  /** The path as requested, such as `/api/v1/magazines/abc.json`. */
  readonly requestPath: string;
  /** The API Gateway resource that matched, such as `/api/v1/magazines/{id}`. */
  readonly resource: string;
  readonly precondition: Precondition | undefined;
  /** The client's `Idempotency-Key` and a fingerprint of the request it may only be used with. */
  readonly idempotency: WriteOptions['idempotency'];
  /** Where a list's page starts (offset or cursor), how long, in which order. */
  readonly page: PageQuery | undefined;
  /** The `format` query parameter, when the request chose its format so. */
  readonly formatParameter: Format | undefined;
  /** Turns a page's `next` position into the signed `cursor` of its `next` link. */
  readonly cursorFor: (position: string, offset: number) => string;
}

/** What the middlewares learn about a request, on the Lambda context: each sets its part once. */
interface RequestState {
  readonly links: Links;
  negotiated: Negotiated;
  mock: boolean;
  /** The operations of the store the handler uses, on the table or simulated. */
  store?: Partial<Store>;
  input?: Input;
  /** What the operation returned, before it was serialised. */
  reply?: Reply;
}

export type ApiContext = Context & { api?: RequestState };

export type ApiResult = APIGatewayProxyResult | Reply;

export type ApiMiddleware = MiddlewareObj<APIGatewayProxyEvent, ApiResult, Error, ApiContext>;

export type ApiRequest = Request<APIGatewayProxyEvent, ApiResult, Error, ApiContext>;

/** The state a `before` middleware earlier in the stack has set: a middleware out of order fails loudly, in form. */
export const stateOf = (request: ApiRequest): RequestState => {
  const state = request.context.api;
  if (!state) throw new Error('The request state is not set: the negotiation middleware must run first.');
  return state;
};
