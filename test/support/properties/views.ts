import { parseLinkHeader } from '../http';
import type { Look } from './arbitraries';
import { describe, expectError, expectView, fail, type Harness, same, send } from './harness';
import { articleView, type ModelMagazine, magazineView, tagView } from './model';

/** Reading the API back after each step of a sequence (sequences.ts), and comparing every view with the model. */

export const enc = encodeURIComponent;

/** The path of a view under a prefix and in a format, with its query. */
const viewPath = (look: Look, path: string, query: Record<string, string | number | undefined> = {}) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  if (look.format === 'xml-format') params.set('format', 'xml');
  const label = look.format === 'xml-label' ? '.xml' : '';
  const search = params.toString();
  return `${look.prefix}${path}${label}${search ? `?${search}` : ''}`;
};

const viewHeaders = (look: Look): [string, string][] =>
  look.format === 'xml-accept' ? [['Accept', 'application/xml']] : [];

const envelope = (count: number, offset: number, limit: number, results: unknown[]) => ({
  metadata: { resultset: { count, offset, limit } },
  results,
});

/** Learns what the server chose (created of magazines and articles made without one), checking it is within its window. */
export const learnCreated = async (harness: Harness) => {
  const { model } = harness;
  for (const magazine of model.magazines.values()) {
    if (magazine.created === undefined) {
      const response = await send(harness, { method: 'GET', path: `/magazines/${enc(magazine.id)}` });
      if (response.status !== 200)
        fail(harness, ['model'], `a magazine the model has is not there:\n${describe(response)}`);
      const created = Number((JSON.parse(response.text) as { created: string }).created);
      const [from, to] = magazine.createdWithin ?? [0, 0];
      if (!(created >= from - 1 && created <= to + 1))
        fail(harness, ['model'], `magazine ${magazine.id} was created at ${created}, outside [${from}, ${to}]`);
      magazine.created = created;
    }
    if (magazine.articles.some((a) => a.created === undefined)) {
      const response = await send(harness, {
        method: 'GET',
        path: `/magazines/${enc(magazine.id)}/articles?limit=100`,
      });
      if (response.status !== 200) fail(harness, ['model'], `articles of ${magazine.id}:\n${describe(response)}`);
      const shown = (JSON.parse(response.text) as { results: { id: string; created: string }[] }).results;
      for (const article of magazine.articles) {
        if (article.created !== undefined) continue;
        const found = shown.find((a) => a.id === article.id);
        if (!found) fail(harness, ['model'], `article ${article.id} is missing from its magazine's list`);
        const created = Number(found?.created);
        const [from, to] = article.createdWithin;
        if (!(created >= from - 1 && created <= to + 1))
          fail(harness, ['model'], `article ${article.id} was created at ${created}, outside [${from}, ${to}]`);
        article.created = created;
      }
    }
  }
};

const magazinesView = (harness: Harness, magazines: readonly ModelMagazine[]) =>
  magazines.map((m) => magazineView(m, harness.baseUrl, m.created ?? 0));

/** Follows `next` links from the first page to the last and compares the pages, joined, with the whole list. */
const walkPages = async (harness: Harness, first: string, expected: unknown[], what: string) => {
  const seen: unknown[] = [];
  let path: string | undefined = first;
  for (let page = 0; path !== undefined; page++) {
    if (page > expected.length + 2) fail(harness, ['model'], `${what}: the next links do not end`);
    const response = await send(harness, { method: 'GET', path });
    if (response.status !== 200) fail(harness, ['model'], `${what}: a page failed:\n${describe(response)}`);
    seen.push(...(JSON.parse(response.text) as { results: unknown[] }).results);
    const next: string | undefined = parseLinkHeader(response.headers.link).next;
    path = next === undefined ? undefined : new URL(next).pathname.replace(/^\/v1/, '') + new URL(next).search;
  }
  if (!same(seen, expected))
    fail(
      harness,
      ['model'],
      `${what}: the pages, followed by their next links, show\n${JSON.stringify(seen).slice(0, 1200)}\nnot\n${JSON.stringify(expected).slice(0, 1200)}`,
    );
};

/** Every view the model can predict: the ones each step reads, or all of them (`everything`, at the end of a sequence). */
export const checkViews = async (harness: Harness, look: Look, everything = false) => {
  await learnCreated(harness);
  const { model, baseUrl } = harness;
  const all = model.ordered();

  // The whole list, its count and the collection's version.
  const list = await send(harness, { method: 'GET', path: '/magazines?limit=100' });
  expectView(harness, list, envelope(all.length, 0, 100, magazinesView(harness, all)), 'GET /magazines');
  const etag = list.headers.etag;
  if (model.collectionEtag.current !== undefined && etag !== model.collectionEtag.current)
    fail(
      harness,
      ['model'],
      `the collection's ETag changed (${model.collectionEtag.current} → ${etag}) with no change to it`,
    );
  if (etag !== undefined && model.collectionEtag.stale.includes(etag))
    fail(harness, ['model'], `the collection's ETag ${etag} is one it had before a change`);
  if (etag !== undefined) model.collectionEtag.current = etag;

  // One page, in the step's order, format and prefix.
  const ordered = look.sort === 'asc' ? all : [...all].reverse();
  const page = ordered.slice(look.offset, look.offset + look.limit);
  expectView(
    harness,
    await send(harness, {
      method: 'GET',
      path: viewPath(look, '/magazines', { sort: look.sort, offset: look.offset, limit: look.limit }),
      headers: viewHeaders(look),
    }),
    envelope(all.length, look.offset, look.limit, magazinesView(harness, page)),
    `a page of GET /magazines (${look.sort}, offset ${look.offset}, limit ${look.limit})`,
  );

  // A year and a tag, each alone and together.
  const years = model.years();
  const tags = model.tags();
  const yearsToCheck = everything
    ? [...years, 1999]
    : [years.length > 0 ? (years[look.pick % years.length] as number) : 2001];
  const tagIds = tags.map((t) => t.id);
  const tagsToCheck = everything
    ? [...tagIds, 'unused']
    : [tagIds.length > 0 ? (tagIds[look.pick % tagIds.length] as string) : 'news'];
  for (const year of yearsToCheck) {
    const expected = model.ordered({ year });
    const chosen = look.sort === 'asc' ? expected : [...expected].reverse();
    expectView(
      harness,
      await send(harness, { method: 'GET', path: `/magazines?year=${year}&sort=${look.sort}&limit=100` }),
      envelope(expected.length, 0, 100, magazinesView(harness, chosen)),
      `GET /magazines?year=${year}`,
    );
  }
  for (const tag of tagsToCheck) {
    const expected = model.ordered({ tag });
    const chosen = (look.sort === 'asc' ? expected : [...expected].reverse()).slice(
      look.offset,
      look.offset + look.limit,
    );
    expectView(
      harness,
      await send(harness, {
        method: 'GET',
        path: `/magazines?tag=${enc(tag)}&sort=${look.sort}&offset=${look.offset}&limit=${look.limit}`,
      }),
      envelope(expected.length, look.offset, look.limit, magazinesView(harness, chosen)),
      `GET /magazines?tag=${tag}`,
    );
    const ofTag = await send(harness, {
      method: 'GET',
      path: viewPath(look, `/tags/${enc(tag)}/magazines`, { limit: 100 }),
      headers: viewHeaders(look),
    });
    if (expected.length === 0)
      expectError(harness, ofTag, 404, '40404', `GET /tags/${tag}/magazines of a tag no magazine carries`);
    else
      expectView(
        harness,
        ofTag,
        envelope(expected.length, 0, 100, magazinesView(harness, expected)),
        `GET /tags/${tag}/magazines`,
      );
    const one = await send(harness, { method: 'GET', path: `/tags/${enc(tag)}` });
    const summary = tags.find((t) => t.id === tag);
    if (!summary) expectError(harness, one, 404, '40404', `GET /tags/${tag} of a tag no magazine carries`);
    else expectView(harness, one, tagView(summary, baseUrl), `GET /tags/${tag}`);
    if (everything && years.length > 0) {
      const year = years[look.pick % years.length] as number;
      const both = model.ordered({ tag, year });
      expectView(
        harness,
        await send(harness, { method: 'GET', path: `/magazines?tag=${enc(tag)}&year=${year}&limit=100` }),
        envelope(both.length, 0, 100, magazinesView(harness, both)),
        `GET /magazines?tag=${tag}&year=${year}`,
      );
    }
  }

  // The tags in use, all of them, and a page of them.
  const tagList = tags.map((t) => tagView(t, baseUrl));
  expectView(
    harness,
    await send(harness, { method: 'GET', path: '/tags?limit=100' }),
    envelope(tags.length, 0, 100, tagList),
    'GET /tags',
  );
  const tagPage = (look.sort === 'asc' ? tagList : [...tagList].reverse()).slice(look.offset, look.offset + look.limit);
  expectView(
    harness,
    await send(harness, {
      method: 'GET',
      path: viewPath(look, '/tags', { sort: look.sort, offset: look.offset, limit: look.limit }),
      headers: viewHeaders(look),
    }),
    envelope(tags.length, look.offset, look.limit, tagPage),
    'a page of GET /tags',
  );

  // Single magazines (and their ETags), their articles, single articles.
  const ids = [...model.magazines.keys()].sort();
  const gone = [...model.goneMagazines].sort();
  const magazinesToCheck = everything
    ? [...ids, ...gone]
    : [ids[look.pick % Math.max(1, ids.length)], gone[look.pick % Math.max(1, gone.length)]].filter(
        (id): id is string => id !== undefined,
      );
  for (const id of magazinesToCheck) {
    const magazine = model.magazines.get(id);
    const one = await send(harness, {
      method: 'GET',
      path: viewPath(look, `/magazines/${enc(id)}`),
      headers: viewHeaders(look),
    });
    const articles = await send(harness, {
      method: 'GET',
      path: viewPath(look, `/magazines/${enc(id)}/articles`, { sort: look.sort, limit: 100 }),
      headers: viewHeaders(look),
    });
    if (!magazine) {
      expectError(harness, one, 404, '40402', `GET /magazines/${id} of a magazine that is gone`);
      expectError(harness, articles, 404, '40402', `GET /magazines/${id}/articles of a magazine that is gone`);
      continue;
    }
    expectView(harness, one, magazineView(magazine, baseUrl, magazine.created ?? 0), `GET /magazines/${id}`);
    const seenEtags = model.etags.get(id) ?? model.etags.set(id, { stale: [] }).get(id) ?? { stale: [] };
    // A representation's version is compared in the one format the model keeps it in.
    const etag = look.format === 'json' ? one.headers.etag : seenEtags.current;
    if (seenEtags.current !== undefined && etag !== seenEtags.current)
      fail(harness, ['model'], `the ETag of ${id} changed (${seenEtags.current} → ${etag}) with no change to it`);
    if (etag !== undefined && seenEtags.stale.includes(etag))
      fail(harness, ['model'], `the ETag of ${id} (${etag}) is one it had before a change`);
    if (etag !== undefined) seenEtags.current = etag;
    const expectedArticles = magazine.articles.map((a) => articleView(id, a, a.created ?? 0));
    expectView(
      harness,
      articles,
      envelope(
        expectedArticles.length,
        0,
        100,
        look.sort === 'asc' ? expectedArticles : [...expectedArticles].reverse(),
      ),
      `GET /magazines/${id}/articles`,
    );
    if (look.walk || everything)
      await walkPages(
        harness,
        `/magazines/${enc(id)}/articles?limit=2&sort=${look.sort}`,
        look.sort === 'asc' ? expectedArticles : [...expectedArticles].reverse(),
        `the pages of /magazines/${id}/articles`,
      );
  }
  const liveArticles = [...model.magazines.values()].flatMap((m) => m.articles.map((a) => [m, a] as const));
  const goneArticles = [...model.goneArticles];
  const articlesToCheck: (readonly [ModelMagazine | undefined, string])[] = everything
    ? [...liveArticles.map(([m, a]) => [m, a.id] as const), ...goneArticles.map((id) => [undefined, id] as const)]
    : [
        ...(liveArticles.length > 0
          ? [liveArticles[look.pick % liveArticles.length]].map((p) => [p?.[0], p?.[1].id ?? ''] as const)
          : []),
        ...(goneArticles.length > 0
          ? [[undefined, goneArticles[look.pick % goneArticles.length] as string] as const]
          : []),
      ];
  for (const [magazine, articleId] of articlesToCheck) {
    const response = await send(harness, {
      method: 'GET',
      path: viewPath(look, `/articles/${enc(articleId)}`),
      headers: viewHeaders(look),
    });
    const article = magazine?.articles.find((a) => a.id === articleId);
    if (!magazine || !article)
      expectError(harness, response, 404, '40403', `GET /articles/${articleId} of a magazine that is gone`);
    else
      expectView(
        harness,
        response,
        articleView(magazine.id, article, article.created ?? 0),
        `GET /articles/${articleId}`,
      );
  }

  // Every page of the list, followed by its next links (cursors).
  if (look.walk || everything)
    await walkPages(
      harness,
      `/magazines?limit=${look.limit}&sort=${look.sort}`,
      magazinesView(harness, ordered),
      'the pages of /magazines',
    );
};
