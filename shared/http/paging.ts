import type { PageQuery, PageStart } from '../domain/paging';
import type { Operation } from '../operation/row';
import { decodeCursor, encodeCursor } from './cursor';
import { invalidParameter } from './errors';

/** The page parameters of a list's query, as its row's schema gives them (shared/http/query.ts). */
export interface ListParameters {
  readonly offset?: number | undefined;
  readonly limit: number;
  readonly sort: 'asc' | 'desc';
  readonly cursor?: string | undefined;
  readonly year?: number | undefined;
  readonly tag?: string | undefined;
}

/** A list request's page, and the signed cursors of its links. */
export interface Paging {
  readonly page: PageQuery;
  readonly cursorFor: (position: string, offset: number) => string;
}

/**
 * Turns a list request into its page. Given to the input middleware by the list functions alone
 * (shared/app.ts, `listApi`), so that no other function's bundle carries the cursors.
 */
export type ListPaging = (operation: Operation, path: string, query: ListParameters, mock: boolean) => Promise<Paging>;

/**
 * The list a cursor belongs to: the operation, its path (with the magazine or tag), its filters
 * and order, and its store: a position in the mock data means nothing in the table's, and back.
 */
const listIdentity = (operation: Operation, path: string, query: ListParameters, mock: boolean) =>
  [operation.id, path, query.year ?? '', query.tag ?? '', query.sort, mock ? 'mock' : 'table'].join('|');

const pageOf = (query: ListParameters, cursorKey: string, list: string): PageQuery => {
  if (query.offset !== undefined && query.cursor !== undefined) {
    throw invalidParameter(
      'Query parameters `offset` and `cursor` cannot be used together: a cursor already says where the page starts.',
    );
  }
  const start: PageStart =
    query.cursor !== undefined ? decodeCursor(cursorKey, list, query.cursor) : { offset: query.offset ?? 0 };
  return { start, limit: query.limit, sort: query.sort };
};

/** Pages signed with the key `cursorKey` gives: read once per instance, during its init phase (shared/app.ts), so a promise already settled. */
export const listPaging =
  (cursorKey: () => Promise<string>): ListPaging =>
  async (operation, path, query, mock) => {
    const key = await cursorKey();
    const list = listIdentity(operation, path, query, mock);
    return {
      page: pageOf(query, key, list),
      cursorFor: (position, offset) => encodeCursor(key, list, position, offset),
    };
  };
