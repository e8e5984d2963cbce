import type { Store } from '../domain/store';
import type { TableAccess } from './table-access';

/** An operation of the `Store` as its entity module does it on the table: the same, given the table's access first. */
export type OnTable<K extends keyof Store> = (
  access: TableAccess,
  ...args: Parameters<Store[K]>
) => ReturnType<Store[K]>;

export type TableOperations<K extends keyof Store> = { readonly [Name in K]: OnTable<Name> };

/**
 * Store operations bound to the table's access for one request: every call they make gives up at
 * the access's deadline, so that the request answers, in form, before its function's timeout.
 * Each access pattern lives in the module of its entity: magazines, articles, tags, bulk writes;
 * counts in counters.ts, the collection generation in generation.ts, keys in keys.ts.
 */
export const onTable = <K extends keyof Store>(operations: TableOperations<K>, access: TableAccess): Pick<Store, K> => {
  const bound: Partial<Record<K, unknown>> = {};
  for (const name of Object.keys(operations) as K[]) {
    const operation = operations[name] as (access: TableAccess, ...args: unknown[]) => unknown;
    bound[name] = (...args: unknown[]) => operation(access, ...args);
  }
  return bound as Pick<Store, K>;
};
