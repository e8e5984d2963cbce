import { createHash } from 'node:crypto';

/** What the load writes (api-load.ts): magazines, their tags and creation times, articles, and the census of what was made. */

export interface TagRef {
  readonly id: string;
  readonly name: string;
}

export interface MagazineDraft {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly TagRef[];
  /** Unix seconds. */
  readonly created: number;
}

export type TagMix =
  /** `perMagazine` of `topics` shared topics (`topic-00`…), not the same ones from one magazine to the next. */
  | { readonly kind: 'topics'; readonly topics: number; readonly perMagazine: number }
  /**
   * `perMagazine` tags that no other magazine carries: every magazine makes new tags. Their ids
   * follow the magazine's, so that a stream of them falls in few places of the tags' order, unless
   * `scattered`: then each id starts with a digest of it, as unrelated names would sort.
   */
  | { readonly kind: 'new'; readonly perMagazine: number; readonly scattered?: boolean }
  /** The same tag on every magazine: the popular tag every write meets on. */
  | { readonly kind: 'one'; readonly tag: TagRef };

export const topicTag = (topic: number): TagRef => {
  const number = String(topic).padStart(2, '0');
  return { id: `topic-${number}`, name: `Topic ${number}` };
};

/**
 * The topics of magazine `i`: the first by `i`, the others at a stride that changes every round of
 * the topics, so that topics meet in every combination rather than always in the same pairs.
 */
const topicsOf = (i: number, topics: number, wanted: number): TagRef[] => {
  const stride = 1 + (Math.floor(i / topics) % Math.max(1, topics - 1));
  const chosen: number[] = [];
  for (let next = i % topics; chosen.length < Math.min(wanted, topics); next = (next + stride) % topics) {
    let free = next;
    while (chosen.includes(free)) free = (free + 1) % topics;
    chosen.push(free);
  }
  return chosen.map(topicTag);
};

export const tagsOf = (mix: TagMix, magazineId: string, i: number): TagRef[] => {
  switch (mix.kind) {
    case 'topics':
      return topicsOf(i, mix.topics, mix.perMagazine);
    case 'new':
      return Array.from({ length: mix.perMagazine }, (_, k) => {
        const id = `${magazineId}-t${k}`;
        const scattered = mix.scattered && createHash('sha256').update(id).digest('hex').slice(0, 6);
        return { id: scattered ? `${scattered}-${id}` : id, name: `Tag ${k} of ${magazineId}` };
      });
    case 'one':
      return [mix.tag];
  }
};

/** 2015-01-01T00:00:00Z. */
export const FIRST_CREATED = 1_420_070_400;
const TEN_YEARS = 10 * 365 * 86_400;

/** Creation times spread evenly over ten years, in the order of `i`, as a collection written over time would be. */
export const spreadOverTenYears =
  (total: number) =>
  (i: number): number =>
    FIRST_CREATED + Math.floor((i * TEN_YEARS) / Math.max(1, total));

/** A UUID made from `seed`, the same each time: the shape of the ids the API makes. */
export const uuidOf = (seed: string) => {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

export const magazineDraft = (
  prefix: string,
  i: number,
  mix: TagMix,
  createdOf: (i: number) => number,
  /** Ids as the API makes them when a client gives none, rather than short ones a client chose. */
  uuidIds = false,
): MagazineDraft => {
  const id = uuidIds ? uuidOf(`${prefix}-${i}`) : `${prefix}-${i}`;
  return { id, title: `Magazine ${i} of ${prefix}`, tags: tagsOf(mix, id, i), created: createdOf(i) };
};

/** The body of the i-th article POSTed. */
export const articleBody = (i: number) => ({
  title: `Article ${i}`,
  author_first_name: 'Ada',
  author_last_name: 'Lovelace',
  author_email: 'ada@example.com',
  date: '2024-02-29',
  text: `The text of article ${i}, short.`,
});

export const yearOf = (seconds: number) => String(new Date(seconds * 1000).getUTCFullYear());

/** What a client made, counted by the client: what the API's counts must equal. */
export class Census {
  #total = 0;
  readonly #years = new Map<string, number>();
  readonly #tags = new Map<string, number>();
  readonly #tagYears = new Map<string, number>();

  add(draft: MagazineDraft): void {
    const year = yearOf(draft.created);
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    this.#total += 1;
    bump(this.#years, year);
    for (const tag of draft.tags) {
      bump(this.#tags, tag.id);
      bump(this.#tagYears, `${tag.id} ${year}`);
    }
  }

  get total(): number {
    return this.#total;
  }

  inYear(year: string): number {
    return this.#years.get(year) ?? 0;
  }

  tagged(tagId: string): number {
    return this.#tags.get(tagId) ?? 0;
  }

  taggedInYear(tagId: string, year: string): number {
    return this.#tagYears.get(`${tagId} ${year}`) ?? 0;
  }

  /** The year with the most magazines (the latest of equals): a year filter that has pages to skip. */
  busiestYear(): string {
    let best = '';
    for (const [year, count] of this.#years)
      if (count > this.inYear(best) || (count === this.inYear(best) && year > best)) best = year;
    return best || yearOf(FIRST_CREATED);
  }

  /** Tags in use, with the magazines that carry each. */
  tags(): ReadonlyMap<string, number> {
    return this.#tags;
  }
}
