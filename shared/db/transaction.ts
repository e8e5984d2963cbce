import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

/** A transaction's items by name, and what its cancellation says of them. */

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of items in one transaction. */
export const TRANSACTION_LIMIT = 100;

/** A transaction DynamoDB refused because a condition did not hold: which items' conditions failed. */
export class ConditionsFailed extends Error {
  override readonly name = 'ConditionsFailed';
  constructor(readonly failed: readonly string[]) {
    super(`Conditions failed on ${failed.join(', ')}.`);
  }

  /** Whether the condition of the transaction's item (or one of its items) of this name failed. */
  has(name: string) {
    return this.failed.includes(name);
  }
}

/**
 * A transaction's items by name (`{ guard, magazine, tickets }`), each an item or a list of them:
 * they are sent in this order, and a cancellation says which names' conditions failed, so adding
 * an item changes no other item's meaning.
 */
export type Transaction = { readonly [name: string]: TransactItem | readonly TransactItem[] | undefined };

/** The transaction's items in the order they are sent, and the name of each. */
export const itemsOf = (transaction: Transaction) => {
  const items: TransactItem[] = [];
  const names: string[] = [];
  for (const [name, value] of Object.entries(transaction)) {
    for (const item of value === undefined ? [] : Array.isArray(value) ? value : [value as TransactItem]) {
      items.push(item);
      names.push(name);
    }
  }
  return { items, names };
};
