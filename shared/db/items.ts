import type { Article as StoredArticle } from '../domain/article';
import type { Magazine as StoredMagazine } from '../domain/magazine';
import type { TagRef } from '../domain/tag';
import { TOMBSTONE } from './keys';

/** A magazine as its item holds it, with what only the store needs. */
export interface MagazineItem extends StoredMagazine {
  readonly articleCount: number;
  readonly articlesModified: number | undefined;
  /** Made anew each time the id is created; its articles are listed under it. */
  readonly generation: string;
  /** Its deletion has begun: gone for every reader, and its id not yet free. */
  readonly tombstone: boolean;
}

export const toMagazineItem = (item: Record<string, unknown>): MagazineItem => ({
  id: item.id as string,
  title: item.title as string,
  tags: (item.tags as TagRef[] | undefined) ?? [],
  created: item.created as number,
  updated: item.updated as number,
  revision: item.revision as string,
  articleCount: (item.articleCount as number | undefined) ?? 0,
  articlesModified: item.articlesModified as number | undefined,
  generation: (item.generation as string | undefined) ?? '',
  tombstone: item[TOMBSTONE] !== undefined,
});

export const toStoredMagazine = ({ id, title, tags, created, updated, revision }: StoredMagazine): StoredMagazine => ({
  id,
  title,
  tags,
  created,
  updated,
  revision,
});

export const toStoredArticle = (item: Record<string, unknown>): StoredArticle => ({
  id: item.id as string,
  magazineId: item.magazineId as string,
  title: item.title as string,
  author_first_name: item.author_first_name as string,
  author_last_name: item.author_last_name as string,
  author_email: item.author_email as string,
  date: item.date as string,
  text: item.text as string,
  created: item.created as number,
});

/** The magazine attributes every copy (the magazine item, its tag memberships) carries. */
export const magazineData = (m: StoredMagazine) => ({
  id: m.id,
  title: m.title,
  tags: m.tags,
  created: m.created,
  updated: m.updated,
  revision: m.revision,
});
