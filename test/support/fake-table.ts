import type { Key } from '../../shared/db/keys';
import { type Item, ItemsByKey, type TableAccess } from '../../shared/db/table-access';

/** An in-memory table answering the reads a `/tags` reader makes; counts calls by command. */
export const fakeTable = () => {
  const items = new Map<string, Item>();
  const calls: string[] = [];
  const id = (k: Key) => `${k.PK}\u0000${k.SK}`;
  const put = (item: Item) => items.set(id({ PK: String(item.PK), SK: String(item.SK) }), item);
  const access = {
    tableName: 'fake',
    deadline: Date.now() + 60_000,
    remaining: () => 60_000,
    get: async (key: Key) => {
      calls.push('GetItem');
      return items.get(id(key));
    },
    getMany: async (keys: readonly Key[]) => {
      const found = new ItemsByKey();
      const unique = [...new Map(keys.map((k) => [id(k), k])).values()];
      for (let start = 0; start < unique.length; start += 100) calls.push('BatchGetItem');
      for (const k of unique) {
        const item = items.get(id(k));
        if (item) found.set(item);
      }
      return found;
    },
    query: async (input: { ExpressionAttributeValues: Record<string, string>; Limit?: number }) => {
      calls.push('Query');
      const { ':pk': pk, ':from': from, ':to': to } = input.ExpressionAttributeValues;
      const found = [...items.values()]
        .filter((item) => item.PK === pk && String(item.SK) >= (from ?? '') && String(item.SK) <= (to ?? ''))
        .sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1))
        .slice(0, input.Limit ?? Number.POSITIVE_INFINITY);
      return { items: found, next: undefined };
    },
  } as unknown as TableAccess;
  return { access, items, put, calls };
};

/**
 * The fake with transactions (a fold's, a tag state's), the conditions they use (on `#stamp`,
 * `#states`, `attribute_exists(#sk)`), and DynamoDB's limits.
 */
export const fakeTableWithWrites = () => {
  const table = fakeTable();
  const { items, put } = table;
  const id = (k: Key) => `${k.PK}\u0000${k.SK}`;
  let hook: ((call: string) => Promise<void>) | undefined;
  let inHook = false;
  const wrapped = table.access as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['get', 'getMany', 'query'] as const) {
    const original = wrapped[name] as (...args: unknown[]) => Promise<unknown>;
    wrapped[name] = async (...args: unknown[]) => {
      if (hook && !inHook) {
        inHook = true;
        try {
          await hook(name);
        } finally {
          inHook = false;
        }
      }
      return original(...args);
    };
  }
  interface Written {
    readonly Item?: Item;
    readonly Key?: Key;
    readonly ConditionExpression?: string;
    readonly ExpressionAttributeValues?: Record<string, unknown>;
  }
  const client = {
    send: async (command: {
      input: { TransactItems: { Put?: Written; Delete?: Written; ConditionCheck?: Written }[] };
    }) => {
      const tx = command.input.TransactItems;
      if (tx.length > 100)
        throw Object.assign(new Error(`${tx.length} items in a transaction`), { name: 'ValidationException' });
      const reasons = tx.map((entry) => {
        const op = (entry.Put ?? entry.Delete ?? entry.ConditionCheck) as Written;
        const key = (op.Item ? { PK: String(op.Item.PK), SK: String(op.Item.SK) } : op.Key) as Key;
        const current = items.get(id(key));
        if (op.Item && Buffer.byteLength(JSON.stringify(op.Item), 'utf8') > 400 * 1024)
          throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
            name: 'ValidationException',
          });
        const condition: string | undefined = op.ConditionExpression;
        if (!condition) return 'None';
        if (condition === 'attribute_exists(#sk)') return current ? 'None' : 'ConditionalCheckFailed';
        const stamp = op.ExpressionAttributeValues?.[':stamp'];
        const holds = (yes: boolean) => (yes ? 'None' : 'ConditionalCheckFailed');
        // A tag state's: no state yet, or an older one with its stamp; one without, as read.
        if (condition === 'attribute_not_exists(#states) OR #stamp < :stamp')
          return holds(!current?.states || Number(current.stamp) < Number(stamp));
        if (condition === 'attribute_not_exists(#states)') return holds(!current?.states);
        if (condition === '#states = :seen AND attribute_not_exists(#stamp)')
          return holds(current?.states === op.ExpressionAttributeValues?.[':seen'] && current?.stamp === undefined);
        if (condition === 'attribute_exists(#stamp)') return holds(current?.stamp !== undefined);
        if (condition.startsWith('attribute_not_exists') && (!current || current.stamp === undefined)) return 'None';
        return current?.stamp === stamp ? 'None' : 'ConditionalCheckFailed';
      });
      if (reasons.some((r) => r !== 'None'))
        throw Object.assign(new Error('cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: reasons.map((Code) => ({ Code })),
        });
      for (const entry of tx) {
        const item = entry.Put?.Item;
        if (item) put(item);
        else if (entry.Delete?.Key) items.delete(id(entry.Delete.Key));
      }
      return {};
    },
  };
  wrapped.send = async (request: unknown) => (request as (c: unknown, o: unknown) => Promise<unknown>)(client, {});
  return { ...table, setHook: (h: typeof hook) => (hook = h) };
};
