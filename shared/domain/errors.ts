/**
 * What can go wrong in the domain, in its own words. The data layer raises these; the HTTP edge
 * maps each kind to a code of the error catalogue in one table (shared/http/domain-errors.ts).
 */

export type Entity = 'magazine' | 'article' | 'tag';

export abstract class DomainError extends Error {
  abstract readonly kind: string;
}

/** No such item, or one deleted (a magazine's articles are gone with it). */
export class NotFound extends DomainError {
  readonly kind = 'not-found';
  constructor(
    readonly entity: Entity,
    readonly id: string,
  ) {
    super(`No ${entity} has the id ${id}.`);
  }
}

/** A create whose identifier is taken. */
export class AlreadyExists extends DomainError {
  readonly kind = 'already-exists';
  constructor(
    readonly entity: Entity,
    readonly id: string,
  ) {
    super(`A ${entity} with the id ${id} exists already.`);
  }
}

/**
 * A precondition that does not hold, and which one: `match` (the item changed since the client
 * read it, or is gone), `unmodifiedSince` (it changed after the date the client sent) or
 * `noneMatch` (the item exists, or is still a version the client named).
 */
export class PreconditionFailed extends DomainError {
  readonly kind = 'precondition-failed';
  constructor(readonly condition: 'match' | 'unmodifiedSince' | 'noneMatch') {
    super('The item changed since the given version.');
  }
}

/**
 * The store could not do it now, and doing it again later may: throttling, a fault or timeout of
 * the store, a conflict that outlasted the retries, a bulk write holding the collection, tags
 * written faster than their counts are folded (`backlog`), or the cursor key that list pages are
 * signed with could not be read from Secrets Manager (`cursor-key`: DynamoDB is not to blame).
 * `unconfirmed`: a write whose answer was lost, and whose look for it failed, may have been made.
 */
export class StoreUnavailable extends DomainError {
  readonly kind = 'store-unavailable';
  constructor(
    readonly reason:
      | 'throttled'
      | 'fault'
      | 'timeout'
      | 'conflict'
      | 'collection-busy'
      | 'backlog'
      | 'unconfirmed'
      | 'cursor-key',
    /** Seconds after which trying again is sensible. */
    readonly retryAfter = 1,
    options?: ErrorOptions,
  ) {
    super(`The store is unavailable (${reason}).`, options);
  }
}

/** A request carrying an idempotency key that another request with the same key is still carrying out. */
export class RequestInProgress extends DomainError {
  readonly kind = 'request-in-progress';
  constructor(
    /** Seconds after which the other request has surely ended. */
    readonly retryAfter = 1,
  ) {
    super('A request with this idempotency key is still being carried out.');
  }
}

/** An idempotency key used again for a different request. */
export class KeyReused extends DomainError {
  readonly kind = 'key-reused';
  constructor() {
    super('This idempotency key was used for a different request.');
  }
}

/** Input that breaks a rule of the domain; `field` names where, `message` says what it accepts. */
export type InputRule =
  | 'duplicate-id'
  | 'duplicate-tag'
  | 'tag-id-underivable'
  | 'id-mismatch'
  | 'invalid-id'
  /** A cursor of a list that is gone (the articles of a magazine deleted since, now another's). */
  | 'foreign-cursor';

export class InvalidInput extends DomainError {
  readonly kind = 'invalid-input';
  constructor(
    readonly rule: InputRule,
    message: string,
  ) {
    super(message);
  }
}
