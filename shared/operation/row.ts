/**
 * What a row of the route table is: an operation (method, path, schemas, grant, docs key) or a
 * scheduled task. The types sit below shared/http, which serves an operation from its row; the
 * rows themselves are in shared/routes/table.ts, above it, since they name http's schemas.
 */
import type * as v from 'valibot';
import type { BusinessMetric } from '../metrics';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

/**
 * The DynamoDB actions (IAM names without `dynamodb:`) an operation's function is granted on the
 * table: exactly what its path through the repository sends. A transaction is authorised by the
 * actions of its items (`TransactWriteItems` of a Put and an Update needs PutItem and UpdateItem).
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem';

/** The actions that change the table. */
export const writeActions: ReadonlySet<TableAction> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
]);

export type Group = 'Magazines' | 'Articles' | 'Tags' | 'Documentation';

/** A success the operation answers with: a representation (JSON or XML) or a document of one media type. */
export type Success =
  | {
      readonly status: 200 | 201;
      /**
       * The name of its representation's schema (shared/http/representations/schemas.ts): only the
       * document and the contract tests read the schema, so a function's bundle need not carry it.
       */
      readonly schema: string;
      /** The name of its example in shared/openapi/examples.ts. */
      readonly example: string;
    }
  | { readonly status: 200; readonly document: 'text/html' | 'application/json' };

/**
 * One operation. `Code` is the error catalogue's code type (shared/http/error-catalogue.ts): the
 * table and the document check codes against it; the stack, which never reads them, takes any.
 */
export interface Operation<Code extends string = string> {
  /** The OpenAPI `operationId`, the id a handler binds with, the key of its prose. */
  readonly id: string;
  readonly method: Exclude<HttpMethod, 'HEAD'>;
  /** Path without version prefix or label. */
  readonly path: string;
  /** Module under `functions/` (without extension) exporting `handler`. */
  readonly handler: string;
  readonly group: Group;
  readonly summary: string;
  /** Its IAM grant on the table; empty for operations that never touch it. */
  readonly actions: readonly TableAction[];
  readonly query?: v.ObjectSchema<v.ObjectEntries, undefined>;
  readonly body?: v.GenericSchema;
  readonly success: readonly Success[];
  /** Codes of this operation's own failures (those of every operation of a kind are added by the document). */
  readonly errors: readonly Code[];
  /** A paged list: its query has `offset`, `limit`, `sort` and `cursor`. */
  readonly list?: boolean;
  /** Honours `If-Match` and `If-None-Match` (a write's preconditions). */
  readonly ifMatch?: boolean;
  /** Honours `Idempotency-Key`. */
  readonly idempotent?: boolean;
  /** Whether `.json`/`.xml` may end the path: every GET, and the POST of articles. */
  readonly labels?: boolean;
  /** Seconds the function may run; 10 unless it is a bulk operation, which must still answer before API Gateway's 29. */
  readonly timeoutSeconds?: number;
  /** The business metric one success with this status adds to (not a mock request, not an idempotent replay). */
  readonly counts?: { readonly status: 200 | 201; readonly metric: BusinessMetric };
}

/** An operation that reads or writes the table, and so is given a store: its grant names an action. */
export type TableOperation = Operation & { readonly actions: readonly [TableAction, ...TableAction[]] };

/** A function no route serves: run on a schedule, with its own grants. */
export interface ScheduledTask {
  readonly id: string;
  /** Module under `functions/`. */
  readonly handler: string;
  readonly summary: string;
  readonly everyMinutes: number;
  readonly timeoutSeconds: number;
  /** The DynamoDB actions it sends, as for an operation. */
  readonly actions: readonly TableAction[];
}

export type StreamChange = 'INSERT' | 'MODIFY' | 'REMOVE';

/** The sort-key prefixes of a stream task's filter. */
export const prefixesOf = (task: StreamTask): readonly string[] =>
  typeof task.newItemsPrefix === 'string' ? [task.newItemsPrefix] : task.newItemsPrefix;

/** A function no route serves: run on the table's stream, for the new items it names. */
export interface StreamTask {
  readonly id: string;
  /** Module under `functions/`. */
  readonly handler: string;
  readonly summary: string;
  /** Only items whose sort key starts with this (or one of these) reach it (the stream's filter). */
  readonly newItemsPrefix: string | readonly string[];
  /** The kinds of change that reach it: new items only unless it says otherwise. */
  readonly changes?: readonly StreamChange[];
  /** Puts change events on the stack's event bus (and is granted that, and only that, bus). */
  readonly publishes?: boolean;
  /** How long the stream gathers records before it calls the function, and how many at most. */
  readonly batchWindowSeconds: number;
  readonly batchSize: number;
  /**
   * Batches of one shard handled at once (the event source mapping's parallelization factor):
   * records of one partition key always go to the same one, in order, so a busy list's folds do
   * not wait behind fifty quiet lists' folds.
   */
  readonly parallelization: number;
  readonly timeoutSeconds: number;
  readonly actions: readonly TableAction[];
}
