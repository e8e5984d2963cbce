import { storeConfig } from '../config';
import { NotFound } from '../domain/errors';
import type { PageQuery } from '../domain/paging';
import type { Store } from '../domain/store';
import { createDocumentClient } from './client';
import { createRepository } from './repository';

const legacyPage = (page: PageQuery) => ({ offset: page.start.offset, limit: page.limit, sort: page.sort });

/**
 * The table's store for one operation, on a client made once when the function starts (its init
 * phase). Loading it reads the store settings: see shared/config.ts.
 */
export const tableStore = (_operation: string): Store => {
  const repository = createRepository(createDocumentClient(), storeConfig().tableName);
  return {
    async getMagazine(id) {
      const magazine = await repository.getMagazine(id);
      if (!magazine) throw new NotFound('magazine', id);
      return magazine;
    },
    async listMagazines(filter, page) {
      const result = await repository.listMagazines({ ...filter, ...legacyPage(page) });
      return { ...result, offset: page.start.offset };
    },
    async createMagazine(draft) {
      return { id: (await repository.createMagazine(draft)).id, replayed: false };
    },
    putMagazine: (draft, precondition) => repository.putMagazine(draft, precondition),
    deleteMagazine: (id, precondition) => repository.deleteMagazine(id, precondition),
    replaceAllMagazines: (drafts, precondition) => repository.replaceAllMagazines(drafts, precondition),
    async listArticles(magazineId, page) {
      return { ...(await repository.listArticles(magazineId, legacyPage(page))), offset: page.start.offset };
    },
    async createArticle(magazineId, input) {
      return { id: (await repository.createArticle(magazineId, input)).id, replayed: false };
    },
    async getArticle(id) {
      const article = await repository.getArticle(id);
      if (!article) throw new NotFound('article', id);
      return article;
    },
    async listTags(page) {
      return { ...(await repository.listTags(legacyPage(page))), offset: page.start.offset };
    },
    async getTag(id) {
      const tag = await repository.getTag(id);
      if (!tag) throw new NotFound('tag', id);
      return tag;
    },
  };
};
