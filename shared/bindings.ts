/**
 * Each operation of the `Store`, as the table does it and as the mock does it. A handler names the
 * ones it uses (`api(row, { store: { getMagazine }, run })`) and its function's bundle
 * carries those and no other: 18–28 KiB less per function (table code and SDK commands) than
 * composing the whole store in every function, measured with `npm run bundle`.
 */
import * as articles from './db/articles';
import * as bulk from './db/bulk';
import type { DocumentClient } from './db/client';
import * as magazineList from './db/magazine-list';
import * as magazines from './db/magazines';
import { type TableAccess, tableAccess } from './db/table-access';
import * as tags from './db/tags';
import type { Store } from './domain/store';
import * as mock from './mock/repository';

/** An operation of the `Store` as its entity module does it on the table: the same, given the table's access first. */
type OnTable<K extends keyof Store> = (access: TableAccess, ...args: Parameters<Store[K]>) => ReturnType<Store[K]>;

type TableOperations<K extends keyof Store> = { readonly [Name in K]: OnTable<Name> };

/**
 * Store operations bound to the table's access for one request: every call they make gives up at
 * the access's deadline, so that the request answers, in form, before its function's timeout.
 */
export const onTable = <K extends keyof Store>(operations: TableOperations<K>, access: TableAccess): Pick<Store, K> => {
  const bound: Partial<Record<K, unknown>> = {};
  for (const name of Object.keys(operations) as K[]) {
    const operation = operations[name] as (access: TableAccess, ...args: unknown[]) => unknown;
    bound[name] = (...args: unknown[]) => operation(access, ...args);
  }
  return bound as Pick<Store, K>;
};

/** One operation of the store, on the table and simulated. */
interface Binding<K extends keyof Store> {
  readonly table: OnTable<K>;
  readonly mock: Store[K];
}

export const getMagazine: Binding<'getMagazine'> = { table: magazines.getMagazine, mock: mock.getMagazine };
export const listMagazines: Binding<'listMagazines'> = { table: magazineList.listMagazines, mock: mock.listMagazines };
export const createMagazine: Binding<'createMagazine'> = { table: magazines.createMagazine, mock: mock.createMagazine };
export const replaceMagazine: Binding<'replaceMagazine'> = {
  table: magazines.replaceMagazine,
  mock: mock.replaceMagazine,
};
export const deleteMagazine: Binding<'deleteMagazine'> = { table: magazines.deleteMagazine, mock: mock.deleteMagazine };
export const replaceAllMagazines: Binding<'replaceAllMagazines'> = {
  table: bulk.replaceAllMagazines,
  mock: mock.replaceAllMagazines,
};
export const listArticles: Binding<'listArticles'> = { table: articles.listArticles, mock: mock.listArticles };
export const createArticle: Binding<'createArticle'> = { table: articles.createArticle, mock: mock.createArticle };
export const getArticle: Binding<'getArticle'> = { table: articles.getArticle, mock: mock.getArticle };
export const listTags: Binding<'listTags'> = { table: tags.listTags, mock: mock.listTags };
export const getTag: Binding<'getTag'> = { table: tags.getTag, mock: mock.getTag };

export type Bindings<K extends keyof Store> = { readonly [Name in K]: Binding<Name> };

/** The table's side and the mock's side of some bindings. */
export const sidesOf = <K extends keyof Store>(bindings: Bindings<K>) => {
  const table: Partial<Record<keyof Store, unknown>> = {};
  const mock: Partial<Record<keyof Store, unknown>> = {};
  for (const name of Object.keys(bindings) as K[]) {
    table[name] = bindings[name].table;
    mock[name] = bindings[name].mock;
  }
  return { table: table as TableOperations<K>, mock: mock as Pick<Store, K> };
};

/**
 * The whole store on the table, for tools and tests (a function composes only its own operations,
 * in shared/app.ts). Typed `Store`: an operation left out of this list does not compile.
 */
export const createRepository = (client: DocumentClient, tableName: string) => {
  const { table } = sidesOf({
    getMagazine,
    listMagazines,
    createMagazine,
    replaceMagazine,
    deleteMagazine,
    replaceAllMagazines,
    listArticles,
    createArticle,
    getArticle,
    listTags,
    getTag,
  });
  return (deadline: number): Store => onTable(table, tableAccess(client, tableName, deadline));
};
