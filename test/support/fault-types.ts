/** The fault proxy's rules, the calls it records and its handle (dynamodb-faults.ts). */

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** How a throttled call is answered; a TransactionCanceledException only fits the Transact* operations. */
export type ThrottleError =
  | 'ProvisionedThroughputExceededException'
  | 'ThrottlingException'
  | 'RequestLimitExceeded'
  | 'TransactionCanceledException';

export type Fault =
  /** 400; by default TransactionCanceledException (ThrottlingError) for Transact*, ProvisionedThroughputExceededException otherwise. */
  | { readonly kind: 'throttle'; readonly error?: ThrottleError }
  /** 500 InternalServerError, not forwarded. */
  | { readonly kind: 'internal' }
  /** 503 ServiceUnavailable, not forwarded. */
  | { readonly kind: 'unavailable' }
  /** Never answered, not forwarded: the socket stays open until the client gives up or the proxy closes. */
  | { readonly kind: 'timeout' }
  /** Forwarded (so applied), then answered with a 500 (default) or by dropping the connection. */
  | { readonly kind: 'lostReply'; readonly reply?: 'internal' | 'drop' }
  /**
   * Not forwarded; refused as DynamoDB refuses a write that meets a transaction in flight on its
   * items: TransactionCanceledException with TransactionConflict on every item of a transaction
   * (which the SDK does not retry), TransactionConflictException otherwise.
   */
  | { readonly kind: 'conflict' }
  /**
   * BatchWriteItem/BatchGetItem only: forwards the first `keep(count)` requests (default half,
   * rounded down; always at least one withheld) and returns the others as unprocessed.
   */
  | { readonly kind: 'unprocessed'; readonly keep?: (count: number) => number };

export type FaultKind = Fault['kind'];

/** A call as it arrived: what fault rules are matched against. */
export interface ProxiedCall {
  /** Position in all the calls this proxy received, from 0. */
  readonly index: number;
  /** Such as `PutItem`, from `X-Amz-Target`; `unknown` without one. */
  readonly operation: string;
  /** The body as the client sent it (before the proxy asked for consumed capacity). */
  readonly request: JsonObject;
  /** The SDK's attempt number (`amz-sdk-request: attempt=2; max=4`), so retries can be told apart. */
  readonly attempt?: number;
  /** The SDK's id of one `send`, the same on each of its retries. */
  readonly invocationId?: string;
  /**
   * The API operation whose function sent it (`listMagazines`...), from the user agent its client
   * sends: how concurrent requests' calls are told apart. Absent for other clients.
   */
  readonly caller?: string;
}

export interface RecordedCall extends ProxiedCall {
  /** Passed on as is, answered with a fault, or refused as a transaction conflict. */
  readonly outcome: 'passed' | FaultKind | 'conflict';
  /** Whether DynamoDB Local received it (so whether its writes may have been applied). */
  readonly forwarded: boolean;
  /** HTTP status the client got; 0 while unanswered, and for good after a timeout or a dropped connection. */
  readonly status: number;
  /** The error type the client got, such as `TransactionCanceledException`. */
  readonly errorType?: string;
  /** Capacity DynamoDB Local reports consumed; counted even when the client never saw the answer. */
  readonly readCapacityUnits: number;
  readonly writeCapacityUnits: number;
  /** Size of the answer's body as sent to the client. */
  readonly responseBytes: number;
  /** The answer's body as sent to the client, parsed. */
  readonly response?: JsonValue;
}

export interface FaultRule {
  /** Operation names (`PutItem`...) or a predicate; every call when absent. */
  readonly operations?: readonly string[] | ((call: ProxiedCall) => boolean);
  readonly fault: Fault | FaultKind;
  /** Fires at most this many times (default: no limit). */
  readonly times?: number;
  /** Fires on a matching call with this probability (default 1), drawn from the proxy's `random`. */
  readonly probability?: number;
  /** Lets the first `after` matching calls through. */
  readonly after?: number;
}

export interface FaultHandle {
  /** Matching calls seen, including those let through. */
  readonly seen: number;
  /** Times it injected its fault. */
  readonly fired: number;
  remove(): void;
}

export interface ConflictOptions {
  /** Keeps a transaction's items locked, and its answer back, this much longer than DynamoDB Local takes. */
  readonly holdMs?: number;
}

export interface FaultProxyOptions {
  /** Emulate DynamoDB's transaction conflicts (off by default). */
  readonly conflicts?: boolean | ConflictOptions;
  /** Key attribute names, to find an item's key in a Put's `Item`; default `PK`, `SK`. */
  readonly keyAttributes?: readonly string[] | ((tableName: string) => readonly string[]);
  /** Source of randomness for `probability`; give a seeded one for reproducible property tests. */
  readonly random?: () => number;
}

export interface FaultCounters {
  readonly injected: Readonly<Record<FaultKind, number>>;
  /** Calls refused by the conflict emulation, by operation. */
  readonly conflicts: Readonly<Record<string, number>>;
}

export interface FaultProxy {
  /** Where to point a DynamoDB client, such as `http://127.0.0.1:54321`. */
  readonly endpoint: string;
  /**
   * Calls recorded since the last `takeCalls`/`resetCalls`, in arrival order. A call is recorded
   * as soon as its body has arrived; its outcome fields fill in once it is answered.
   */
  calls(): readonly RecordedCall[];
  /** Returns the recorded calls and forgets them. */
  takeCalls(): RecordedCall[];
  resetCalls(): void;
  inject(rule: FaultRule): FaultHandle;
  clearFaults(): void;
  counters(): FaultCounters;
  resetCounters(): void;
  setConflicts(conflicts: boolean | ConflictOptions): void;
  /** Ends held and open connections; resolves once the port is closed. */
  close(): Promise<void>;
}

export interface CapacitySum {
  readonly calls: number;
  readonly readCapacityUnits: number;
  readonly writeCapacityUnits: number;
  readonly responseBytes: number;
}
