import {
  AlreadyExists,
  type DomainError,
  type Entity,
  type InputRule,
  InvalidInput,
  KeyReused,
  NotFound,
  PreconditionFailed,
  RequestInProgress,
  StoreUnavailable,
} from '../domain/errors';
import type { FunctionErrorCode } from './error-catalogue';
import { ApiError } from './errors';

const notFound: Record<Entity, { code: FunctionErrorCode; message: (id: string) => string }> = {
  magazine: { code: '40402', message: (id) => `No magazine has the id \`${id}\`.` },
  article: { code: '40403', message: (id) => `No article has the id \`${id}\`.` },
  tag: { code: '40404', message: (id) => `No magazine carries a tag with the id \`${id}\`.` },
};

const inputRules: Record<InputRule, FunctionErrorCode> = {
  'id-mismatch': '40007',
  'duplicate-id': '40008',
  'duplicate-tag': '40009',
  'tag-id-underivable': '40010',
  'invalid-id': '40013',
  'foreign-cursor': '40004',
};

/** The store's failures with a code of their own; the others are `50301`. */
const storeCodes: Partial<Record<StoreUnavailable['reason'], FunctionErrorCode>> = {
  backlog: '50302',
  unconfirmed: '50303',
};

/**
 * The `Allow` of the 405 a POST of a taken id gets (HTTP requires one on every 405): what the
 * collection takes now for that magazine, POST aside. Held against the route table by a test, as
 * this layer sits below it.
 */
export const TAKEN_ID_ALLOW = 'GET, HEAD, PUT, DELETE, OPTIONS';

const preconditionMessages: Record<PreconditionFailed['condition'], string | undefined> = {
  match: undefined,
  unmodifiedSince: 'The resource changed after the date in the `If-Unmodified-Since` header; nothing was changed.',
  noneMatch: 'The `If-None-Match` header matches the resource as it is now; nothing was changed.',
};

/** Every domain error, as the catalogue names it: the one table between the data layer and HTTP. */
export const toApiError = (error: DomainError): ApiError => {
  if (error instanceof NotFound)
    return new ApiError(notFound[error.entity].code, notFound[error.entity].message(error.id));
  if (error instanceof InvalidInput) return new ApiError(inputRules[error.rule], error.message);
  if (error instanceof AlreadyExists) {
    return new ApiError(
      '40502',
      `A magazine with the id \`${error.id}\` exists already; nothing was created. Replace it with PUT /magazines/${error.id}, or send another id.`,
      { Allow: TAKEN_ID_ALLOW },
    );
  }
  // The catalogue's message names `If-Match`; a refusal by another header names that header instead.
  if (error instanceof PreconditionFailed) return new ApiError('41201', preconditionMessages[error.condition]);
  if (error instanceof StoreUnavailable)
    return new ApiError(storeCodes[error.reason] ?? '50301', undefined, {
      'Retry-After': String(error.retryAfter),
    });
  if (error instanceof RequestInProgress)
    return new ApiError('40901', undefined, { 'Retry-After': String(error.retryAfter) });
  if (error instanceof KeyReused) return new ApiError('42201');
  throw error;
};
