import type { Store } from '../domain/store';
import { createArticle, getArticle, listArticles } from './articles';
import { replaceAllMagazines } from './bulk';
import type { DocumentClient } from './client';
import { createMagazine, deleteMagazine, getMagazine, listMagazines, putMagazine } from './magazines';
import { tableAccess } from './table-access';
import { getTag, listTags } from './tags';

/**
 * The store on the table, for one request: every call it makes gives up at `deadline` (Unix ms),
 * so that the request answers, in form, before its function's timeout. Each access pattern lives
 * in the module of its entity: magazines, articles, tags, bulk writes; counts in counters.ts, the
 * collection generation in generation.ts, keys in keys.ts.
 */
export const createRepository =
  (client: DocumentClient, tableName: string) =>
  (deadline: number): Store => {
    const access = tableAccess(client, tableName, deadline);
    return {
      getMagazine: (id) => getMagazine(access, id),
      listMagazines: (filter, page) => listMagazines(access, filter, page),
      createMagazine: (draft, options) => createMagazine(access, draft, options),
      putMagazine: (draft, precondition) => putMagazine(access, draft, precondition),
      deleteMagazine: (id, precondition) => deleteMagazine(access, id, precondition),
      replaceAllMagazines: (drafts, precondition) => replaceAllMagazines(access, drafts, precondition),
      listArticles: (magazineId, page) => listArticles(access, magazineId, page),
      createArticle: (magazineId, input, options) => createArticle(access, magazineId, input, options),
      getArticle: (id) => getArticle(access, id),
      listTags: (page) => listTags(access, page),
      getTag: (id) => getTag(access, id),
    };
  };

export type RepositoryFactory = ReturnType<typeof createRepository>;
