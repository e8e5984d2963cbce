import { tagStateItems } from './fold';
import { decodeTagStates } from './items';
import { attr, countsKey, type Key } from './keys';
import type { Entry } from './ranked';
import type { Item, TableAccess } from './table-access';
import { ConditionsFailed, TRANSACTION_LIMIT, type TransactItem, transact } from './table-writes';

/**
 * The state items of the tags a merge took, written after it (tag-states.ts says why), before the
 * next fold drops those tags from the overlay. A state item is only ever replaced by a newer
 * state: a folder that read the overlay before another dropped its tags, and writes late, must not
 * put an older one back, or a reader would take it for the tag's state at its snapshot.
 */

const names = { '#stamp': attr.stamp, '#states': attr.states };

/** A Put of a state item that holds no state yet, or an older one written with its `stamp`. */
const newerThanStamped = (tableName: string, Item: Item, stamp: number): TransactItem => ({
  Put: {
    TableName: tableName,
    Item,
    ConditionExpression: 'attribute_not_exists(#states) OR #stamp < :stamp',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':stamp': stamp },
  },
});

/**
 * A Put of a state item as it was read: functions from before state items carried `stamp` wrote
 * them with their states only, so whether one is older is read from its states, and it is replaced
 * only if it is still what was read.
 */
const replacing = (tableName: string, Item: Item, seen: Item | undefined): TransactItem => ({
  Put: {
    TableName: tableName,
    Item,
    ConditionExpression:
      seen === undefined ? 'attribute_not_exists(#states)' : '#states = :seen AND attribute_not_exists(#stamp)',
    ExpressionAttributeNames: seen === undefined ? { '#states': attr.states } : names,
    ...(seen !== undefined && { ExpressionAttributeValues: { ':seen': seen[attr.states] } }),
  },
});

/**
 * Sends each Put (transactions of 99, at once) and returns those whose condition failed. Each
 * transaction also checks that the list is still there: a folder that lags behind a bulk write's
 * sweep of its generation must not leave state items behind it.
 */
const putEach = async (access: TableAccess, generation: string, puts: readonly TransactItem[]) => {
  const most = TRANSACTION_LIMIT - 1;
  const chunks = Array.from({ length: Math.ceil(puts.length / most) }, (_, index) =>
    puts.slice(index * most, (index + 1) * most),
  );
  const list: TransactItem = {
    ConditionCheck: {
      TableName: access.tableName,
      Key: countsKey(generation, 'TAGS'),
      ConditionExpression: 'attribute_exists(#stamp)',
      ExpressionAttributeNames: { '#stamp': attr.stamp },
    },
  };
  const failed: TransactItem[][] = await Promise.all(
    chunks.map(async (chunk) => {
      const refused: TransactItem[] = [];
      // Named by position, so that a cancellation says which conditions failed.
      for (let left = chunk; left.length > 0; ) {
        try {
          await transact(access, { list, ...Object.fromEntries(left.map((put, index) => [String(index), put])) });
          return refused;
        } catch (error) {
          if (!(error instanceof ConditionsFailed) || error.has('list')) throw error;
          refused.push(...left.filter((_, index) => error.has(String(index))));
          left = left.filter((_, index) => !error.has(String(index)));
        }
      }
      return refused;
    }),
  );
  return failed.flat();
};

const keyOf = (put: TransactItem): Key => {
  const item = put.Put?.Item ?? {};
  return { PK: String(item.PK), SK: String(item.SK) };
};

/**
 * Writes the state items of `merged`, the tags fold `stamp` merged (`firsts` for the first time),
 * leaving any newer state as it is.
 */
export const writeTagStates = async (
  access: TableAccess,
  generation: string,
  merged: readonly Entry[],
  stamp: number,
  firsts: ReadonlySet<string> = new Set(),
): Promise<void> => {
  if (merged.length === 0) return;
  const items = tagStateItems(generation, merged, stamp, firsts);
  let refused = await putEach(
    access,
    generation,
    items.map((item) => newerThanStamped(access.tableName, item, stamp)),
  );
  // Refused: a newer state, or a state item without `stamp`, read to tell which.
  for (let round = 0; refused.length > 0; round++) {
    if (round >= 3) throw new ConditionsFailed(['tagStates']);
    const read = await access.getMany(refused.map(keyOf));
    const older = refused.flatMap((put) => {
      const current = read.get(keyOf(put));
      if (current?.[attr.stamp] !== undefined) return [];
      const [latest] = current ? decodeTagStates(current) : [];
      if (latest && latest.stamp >= stamp) return [];
      return [replacing(access.tableName, put.Put?.Item ?? {}, current)];
    });
    refused = await putEach(access, generation, older);
  }
};
