import type { StoredArticle } from './article';
import type { MagazineListQuery, Page, PageQuery } from './list-query';
import { yearBounds } from './list-query';
import type { StoredMagazine } from './magazine';
import type { TagSummary } from './representation';
import type { TagRef } from './tag';

/**
 * Simulated data for `mock` requests: a fixed catalogue generated from its index,
 * so the same request always gets the same answer, and filtered, sorted and paged by the same
 * rules as real data. Nothing here touches the table.
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

const mockMagazine = (id: string, n: number): StoredMagazine => {
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

const catalogue = Array.from({ length: CATALOGUE_SIZE }, (_, n) =>
  mockMagazine(`mock-${String(n + 1).padStart(3, '0')}`, n),
);
const lastModified = Math.max(...catalogue.map((m) => m.updated));

const paged = <T>(items: readonly T[], { offset, limit }: PageQuery): T[] => items.slice(offset, offset + limit);

const ordered = (items: readonly StoredMagazine[], sort: PageQuery['sort']) => {
  const asc = [...items].sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : 1));
  return sort === 'desc' ? asc.reverse() : asc;
};

const articleFor = (
  magazineId: string,
  n: number,
  id = `mock-article-${hash(`${magazineId}#${n}`).toString(36)}`,
): StoredArticle => ({
  id,
  magazineId,
  title: `${pick(['Notes on', 'A Field Guide to', 'Letters about', 'The Case for'], n)} ${pick(TAGS, n).name}`,
  author_first_name: pick(FIRST_NAMES, n),
  author_last_name: pick(LAST_NAMES, n + 1),
  author_email: `${pick(FIRST_NAMES, n).toLowerCase()}.${pick(LAST_NAMES, n + 1).toLowerCase()}@example.com`,
  date: new Date((FIRST_CREATED + n * 864_000) * 1000).toISOString().slice(0, 10),
  text: 'Simulated article text: this response comes from the mock server and nothing is stored.',
  created: FIRST_CREATED + n * 864_000,
});

const tagSummaries = (): TagSummary[] =>
  TAGS.map((tag) => ({
    ...tag,
    magazineCount: catalogue.filter((m) => m.tags.some((t) => t.id === tag.id)).length,
  })).filter((t) => t.magazineCount > 0);

export const mockData = {
  listMagazines(query: Pick<MagazineListQuery, 'offset' | 'limit' | 'sort' | 'year' | 'tag'>): Page<StoredMagazine> {
    const [from, to] = query.year === undefined ? [-Infinity, Infinity] : yearBounds(query.year);
    const matching = catalogue.filter(
      (m) => m.created >= from && m.created <= to && (!query.tag || m.tags.some((t) => t.id === query.tag)),
    );
    return { items: paged(ordered(matching, query.sort), query), count: matching.length, lastModified };
  },

  magazine: (id: string): StoredMagazine => catalogue.find((m) => m.id === id) ?? mockMagazine(id, hash(id)),

  /** A stable id for a simulated creation, derived from what was sent. */
  newId: (sent: unknown): string => `mock-${hash(JSON.stringify(sent)).toString(36)}`,

  listArticles(magazineId: string, query: PageQuery): Page<StoredArticle> {
    const count = 3 + (hash(magazineId) % 5);
    const asc = Array.from({ length: count }, (_, n) => articleFor(magazineId, n));
    const items = query.sort === 'desc' ? asc.reverse() : asc;
    return { items: paged(items, query), count, lastModified };
  },

  article: (id: string): StoredArticle => articleFor(pick(catalogue, hash(id)).id, hash(id) % 97, id),

  listTags(query: PageQuery): Page<TagSummary> {
    const asc = tagSummaries();
    const items = query.sort === 'desc' ? asc.reverse() : asc;
    return { items: paged(items, query), count: asc.length, lastModified };
  },

  tag: (id: string): TagSummary => ({
    ...(tagSummaries().find((t) => t.id === id) ?? { id, name: id, magazineCount: 1 + (hash(id) % 9) }),
    lastModified,
  }),
};
