import type { Article } from '../domain/article';
import { articleId, parseArticleId } from '../domain/article-id';
import { NotFound } from '../domain/errors';
import { isIdentifier } from '../domain/fields';
import type { Magazine } from '../domain/magazine';
import { type MagazineFilter, type Page, type PageQuery, yearBounds } from '../domain/paging';
import type { Store } from '../domain/store';
import type { TagRef, TagSummary } from '../domain/tag';

/**
 * The store of `mock` requests: simulated data from a fixed catalogue generated from its index,
 * so the same request always gets the same answer, filtered, sorted and paged by the same rules as
 * real data. It never touches the table, and makes none of the checks that need stored data: any
 * well-formed id reads as a magazine (or article, or tag), a create never finds its id taken, a
 * delete always finds its magazine. An id no resource can have is a 404 here as on the table.
 */

const TITLES = [
  'Modern Astronomy',
  'Coastal Living',
  'The Quiet Kitchen',
  'Urban Cycling',
  'Field Notes',
  'Small Craft',
  'Northern Gardens',
  'Signal & Noise',
  'Open Source Monthly',
  'The Long Read',
];
const TAGS: readonly TagRef[] = [
  { id: 'science', name: 'Science' },
  { id: 'travel', name: 'Travel' },
  { id: 'food', name: 'Food' },
  { id: 'design', name: 'Design' },
  { id: 'technology', name: 'Technology' },
  { id: 'outdoors', name: 'Outdoors' },
];
const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth'];

const CATALOGUE_SIZE = 60;
const FIRST_CREATED = Date.UTC(2019, 0, 7) / 1000;
const SPACING = 3_000_000;

/** FNV-1a: a stable number from any text, so that unknown ids still get stable data. */
const hash = (text: string) => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
};

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length]!;

const mockMagazine = (id: string, n: number): Magazine => {
  const created = FIRST_CREATED + (n % CATALOGUE_SIZE) * SPACING;
  return {
    id,
    title: `${pick(TITLES, n)} ${2019 + Math.floor((created - FIRST_CREATED) / 31_557_600)}`,
    tags: [pick(TAGS, n), pick(TAGS, n + 2)].slice(0, n % 3 === 0 ? 1 : 2),
    created,
    updated: created + 86_400,
    revision: `mock${hash(id).toString(36)}`,
  };
};

let built: { readonly magazines: readonly Magazine[]; readonly lastModified: number } | undefined;

/** The catalogue, made on the first mock request: a function instance that serves no mock request never makes it. */
const mockCatalogue = () => {
  if (!built) {
    const magazines = Array.from({ length: CATALOGUE_SIZE }, (_, n) =>
      mockMagazine(`mock-${String(n + 1).padStart(3, '0')}`, n),
    );
    built = { magazines, lastModified: Math.max(...magazines.map((m) => m.updated)) };
  }
  return built;
};

/** A page of an ordered list; the mock's position of an item is its offset, so cursors work as for real lists. */
const paged = <T>(items: readonly T[], { start, limit }: PageQuery, extra: Partial<Page<T>> = {}): Page<T> => {
  const offset = 'after' in start ? Number(start.after) + 1 : start.offset;
  const page = items.slice(offset, offset + limit);
  const end = offset + page.length;
  return {
    items: page,
    count: items.length,
    offset,
    lastModified: mockCatalogue().lastModified,
    ...(end < items.length && page.length > 0 && { next: String(end - 1) }),
    ...extra,
  };
};

const ordered = (items: readonly Magazine[], sort: PageQuery['sort']) => {
  const asc = [...items].sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
  return sort === 'desc' ? asc.reverse() : asc;
};

/** The `n`th simulated article of a magazine, with an id of the real form, so that it reads back as it was listed. */
const articleFor = (magazineId: string, n: number): Article => ({
  id: articleId(magazineId, 'mock', n + 1),
  magazineId,
  title: `${pick(['Notes on', 'A Field Guide to', 'Letters about', 'The Case for'], n)} ${pick(TAGS, n).name}`,
  author_first_name: pick(FIRST_NAMES, n),
  author_last_name: pick(LAST_NAMES, n + 1),
  author_email: `${pick(FIRST_NAMES, n).toLowerCase()}.${pick(LAST_NAMES, n + 1).toLowerCase()}@example.com`,
  date: new Date((FIRST_CREATED + n * 864_000) * 1000).toISOString().slice(0, 10),
  text: 'Simulated article text: this response comes from the mock server and nothing is stored.',
  created: FIRST_CREATED + n * 864_000,
});

/**
 * The magazines that carry a tag: the catalogue's; for a tag it does not have (any well-formed id
 * reads as a tag), 1 to 9 of its magazines from a place the id picks, carrying that tag as well, so
 * that a tag's count and its magazines agree, as on the table. An id no tag can have: none.
 */
const carrying = (tagId: string): readonly Magazine[] => {
  const { magazines } = mockCatalogue();
  if (!isIdentifier(tagId)) return [];
  if (TAGS.some((tag) => tag.id === tagId)) return magazines.filter((m) => m.tags.some((t) => t.id === tagId));
  const h = hash(tagId);
  return Array.from({ length: 1 + (h % 9) }, (_, k) => {
    const carrier = magazines[(h + 7 * k) % magazines.length]!;
    return { ...carrier, tags: [...carrier.tags, { id: tagId, name: tagId }] };
  });
};

/** The catalogue's tags in id order, as the table lists tags. */
const TAGS_BY_ID = [...TAGS].sort((a, b) => (a.id < b.id ? -1 : 1));

const tagSummaries = (): TagSummary[] =>
  TAGS_BY_ID.map((tag) => ({
    ...tag,
    magazineCount: carrying(tag.id).length,
  })).filter((t) => t.magazineCount > 0);

const byOrder = <T>(asc: readonly T[], sort: PageQuery['sort']) => (sort === 'desc' ? [...asc].reverse() : asc);

const magazine = (id: string): Magazine =>
  mockCatalogue().magazines.find((m) => m.id === id) ?? mockMagazine(id, hash(id));

/** A stable id for a simulated creation, derived from what was sent. */
const newMockId = (sent: unknown): string => `mock-${hash(JSON.stringify(sent)).toString(36)}`;

/**
 * An id that is not of the form ids take can name nothing, real or simulated: the mock answers it
 * as the table's store does (404), without data, rather than simulate a resource no id can name.
 */
const known = (entity: 'magazine' | 'tag', id: string) => {
  if (!isIdentifier(id)) throw new NotFound(entity, id);
  return id;
};

/*
 * The operations of the `Store`, one by one, so that a function's bundle carries only those its
 * handler names (shared/bindings.ts).
 */

export const getMagazine: Store['getMagazine'] = async (id) => magazine(known('magazine', id));

export const listMagazines: Store['listMagazines'] = async (filter: MagazineFilter, page: PageQuery) => {
  const [from, to] = filter.year === undefined ? [-Infinity, Infinity] : yearBounds(filter.year);
  const candidates = filter.tag === undefined ? mockCatalogue().magazines : carrying(filter.tag);
  const matching = candidates.filter((m) => m.created >= from && m.created <= to);
  return paged(ordered(matching, page.sort), page);
};

export const createMagazine: Store['createMagazine'] = async (draft) => ({
  id: draft.id ?? newMockId(draft),
  replayed: false,
});

export const replaceMagazine: Store['replaceMagazine'] = async () => 'replaced';

export const deleteMagazine: Store['deleteMagazine'] = async (id) => {
  known('magazine', id);
};

export const replaceAllMagazines: Store['replaceAllMagazines'] = async () => undefined;

export const listArticles: Store['listArticles'] = async (magazineId, page) => {
  known('magazine', magazineId);
  const count = 3 + (hash(magazineId) % 5);
  return paged(
    byOrder(
      Array.from({ length: count }, (_, n) => articleFor(magazineId, n)),
      page.sort,
    ),
    page,
  );
};

export const createArticle: Store['createArticle'] = async (magazineId, input) => ({
  id: articleId(known('magazine', magazineId), 'mock', 1 + (hash(JSON.stringify(input)) % 1_000_000)),
  replayed: false,
});

/** An id of the real form reads as the simulated article it names; any other is a 404, as on the table. */
export const getArticle: Store['getArticle'] = async (id) => {
  const parsed = parseArticleId(id);
  if (!parsed) throw new NotFound('article', id);
  // Any number reads, its content repeating: a far one must not date the article past what a date can hold.
  return { ...articleFor(parsed.magazineId, (parsed.seq - 1) % 97), id };
};

export const listTags: Store['listTags'] = async (page) => paged(byOrder(tagSummaries(), page.sort), page);

export const getTag: Store['getTag'] = async (id) => {
  known('tag', id);
  return {
    ...(tagSummaries().find((t) => t.id === id) ?? { id, name: id, magazineCount: carrying(id).length }),
    lastModified: mockCatalogue().lastModified,
  };
};
