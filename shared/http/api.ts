import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as v from 'valibot';
import type { PageQuery } from '../domain/paging';
import type { Precondition, Store, WriteOptions } from '../domain/store';
import { takesLabels } from '../operation/paths';
import { type FallbackId, type OperationId, type OperationOf, operationById } from '../routes';
import type { Links } from './links';
import type { ListContext } from './lists';
import { errorRenderer } from './middleware/errors';
import { headerNormalizer } from './middleware/header-normalizer';
import { input } from './middleware/input';
import { metrics } from './middleware/metrics';
import { mockSwitch, type Stores } from './middleware/mock';
import { negotiation } from './middleware/negotiation';
import { response } from './middleware/response';
import type { ApiContext, ApiResult } from './middleware/state';
import { traceContext } from './middleware/trace-context';
import type { Reply } from './replies';
import type { PathParameters } from './request-path';

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

/**
 * What an operation receives: input typed by its row's schemas, the means to write links, and its
 * store: the operations of the `Store` that its handler named, and only those.
 */
export interface OperationRequest<Query, Body, S = Store> extends ListContext {
  readonly method: string;
  readonly params: PathParameters;
  readonly query: Query & ListContext['query'];
  readonly body: Body;
  /** The request path as sent, such as `/api/v1/magazines/abc.json`. */
  readonly requestPath: string;
  /** The API Gateway resource that matched, such as `/api/v1/magazines/{id}`. */
  readonly resource: string;
  readonly precondition: Precondition | undefined;
  /** The client's `Idempotency-Key` and the fingerprint of the request it may only be used with. */
  readonly idempotency: WriteOptions['idempotency'];
  /** A list's page: where it starts, how long, in which order. */
  readonly page: PageQuery;
  readonly links: Links;
  readonly store: S;
}

type QueryOf<Id extends OperationId> =
  OperationOf<Id> extends { readonly query: infer S } ? Output<S> : Record<string, never>;
type BodyOf<Id extends OperationId> = OperationOf<Id> extends { readonly body: infer S } ? Output<S> : undefined;

export type RequestOf<Id extends OperationId | FallbackId, S = Store> = Id extends OperationId
  ? OperationRequest<QueryOf<Id>, BodyOf<Id>, S>
  : OperationRequest<Record<string, never>, undefined, S>;

export interface Definition<Id extends OperationId | FallbackId, S = Store> {
  readonly run: (request: RequestOf<Id, S>) => Promise<Reply> | Reply;
}

/** No store: an operation that never touches the table and is typed so asks for none. */
const noStore = new Proxy({} as Store, {
  get: () => {
    throw new Error('This operation has no store.');
  },
});

/**
 * The one middleware stack of every function, in middy's documented order for REST APIs: the
 * trace context of the log lines and the request's metrics around everything, header
 * normalisation, negotiation, the mock switch (which store), input parsing and validation, the
 * operation, then the response (serialisation and conditional requests) in `after`, and one
 * error renderer in `onError`. The operation is the row of the route table named by `id`; `stores`
 * are given by shared/app.ts to operations that use the table.
 */
export const api = <Id extends OperationId | FallbackId, S extends Partial<Store> = Store>(
  id: Id,
  definition: Definition<Id, S> & { readonly stores?: Stores<S> },
) => {
  const fallback = id === 'notFound' || id === 'methodNotAllowed';
  const operation = fallback ? undefined : operationById(id as OperationId);
  const negotiates = !operation?.success.some((success) => 'document' in success);
  return middy<APIGatewayProxyEvent, ApiResult, Error, ApiContext>({ timeoutEarlyInMillis: 0 })
    .use(traceContext(id))
    .use(metrics(id, operation))
    .use(headerNormalizer())
    .use(negotiation(negotiates, !fallback, operation ? takesLabels(operation) : true))
    .use(mockSwitch(definition.stores, !fallback))
    .use(input(operation))
    .use(response())
    .use(errorRenderer())
    .handler(async (_event, context) => {
      const state = context.api;
      const given = state?.input;
      if (!state || !given) throw new Error('The input middleware did not run.');
      const request = {
        ...given,
        links: state.links,
        mock: state.mock,
        store: state.store ?? noStore,
        page: given.page ?? { start: { offset: 0 }, limit: 0, sort: 'asc' },
        query: given.query ?? {},
        // The row's schemas checked the query and body: their types are the row's, which TypeScript cannot see through the id.
      } as RequestOf<Id, S>;
      return definition.run(request);
    });
};
