import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as v from 'valibot';
import type { PageQuery } from '../domain/paging';
import type { Precondition, Store, WriteOptions } from '../domain/store';
import { takesLabels } from '../operation/paths';
import type { Operation } from '../operation/row';
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
import { wellFormedText } from './middleware/text';
import { traceContext } from './middleware/trace-context';
import type { ListPaging } from './paging';
import type { Reply } from './replies';
import type { PathParameters } from './request-path';

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

/**
 * What an operation receives: input typed by its row's schemas, the means to write links, and its
 * store: the operations of the `Store` that its handler named, and only those.
 */
interface OperationRequest<Query, Body, S = Store> extends ListContext {
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

/** The 404 and 405 serve no row: no query, no body. */
type QueryOf<Row> = Row extends { readonly query: infer S } ? Output<S> : Record<string, never>;
type BodyOf<Row> = Row extends { readonly body: infer S } ? Output<S> : undefined;

type RequestOf<Row extends Operation | undefined, S = Store> = OperationRequest<QueryOf<Row>, BodyOf<Row>, S>;

export interface Definition<Row extends Operation | undefined, S = Store> {
  readonly run: (request: RequestOf<Row, S>) => Promise<Reply> | Reply;
}

/** What shared/app.ts adds for the operations that use the table: their stores and, for lists, their pages' cursors. */
export interface Bound<S extends Partial<Store>> {
  readonly stores?: Stores<S>;
  readonly paging?: ListPaging;
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
 * normalisation, negotiation, refusing text that is not Unicode, the mock switch (which store),
 * input parsing and validation, the operation, then the response (serialisation and conditional
 * requests) in `after`, and one error renderer in `onError`. `operation` is the row of the route
 * table named by `id`, found by shared/routes/api.ts, and none for the 404 and 405; `stores` are
 * given by shared/app.ts to operations that use the table.
 */
export const api = <Row extends Operation | undefined, S extends Partial<Store> = Store>(
  id: string,
  operation: Row,
  definition: Definition<Row, S> & Bound<S>,
) => {
  const fallback = operation === undefined;
  const negotiates = !operation?.success.some((success) => 'document' in success);
  return middy<APIGatewayProxyEvent, ApiResult, Error, ApiContext>({ timeoutEarlyInMillis: 0 })
    .use(traceContext(id))
    .use(metrics(id, operation))
    .use(headerNormalizer())
    .use(negotiation(negotiates, !fallback, operation ? takesLabels(operation) : true))
    .use(wellFormedText(operation, negotiates))
    .use(mockSwitch(definition.stores, !fallback))
    .use(input(operation, definition.paging))
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
        // The row's schemas checked the query and body: their types are the row's, which TypeScript cannot see through `Row`.
      } as RequestOf<Row, S>;
      return definition.run(request);
    });
};
