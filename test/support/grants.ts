import type { TableAction } from '../../shared/operation/row';

/**
 * What IAM authorises a DynamoDB request by. A transaction needs the grant of each action inside
 * it (there is no `TransactWriteItems` action); a transactional read needs `GetItem`.
 */
export const actionsOf = (target: string, body: string): TableAction[] => {
  const action = target.replace(/^DynamoDB_\d+\./, '');
  if (action === 'TransactWriteItems') {
    const { TransactItems = [] } = JSON.parse(body) as { TransactItems?: Record<string, unknown>[] };
    const inner: Record<string, TableAction> = {
      Put: 'PutItem',
      Update: 'UpdateItem',
      Delete: 'DeleteItem',
      ConditionCheck: 'ConditionCheckItem',
    };
    return [...new Set(TransactItems.flatMap((item) => Object.keys(item).flatMap((kind) => inner[kind] ?? [])))];
  }
  if (action === 'TransactGetItems') return ['GetItem'];
  return [action as TableAction];
};

/** The operation a request came from: the functions' DynamoDB client names it in its user agent. */
export const operationOf = (headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined => {
  const agents = [headers['x-amz-user-agent'], headers['user-agent']].flat().join(' ');
  return /\bmagazine-api\/([A-Za-z]+)/.exec(agents)?.[1];
};

export type Recorded = ReadonlyMap<string, ReadonlySet<TableAction>>;

/**
 * Each operation's calls against its row's grant: a call it was not granted fails (it would be
 * `AccessDenied` in AWS); when the whole suite ran, so did a granted action no test path sends.
 */
export const grantViolations = (
  recorded: Recorded,
  operations: readonly { readonly id: string; readonly actions: readonly TableAction[] }[],
  wholeSuite: boolean,
): string[] => {
  const problems: string[] = [];
  const known = new Set(operations.map((operation) => operation.id));
  for (const [id, actions] of recorded)
    if (!known.has(id))
      problems.push(
        `${id}: calls DynamoDB (${[...actions].join(', ')}) but no route row or scheduled task has this id`,
      );
  for (const { id, actions } of operations) {
    const sent = recorded.get(id) ?? new Set<TableAction>();
    const ungranted = [...sent].filter((action) => !actions.includes(action));
    if (ungranted.length > 0)
      problems.push(`${id}: sends ${ungranted.join(', ')}, which its row's actions do not grant`);
    if (!wholeSuite) continue;
    const unused = actions.filter((action) => !sent.has(action));
    if (unused.length > 0) problems.push(`${id}: is granted ${unused.join(', ')}, which no test path sends`);
  }
  return problems;
};

/** Collects, per operation, the actions its requests needed. */
export class GrantRecorder {
  readonly #calls = new Map<string, Set<TableAction>>();

  record(headers: Readonly<Record<string, string | string[] | undefined>>, target: string, body: string): void {
    const operation = operationOf(headers);
    if (!operation) return;
    const actions = this.#calls.get(operation) ?? new Set<TableAction>();
    for (const action of actionsOf(target, body)) actions.add(action);
    this.#calls.set(operation, actions);
  }

  get recorded(): Recorded {
    return this.#calls;
  }
}
