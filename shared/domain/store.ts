import type { Article, ArticleInput } from './article';
import type { IdentifiedDraft, Magazine, MagazineDraft } from './magazine';
import type { MagazineFilter, Page, PageQuery } from './paging';
import type { TagSummary } from './tag';

/**
 * A write's preconditions (RFC 9110 §13.1), on the current version of what it changes: `match`,
 * from `If-Match`, is `*` (any version, but one must exist) or revisions one of which must be
 * current; `unmodifiedSince`, from `If-Unmodified-Since` when no `If-Match` was sent (Unix
 * seconds), is the latest its last change may be; `noneMatch`, from `If-None-Match`, is `*`
 * (nothing may exist yet: create only) or revisions none of which may be current.
 */
export interface Precondition {
  readonly match?: '*' | readonly string[];
  readonly unmodifiedSince?: number;
  readonly noneMatch?: '*' | readonly string[];
}

/** What a precondition is held against: the current revision and its last change (Unix seconds). */
export type Version = Pick<Magazine, 'revision' | 'updated'>;

/**
 * The condition of a precondition that the current version (undefined: there is none) fails, so
 * that a refusal can name it, in RFC 9110 §13.2.2's order: `If-Match`, `If-Unmodified-Since`
 * (which a resource that does not exist has no date to fail), `If-None-Match`. Undefined when the
 * write may go ahead.
 */
export const unmetCondition = (
  precondition: Precondition | undefined,
  current: Version | undefined,
): keyof Precondition | undefined => {
  const { match, unmodifiedSince, noneMatch } = precondition ?? {};
  const revision = current?.revision;
  if (match !== undefined && (revision === undefined || (match !== '*' && !match.includes(revision)))) return 'match';
  if (unmodifiedSince !== undefined && current !== undefined && current.updated > unmodifiedSince)
    return 'unmodifiedSince';
  if (noneMatch !== undefined && revision !== undefined && (noneMatch === '*' || noneMatch.includes(revision)))
    return 'noneMatch';
  return undefined;
};

export const satisfies = (precondition: Precondition | undefined, current: Version | undefined): boolean =>
  !unmetCondition(precondition, current);

/**
 * What a write carries besides its input: the client's idempotency key (a replay gives back the
 * first outcome) and a fingerprint of the request the key may only be used with.
 */
export interface WriteOptions {
  readonly idempotency?: { readonly key: string; readonly fingerprint: string } | undefined;
}

/** What a create made, or (`replayed`) what the first request with the same idempotency key made. */
export interface Created {
  readonly id: string;
  readonly replayed: boolean;
}

/**
 * The store of the API, in the domain's words: the DynamoDB repository (shared/db) and the mock
 * one (shared/mock) both implement it. Every method raises the errors of ./errors.ts: `NotFound`
 * for an item that does not exist, `StoreUnavailable` for what a retry may cure.
 */
export interface Store {
  getMagazine(id: string): Promise<Magazine>;
  listMagazines(filter: MagazineFilter, page: PageQuery): Promise<Page<Magazine>>;
  createMagazine(draft: MagazineDraft, options?: WriteOptions): Promise<Created>;
  replaceMagazine(draft: IdentifiedDraft, precondition: Precondition | undefined): Promise<'created' | 'replaced'>;
  deleteMagazine(id: string, precondition: Precondition | undefined): Promise<void>;
  replaceAllMagazines(drafts: readonly IdentifiedDraft[], precondition: Precondition | undefined): Promise<void>;
  listArticles(magazineId: string, page: PageQuery): Promise<Page<Article>>;
  createArticle(magazineId: string, input: ArticleInput, options?: WriteOptions): Promise<Created>;
  getArticle(id: string): Promise<Article>;
  listTags(page: PageQuery): Promise<Page<TagSummary>>;
  getTag(id: string): Promise<TagSummary>;
}
