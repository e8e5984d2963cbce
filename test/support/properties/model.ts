/**
 * The API as a client understands it, in memory: magazines with their tags and articles, the
 * idempotency keys used, and the versions (ETags) a client has seen. The model-based property
 * tests change it as each command should change the API, then compare every view the API offers
 * (single reads, lists in every order and filter, counts, tags, articles) with what it predicts.
 */

export interface TagRef {
  readonly id: string;
  readonly name: string;
}

export interface ArticleBody {
  readonly title: string;
  readonly author_first_name: string;
  readonly author_last_name: string;
  readonly author_email: string;
  readonly date: string;
  readonly text: string;
}

export interface ModelArticle {
  readonly id: string;
  readonly body: ArticleBody;
  /** Unix seconds: learnt from the first read, which must fall within `createdWithin`. */
  created?: number;
  readonly createdWithin: readonly [number, number];
}

export interface ModelMagazine {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly TagRef[];
  /** Unix seconds; undefined until read when the server chose it (then within `createdWithin`). */
  created?: number;
  readonly createdWithin?: readonly [number, number];
  readonly articles: ModelArticle[];
}

/** An Idempotency-Key that completed a create: a replay must give back the same answer. */
export interface KeyRecord {
  readonly fingerprint: string;
  readonly status: number;
  readonly id: string;
  readonly location: string;
}

export class ApiModel {
  readonly magazines = new Map<string, ModelMagazine>();
  /** Articles that existed once: reading one must give 404. */
  readonly goneArticles = new Set<string>();
  /** Ids that existed once. */
  readonly goneMagazines = new Set<string>();
  /** Keys by operation and key. */
  readonly keys = new Map<string, KeyRecord>();
  /** Requests sent with a key, in order: a later command may send one of them again. */
  readonly keyLog: {
    readonly operation: string;
    readonly key: string;
    readonly path: string;
    readonly body: string;
  }[] = [];
  /** ETags of single magazines a client saw, by id; the last one is current unless the magazine changed since. */
  readonly etags = new Map<string, { current?: string; stale: string[] }>();
  /** The collection's ETag (`GET /magazines`): current, and the ones it had before. */
  collectionEtag: { current?: string; stale: string[] } = { stale: [] };

  clone(): ApiModel {
    const copy = new ApiModel();
    for (const [id, magazine] of this.magazines)
      copy.magazines.set(id, { ...magazine, articles: magazine.articles.map((a) => ({ ...a })) });
    for (const id of this.goneArticles) copy.goneArticles.add(id);
    for (const id of this.goneMagazines) copy.goneMagazines.add(id);
    for (const [k, v] of this.keys) copy.keys.set(k, v);
    copy.keyLog.push(...this.keyLog);
    for (const [id, e] of this.etags)
      copy.etags.set(id, { ...(e.current && { current: e.current }), stale: [...e.stale] });
    copy.collectionEtag = {
      ...(this.collectionEtag.current && { current: this.collectionEtag.current }),
      stale: [...this.collectionEtag.stale],
    };
    return copy;
  }

  // -------------------------------------------------------------------------------------------
  // Changes

  /** A magazine changed (or came or went): the ETags seen of it, and of the collection, are stale now. */
  private touch(id: string) {
    const seen = this.etags.get(id);
    if (seen?.current) {
      seen.stale.push(seen.current);
      delete seen.current;
    }
    this.collectionChanged();
  }

  collectionChanged() {
    if (this.collectionEtag.current) {
      this.collectionEtag.stale.push(this.collectionEtag.current);
      delete this.collectionEtag.current;
    }
  }

  put(magazine: ModelMagazine) {
    const previous = this.magazines.get(magazine.id);
    if (previous && sameMagazine(previous, magazine)) {
      // A replace that changes nothing keeps the version.
      return;
    }
    this.touch(magazine.id);
    this.magazines.set(magazine.id, magazine);
    this.goneMagazines.delete(magazine.id);
  }

  remove(id: string) {
    const magazine = this.magazines.get(id);
    if (!magazine) return;
    this.touch(id);
    this.magazines.delete(id);
    this.goneMagazines.add(id);
    for (const article of magazine.articles) this.goneArticles.add(article.id);
  }

  /** PUT /magazines: these magazines, created or replaced (articles kept); every other one gone with its articles. */
  replaceAll(next: readonly ModelMagazine[]) {
    const keep = new Set(next.map((m) => m.id));
    for (const id of [...this.magazines.keys()]) if (!keep.has(id)) this.remove(id);
    for (const magazine of next) {
      const previous = this.magazines.get(magazine.id);
      this.put({ ...magazine, articles: previous?.articles ?? [] });
    }
    // A bulk write always makes a new version of the collection, even of the same magazines.
    this.collectionChanged();
  }

  // -------------------------------------------------------------------------------------------
  // Views

  /** Every magazine in list order: by `created`, then id (ids are ASCII, so code unit order is byte order). */
  ordered(filter: { readonly year?: number; readonly tag?: string } = {}): ModelMagazine[] {
    return [...this.magazines.values()]
      .filter((m) => filter.year === undefined || (m.created !== undefined && yearOf(m.created) === filter.year))
      .filter((m) => filter.tag === undefined || m.tags.some((t) => t.id === filter.tag))
      .sort((a, b) => (a.created ?? 0) - (b.created ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Tags in use, by id: the name most of their magazines carry (on a tie the first in code unit order), and how many carry it. */
  tags(): { id: string; name: string; count: number }[] {
    const byId = new Map<string, Map<string, number>>();
    for (const magazine of this.magazines.values()) {
      for (const tag of magazine.tags) {
        const names = byId.get(tag.id) ?? byId.set(tag.id, new Map()).get(tag.id) ?? new Map<string, number>();
        names.set(tag.name, (names.get(tag.name) ?? 0) + 1);
      }
    }
    return [...byId]
      .map(([id, names]) => {
        const [name] = [...names].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))[0] ?? [''];
        return { id, name, count: [...names.values()].reduce((s, n) => s + n, 0) };
      })
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  years(): number[] {
    return [
      ...new Set([...this.magazines.values()].flatMap((m) => (m.created === undefined ? [] : [yearOf(m.created)]))),
    ];
  }

  article(id: string): { magazine: ModelMagazine; article: ModelArticle } | undefined {
    for (const magazine of this.magazines.values()) {
      const article = magazine.articles.find((a) => a.id === id);
      if (article) return { magazine, article };
    }
    return undefined;
  }
}

export const yearOf = (seconds: number) => new Date(seconds * 1000).getUTCFullYear();

const sameMagazine = (a: ModelMagazine, b: ModelMagazine) =>
  a.title === b.title &&
  a.created === b.created &&
  JSON.stringify(a.tags.map((t) => [t.id, t.name])) === JSON.stringify(b.tags.map((t) => [t.id, t.name]));

// ---------------------------------------------------------------------------------------------
// Representations

export const magazineView = (magazine: ModelMagazine, baseUrl: string, created: number) => ({
  id: magazine.id,
  type: 'magazine',
  title: magazine.title,
  tags: magazine.tags.map((tag) => ({ id: tag.id, name: tag.name, url: `${baseUrl}/v1/tags/${tag.id}` })),
  created: String(created),
});

export const articleView = (magazineId: string, article: ModelArticle, created: number) => ({
  id: article.id,
  type: 'article',
  magazine_id: magazineId,
  ...article.body,
  created: String(created),
});

export const tagView = (tag: { id: string; name: string; count: number }, baseUrl: string) => ({
  id: tag.id,
  type: 'tag',
  name: tag.name,
  url: `${baseUrl}/v1/tags/${tag.id}`,
  magazine_count: tag.count,
});
