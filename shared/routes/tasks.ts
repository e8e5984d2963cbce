/**
 * The functions no route serves (the janitor and the folder), one row each as the route table's
 * operations have, and what a deployment sets in the environment of every function.
 */
import type { LogLevel, MagazineTagsForm } from '../config';
import { type Operation, type ScheduledTask, type StreamTask, writeActions } from '../operation/row';
import { FOLDER_TIMEOUT_MS } from '../timing';

/**
 * The janitor: clears the garbage that deletions and bulk writes could not clear within their
 * request (the articles of deleted magazines, replaced generations), whether or not anyone writes.
 * Requests never wait for it: nothing it deletes is readable.
 */
export const scheduledTasks = [
  {
    id: 'sweepGarbage',
    handler: 'sweep-garbage',
    summary: 'Clears the garbage of deletions and bulk writes',
    everyMinutes: 15,
    timeoutSeconds: 300,
    actions: ['Query', 'BatchGetItem', 'BatchWriteItem'],
  },
] as const satisfies readonly ScheduledTask[];

/**
 * The folder: moves the tickets writes leave in a list's partition into its counts and blocks, so
 * that readers have few to add up. Writes never wait for it; readers are exact without it.
 */
export const streamTasks = [
  {
    id: 'foldCounts',
    handler: 'fold-counts',
    summary: 'Folds the count changes writes leave into the lists',
    newItemsPrefix: '#T',
    batchWindowSeconds: 1,
    batchSize: 1000,
    parallelization: 10,
    timeoutSeconds: FOLDER_TIMEOUT_MS / 1_000,
    actions: ['GetItem', 'Query', 'BatchGetItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'],
  },
  {
    id: 'publishEvents',
    handler: 'publish-events',
    summary: 'Puts every committed change on the event bus as a change event',
    // Magazines (their events and their articles'), deletion notes, head replicas: nothing else is a change.
    newItemsPrefix: ['MAGAZINE', 'DELETED#', 'HEAD'],
    changes: ['INSERT', 'MODIFY'],
    batchWindowSeconds: 1,
    batchSize: 1000,
    // One lane: a consumer sees the events of a shard in the order they were committed.
    parallelization: 1,
    timeoutSeconds: 30,
    actions: ['BatchGetItem'],
    publishes: true,
  },
] as const satisfies readonly StreamTask[];

/** Functions no route serves, by the way they are started. */
export const backgroundTasks: readonly (ScheduledTask | StreamTask)[] = [...scheduledTasks, ...streamTasks];

export const scheduledTaskOfHandler = (handler: string): ScheduledTask | undefined =>
  (scheduledTasks as readonly ScheduledTask[]).find((task) => task.handler === handler);

export const streamTaskOfHandler = (handler: string): StreamTask | undefined =>
  (streamTasks as readonly StreamTask[]).find((task) => task.handler === handler);

/** What a deployment sets for every function (see infra/): the CDK stack and the local runtime both use it. */
export interface DeploymentSettings {
  readonly tableName: string;
  readonly mockEnabled: boolean;
  readonly baseUrl?: string | undefined;
  /** The secret holding the cursor key (deployed); its ARN only, never its value. */
  readonly cursorKeySecretArn?: string | undefined;
  /** A cursor key in plain text: for local runs only (the CDK stack refuses one, infra/plain-secrets.ts). */
  readonly cursorKey?: string | undefined;
  /** The `Stage` dimension of the functions' metrics. */
  readonly stage?: string | undefined;
  /** How magazine writes store tags (`MAGAZINE_TAGS_FORM`, shared/config.ts). */
  readonly magazineTagsForm?: MagazineTagsForm | undefined;
  /** The least level a log line must have to be written (`LOG_LEVEL`, shared/config.ts). */
  readonly logLevel?: LogLevel | undefined;
}

/**
 * The environment of one function as deployed: only functions that use the table are told its
 * name. No `--enable-source-maps`: `npm run bench` measured it at 1.19× every cold start and 21×
 * the first error (6 → 125 ms); the `.map` files are deployed beside the code, to resolve a
 * logged stack by hand.
 */
export const functionEnvironment = (
  row: Operation | ScheduledTask | StreamTask | undefined,
  settings: DeploymentSettings,
): Record<string, string> => ({
  MOCK_ENABLED: String(settings.mockEnabled),
  ...(row && row.actions.length > 0 && { TABLE_NAME: settings.tableName }),
  ...(row?.actions.some((action) => writeActions.has(action)) &&
    settings.magazineTagsForm && { MAGAZINE_TAGS_FORM: settings.magazineTagsForm }),
  ...(settings.baseUrl && { BASE_URL: settings.baseUrl }),
  ...(row &&
    'list' in row &&
    row.list &&
    settings.cursorKeySecretArn && { CURSOR_KEY_SECRET_ARN: settings.cursorKeySecretArn }),
  ...(row && 'list' in row && row.list && settings.cursorKey && { CURSOR_KEY: settings.cursorKey }),
  ...(settings.stage && { STAGE: settings.stage }),
  ...(settings.logLevel && { LOG_LEVEL: settings.logLevel }),
});
