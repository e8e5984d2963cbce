import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expectMatchesContract } from '../contract';
import type { Fault, FaultProxy, RecordedCall } from '../dynamodb-faults';
import { parseLinkHeader } from '../http';
import {
  type ApiModel,
  type ArticleBody,
  articleView,
  type ModelArticle,
  type ModelMagazine,
  magazineView,
  type TagRef,
  tagView,
  yearOf,
} from './model';
import { type Figures, Violation, type ViolationKind } from './run';
import { errorObjectProblems, leaksOf, sendWire, type WireResponse, XML_TYPE } from './wire';

/**
 * Model-based command sequences: creates (with and without id, tags, `Idempotency-Key` and its
 * replays), replaces (with and without `If-Match`), deletes, bulk replace and delete, articles,
 * and bursts of concurrent writes, each checked against the model (model.ts) after every step:
 * single reads, counts, every paging order (both sorts, offset and limit, cursors, year, tag),
 * tags, a tag's magazines, articles.
 *
 * Under injected faults (fault-sequences.test.ts) every command may also meet throttling, 5xx,
 * timeouts, lost replies or unprocessed batch items from DynamoDB. Its answer must then be a
 * success whose effect is visible, or a 503 with `Retry-After` whose effect, once the faults are
 * cleared, is none, or is completed by sending the same request again where the API promises that
 * (bulk writes, and POSTs with an `Idempotency-Key`). The same rules hold without faults: a busy
 * machine can make the API answer 503 too, and it must then keep the same promises.
 */

// ---------------------------------------------------------------------------------------------
// Generated values

/** Tags as clients send them, with the id the API must derive (or was given); some share an id under other names. */
const TAG_POOL: readonly { readonly sent: { id?: string; name: string }; readonly id: string }[] = [
  { sent: { name: 'News' }, id: 'news' },
  { sent: { name: 'news' }, id: 'news' },
  { sent: { id: 'news', name: 'Breaking News' }, id: 'news' },
  { sent: { name: 'Science' }, id: 'science' },
  { sent: { name: 'Art & Design' }, id: 'art-design' },
  { sent: { name: 'Café Culture' }, id: 'cafe-culture' },
  { sent: { id: 'x1', name: '日本' }, id: 'x1' },
  { sent: { id: 'Mixed_Case-9', name: 'Mixed' }, id: 'Mixed_Case-9' },
  { sent: { name: 'a' }, id: 'a' },
];

const tagsArbitrary = fc
  .uniqueArray(fc.nat(TAG_POOL.length - 1), { maxLength: 3, selector: (i) => TAG_POOL[i]?.id })
  .map((indexes) => indexes.map((i) => TAG_POOL[i] as (typeof TAG_POOL)[number]));

/** A title the API must keep exactly: 1 to 256 UTF-16 units, not only white space, anything Unicode has. */
const titleArbitrary = fc
  .oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('Modern Astronomy', 'Ünïcödé ☃', '日本の雑誌', '😀', 'A & B <c> "d"', 'x'),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ minLength: 250, maxLength: 256 }) },
  )
  .filter((title) => title.trim().length > 0 && title.length <= 256);

/** Instants that share a second, a year's last and first second, and any other moment. */
const createdArbitrary = fc.option(
  fc.oneof(
    fc.constantFrom(1_600_000_000, 1_640_995_199, 1_640_995_200, 1_700_000_000, 0),
    fc.integer({ min: 946_684_800, max: 1_767_225_600 }),
  ),
  { nil: undefined },
);

const articleArbitrary: fc.Arbitrary<ArticleBody> = fc.record({
  title: titleArbitrary,
  author_first_name: fc.constantFrom('Ada', 'Émile', '李'),
  author_last_name: fc.constantFrom('Lovelace', 'Zola', 'O’Brien'),
  author_email: fc.constantFrom('ada@example.com', 'e.zola+news@example.org'),
  date: fc.constantFrom('2024-02-29', '1999-12-31', '2000-01-01'),
  text: fc.oneof(
    fc.constant('Comets are icy bodies.'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }).filter((t) => t.trim().length > 0),
  ),
});

/** Which magazine a command is about, resolved against the model when it runs. */
interface IdPick {
  readonly kind: 'existing' | 'new' | 'gone';
  readonly n: number;
}

const idPick: fc.Arbitrary<IdPick> = fc.record({
  kind: fc.constantFrom<IdPick['kind']>('existing', 'existing', 'existing', 'new', 'new', 'gone'),
  n: fc.nat(40),
});

const NEW_IDS = ['m1', 'm2', 'M3', '0', 'z-9', 'a_b', 'm10', 'm2x', 'longer-id-of-a-magazine', 'x'.repeat(64)];

const pickId = (model: ApiModel, pick: IdPick): string => {
  const existing = [...model.magazines.keys()].sort();
  const gone = [...model.goneMagazines].sort();
  if (pick.kind === 'existing' && existing.length > 0) return existing[pick.n % existing.length] as string;
  if (pick.kind === 'gone' && gone.length > 0) return gone[pick.n % gone.length] as string;
  return NEW_IDS[pick.n % NEW_IDS.length] as string;
};

interface KeyPick {
  /** Send again a request made earlier with a key (its body exactly, or this command's body). */
  readonly reuse: boolean;
  readonly n: number;
  readonly sameBody: boolean;
}

const keyPick = fc.option(fc.record({ reuse: fc.boolean(), n: fc.nat(20), sameBody: fc.boolean() }), {
  nil: undefined,
});

type IfMatchPick = 'none' | 'current' | 'stale' | 'star' | 'bogus';
const ifMatchPick = fc.constantFrom<IfMatchPick>('none', 'none', 'current', 'stale', 'star', 'bogus');

/** What a step reads back, besides what every step reads. */
export interface Look {
  readonly sort: 'asc' | 'desc';
  readonly offset: number;
  readonly limit: number;
  readonly format: 'json' | 'xml-label' | 'xml-format' | 'xml-accept';
  readonly prefix: '' | '/v1' | '/api/v1';
  readonly pick: number;
  readonly walk: boolean;
}

const lookArbitrary: fc.Arbitrary<Look> = fc.record({
  sort: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
  offset: fc.nat(8),
  limit: fc.integer({ min: 1, max: 4 }),
  format: fc.constantFrom<Look['format']>('json', 'json', 'xml-label', 'xml-format', 'xml-accept'),
  prefix: fc.constantFrom<Look['prefix']>('', '/v1', '/api/v1'),
  pick: fc.nat(100),
  walk: fc.boolean(),
});

// ---------------------------------------------------------------------------------------------
// Faults

export interface FaultPlan {
  readonly kind: 'throttle' | 'internal' | 'unavailable' | 'lostReply' | 'lostReplyDrop' | 'unprocessed' | 'timeout';
  /** Which DynamoDB operations it hits. */
  readonly on: 'any' | 'writes' | 'TransactWriteItems' | 'UpdateItem' | 'BatchWriteItem' | 'GetItem' | 'reads';
  /** Calls let through first. */
  readonly after: number;
  /** How many times it fires (Infinity: for the rest of the command). */
  readonly times: number;
}

const WRITE_OPERATIONS = ['TransactWriteItems', 'UpdateItem', 'PutItem', 'DeleteItem', 'BatchWriteItem'];
const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query'];

export const faultPlanArbitrary: fc.Arbitrary<FaultPlan | undefined> = fc.option(
  fc.record({
    kind: fc.oneof(
      {
        weight: 10,
        arbitrary: fc.constantFrom<FaultPlan['kind']>(
          'throttle',
          'internal',
          'unavailable',
          'lostReply',
          'lostReplyDrop',
          'unprocessed',
        ),
      },
      { weight: 1, arbitrary: fc.constant<FaultPlan['kind']>('timeout') },
    ),
    on: fc.constantFrom<FaultPlan['on']>(
      'any',
      'writes',
      'TransactWriteItems',
      'TransactWriteItems',
      'UpdateItem',
      'BatchWriteItem',
      'GetItem',
      'reads',
    ),
    after: fc.nat(6),
    times: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) },
      { weight: 1, arbitrary: fc.constant(Infinity) },
    ),
  }),
  { freq: 4, nil: undefined },
);

const faultOf = (plan: FaultPlan): Fault => {
  switch (plan.kind) {
    case 'lostReply':
      return { kind: 'lostReply', reply: 'internal' };
    case 'lostReplyDrop':
      return { kind: 'lostReply', reply: 'drop' };
    default:
      return { kind: plan.kind };
  }
};

const operationsOf = (plan: FaultPlan): readonly string[] | undefined => {
  if (plan.on === 'any') return undefined;
  if (plan.on === 'writes') return WRITE_OPERATIONS;
  if (plan.on === 'reads') return READ_OPERATIONS;
  return [plan.on];
};

const describePlan = (plan: FaultPlan | undefined) =>
  plan ? `${plan.kind} on ${plan.on} after ${plan.after} ×${plan.times === Infinity ? '∞' : plan.times}` : 'no fault';

// ---------------------------------------------------------------------------------------------
// The harness: one API, the model, and the figures of the run

export interface Harness {
  readonly baseUrl: string;
  readonly tableName: string;
  model: ApiModel;
  readonly figures: Figures;
  /** First pass (counting) or shrinking. */
  readonly counting: boolean;
  readonly faults?: FaultProxy;
  /** Makes this run's idempotency keys its own (keys outlive a run's reset). */
  readonly nonce: string;
  /** What happened so far in this sequence, for the counterexample. */
  readonly log: string[];
  /** Every body sent in this sequence: what the API shows of them back is no leak. */
  readonly sentBodies: string[];
  keyCounter: number;
}

const ACCEPT = 'application/json, text/javascript';

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly headers?: readonly (readonly [string, string])[];
}

const fail = (harness: Harness, kinds: ViolationKind[], message: string): never => {
  throw new Violation(kinds, `${message}\n\nSteps so far:\n${harness.log.slice(-40).join('\n')}`);
};

const describe = (response: WireResponse) =>
  `${response.request.method} ${response.request.path}${response.request.body ? ` ${response.request.body.toString().slice(0, 300)}` : ''} → ${response.status} ${response.text.slice(0, 400)}`;

/**
 * Sends one request and applies the rules every response keeps: no 5xx but a 503 with
 * `Retry-After`, no internal name, the error object for every error, in the published document.
 */
const send = async (harness: Harness, sent: Sent): Promise<WireResponse> => {
  const headers: [string, string][] = [['Accept', ACCEPT]];
  for (const [name, value] of sent.headers ?? []) {
    const at = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
    if (at >= 0) headers.splice(at, 1);
    headers.push([name, value]);
  }
  if (sent.body !== undefined) headers.push(['Content-Type', 'application/json']);
  const response = await sendWire(
    harness.baseUrl,
    { method: sent.method, path: sent.path, headers, ...(sent.body !== undefined && { body: sent.body }) },
    harness.counting ? harness.figures : undefined,
  );
  const problems: { kind: ViolationKind; what: string }[] = [];
  if (response.status >= 500 && response.status !== 503)
    problems.push({ kind: 'server error', what: `answered ${response.status}` });
  if (response.status === 503 && !/^[1-9]\d*$/.test(response.headers['retry-after'] ?? ''))
    problems.push({ kind: 'fault handling', what: `a 503 without a Retry-After of whole seconds` });
  if (sent.body !== undefined) harness.sentBodies.push(sent.body);
  const leaks = leaksOf(response, harness.tableName, harness.sentBodies.join('\n'));
  if (leaks.length > 0) problems.push({ kind: 'leak', what: `shows ${leaks.join(', ')}` });
  if (response.status >= 400) {
    const format = response.headers['content-type'] === XML_TYPE ? 'xml' : 'json';
    for (const what of errorObjectProblems(response, harness.baseUrl, format))
      problems.push({ kind: 'error object', what });
  }
  try {
    expectMatchesContract({
      method: sent.method,
      path: sent.path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    });
  } catch (error) {
    problems.push({ kind: 'document', what: (error as Error).message.split('\n').slice(1, 4).join(' ') });
  }
  if (problems.length > 0) {
    fail(
      harness,
      [...new Set(problems.map((p) => p.kind))],
      `${describe(response)}\n- ${problems.map((p) => `${p.kind}: ${p.what}`).join('\n- ')}`,
    );
  }
  return response;
};

/** The body as a value: JSON parsed, XML converted by the published schema (well-formedness checked there). */
const bodyValue = (response: WireResponse): unknown => {
  if (response.headers['content-type'] === XML_TYPE) {
    return expectMatchesContract({
      method: response.request.method,
      path: response.request.path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    }).value;
  }
  return JSON.parse(response.text);
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const expectView = (harness: Harness, response: WireResponse, expected: unknown, what: string) => {
  if (response.status !== 200) fail(harness, ['model'], `${what}: expected 200, got\n${describe(response)}`);
  const actual = bodyValue(response);
  if (!same(actual, expected)) {
    fail(
      harness,
      ['model'],
      `${what}: the API shows something else than the model predicts.\nRequest: ${response.request.method} ${response.request.path}\nExpected: ${JSON.stringify(expected).slice(0, 1500)}\nActual:   ${JSON.stringify(actual).slice(0, 1500)}`,
    );
  }
};

const expectError = (harness: Harness, response: WireResponse, status: number, code: string, what: string) => {
  if (response.status !== status)
    fail(harness, ['model'], `${what}: expected ${status} (${code}), got\n${describe(response)}`);
  const error = bodyValue(response) as { errorCode?: unknown };
  if (String(error.errorCode) !== code)
    fail(harness, ['model'], `${what}: expected error ${code}, got\n${describe(response)}`);
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------------------------
// Reading the API back, and comparing it with the model

const enc = encodeURIComponent;

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
const learnCreated = async (harness: Harness) => {
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

// ---------------------------------------------------------------------------------------------
// Commands

type Outcome =
  /** The answer the model predicts, and what to change in it. */
  | {
      readonly kind: 'expect';
      readonly check: (response: WireResponse) => void;
      readonly apply?: (response: WireResponse) => void;
    }
  | { readonly kind: 'none' };

/** What a write may leave behind when its answer did not say (a 503): the model as it was, or as the write makes it. */
interface WriteSpec {
  readonly describe: string;
  readonly sent: Sent;
  /** The answer the model predicts when the write goes through (or is refused), and its effect. */
  readonly predict: () => Outcome;
  /** Whether sending it again finishes it (bulk writes, POSTs with a key). */
  readonly resendable: boolean;
  /** The write's effect on `harness.model`, where it can be known without its answer. */
  readonly effect?: () => void;
  /**
   * How to tell, once healed, whether a write answered with 503 took effect: `applied` (the
   * probe completes `after` with what only the API knew, such as a new id) or `untouched`.
   */
  readonly probe?: (harness: Harness, before: ApiModel, after: ApiModel) => Promise<'applied' | 'untouched'>;
  /** Before a bulk write is sent again: readers see the old collection whole, or the new one. */
  readonly between?: (harness: Harness) => Promise<void>;
}

const MAX_RESENDS = 6;

/** The calls that met a fault after a lost reply: then the API could not have learnt its write was done. */
const detectionImpaired = (calls: readonly RecordedCall[]) => {
  const lost = calls.findIndex((c) => c.outcome === 'lostReply');
  if (calls.some((c) => c.outcome === 'timeout')) return true;
  return lost >= 0 && calls.slice(lost + 1).some((c) => c.outcome !== 'passed');
};

/**
 * Carries out one write: injects the step's fault, sends, clears the faults, then holds the
 * answer against the model. A 503 is followed, faults cleared, by the check that nothing
 * happened (or, for bulk writes and keyed POSTs, by sending the same request again until it is
 * done, which must then show exactly one effect).
 */
const carryOut = async (harness: Harness, spec: WriteSpec, plan: FaultPlan | undefined) => {
  const { faults } = harness;
  harness.log.push(`${spec.describe}${faults ? ` [${describePlan(plan)}]` : ''}`);
  faults?.resetCalls();
  if (faults && plan) {
    faults.inject({
      fault: faultOf(plan),
      after: plan.after,
      ...(plan.times !== Infinity && { times: plan.times }),
      ...(operationsOf(plan) && { operations: operationsOf(plan) }),
    });
  }
  let response: WireResponse;
  try {
    response = await send(harness, spec.sent);
  } finally {
    faults?.clearFaults();
  }
  const calls = faults?.takeCalls() ?? [];
  harness.log.push(`  → ${response.status}${response.status >= 400 ? ` ${response.text.slice(0, 160)}` : ''}`);
  if (response.status !== 503) {
    const outcome = spec.predict();
    if (outcome.kind === 'expect') {
      outcome.check(response);
      outcome.apply?.(response);
    }
    return;
  }
  // A 503: once healed, the write left nothing behind, or is finished by sending it again.
  if (spec.resendable) {
    await spec.between?.(harness);
    for (let attempt = 1; ; attempt++) {
      if (attempt > MAX_RESENDS)
        fail(harness, ['fault handling'], `${spec.describe}: still 503 after ${MAX_RESENDS} resends with no faults`);
      const again = await send(harness, spec.sent);
      harness.log.push(`  sent again → ${again.status}${again.status >= 400 ? ` ${again.text.slice(0, 160)}` : ''}`);
      if (again.status === 503 || again.status === 409) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(again.headers['retry-after'] ?? 1)));
        continue;
      }
      const outcome = spec.predict();
      if (outcome.kind === 'expect') {
        outcome.check(again);
        outcome.apply?.(again);
      }
      return;
    }
  }
  if (!spec.probe) return;
  const before = harness.model.clone();
  const after = harness.model.clone();
  // The effect the write would have had, on a copy.
  if (spec.effect) {
    const model = harness.model;
    harness.model = after;
    try {
      spec.effect();
    } finally {
      harness.model = model;
    }
  }
  const found = await spec.probe(harness, before, after);
  if (found === 'applied') {
    if (!detectionImpaired(calls))
      fail(
        harness,
        ['fault handling'],
        `${spec.describe}: answered 503, yet it was carried out, though nothing kept the API from learning it was (${calls.map((c) => `${c.operation}:${c.outcome}`).join(', ')})`,
      );
    harness.model = after;
    harness.log.push('  (it was carried out: its reply was lost where the API could not check)');
  } else {
    harness.model = before;
  }
};

/** A title told apart by its number, still within the 256 characters a title may have (cut between code points). */
const numbered = (title: string, index: number) => {
  const suffix = ` #${index}`;
  const points = Array.from(title);
  while (points.join('').length + suffix.length > 256) points.pop();
  return `${points.join('')}${suffix}`;
};

const bodyOfMagazine = (fields: {
  id?: string;
  title: string;
  tags: readonly (typeof TAG_POOL)[number][];
  created?: number;
  type?: boolean;
}) =>
  JSON.stringify({
    ...(fields.id !== undefined && { id: fields.id }),
    ...(fields.type && { type: 'magazine' }),
    title: fields.title,
    tags: fields.tags.map((t) => t.sent),
    ...(fields.created !== undefined && { created: fields.created }),
  });

/**
 * `created` as a PUT leaves it in the model: the one sent, else the replaced magazine's, else a
 * time within the request.
 */
const createdAfterPut = (
  sent: number | undefined,
  previous: { readonly created?: unknown } | undefined,
  started: number,
) =>
  sent !== undefined
    ? { created: sent }
    : previous
      ? { created: previous.created as number }
      : { createdWithin: [started, nowSeconds()] as const };

const tagRefs = (tags: readonly (typeof TAG_POOL)[number][]): TagRef[] =>
  tags.map((t) => ({ id: t.id, name: t.sent.name }));

const fingerprint = (method: string, path: string, body: string) =>
  createHash('sha256').update(`${method} ${path}\n${body}`).digest('base64url');

/** The key a POST carries: a new one of this run, or one sent before (with its request or another). */
const chooseKey = (harness: Harness, operation: string, pick: KeyPick | undefined, path: string, body: string) => {
  if (!pick) return { key: undefined, path, body };
  const earlier = harness.model.keyLog.filter((entry) => entry.operation === operation);
  if (pick.reuse && earlier.length > 0) {
    const entry = earlier[pick.n % earlier.length] as (typeof earlier)[number];
    return pick.sameBody ? { key: entry.key, path: entry.path, body: entry.body } : { key: entry.key, path, body };
  }
  harness.keyCounter += 1;
  return { key: `${harness.nonce}-${harness.keyCounter} ✓`.replace(/[^\x20-\x7e]/g, '*'), path, body };
};

const expectCreated = (
  harness: Harness,
  response: WireResponse,
  id: string | undefined,
  location: (id: string) => string,
  what: string,
) => {
  if (response.status !== 201) fail(harness, ['model'], `${what}: expected 201, got\n${describe(response)}`);
  const body = JSON.parse(response.text) as { id?: unknown };
  if (typeof body.id !== 'string' || (id !== undefined && body.id !== id))
    fail(harness, ['model'], `${what}: expected {"id": ${id ?? 'a new id'}}, got\n${describe(response)}`);
  if (response.headers.location !== location(String(body.id)))
    fail(harness, ['model'], `${what}: Location ${response.headers.location}, expected ${location(String(body.id))}`);
  return String(body.id);
};

/** POST /magazines and POST /magazines/{id}/articles with a key: the model's answer for a key seen before. */
const keyedOutcome = (
  harness: Harness,
  operation: string,
  key: string | undefined,
  path: string,
  body: string,
): Outcome | undefined => {
  if (key === undefined) return undefined;
  const record = harness.model.keys.get(`${operation}\n${key}`);
  if (!record) return undefined;
  if (record.fingerprint !== fingerprint('POST', path, body))
    return {
      kind: 'expect',
      check: (r) => expectError(harness, r, 422, '42201', `${operation} with a key used for another request`),
    };
  return {
    kind: 'expect',
    check: (r) => {
      if (r.status !== record.status || JSON.parse(r.text).id !== record.id || r.headers.location !== record.location)
        fail(
          harness,
          ['model'],
          `a replay of ${operation} must give the first answer (${record.status} ${record.id} ${record.location}), got\n${describe(r)}`,
        );
    },
  };
};

const remember = (
  harness: Harness,
  operation: string,
  key: string | undefined,
  path: string,
  body: string,
  response: WireResponse,
) => {
  if (key === undefined) return;
  harness.model.keyLog.push({ operation, key, path, body });
  if (response.status === 201)
    harness.model.keys.set(`${operation}\n${key}`, {
      fingerprint: fingerprint('POST', path, body),
      status: 201,
      id: String(JSON.parse(response.text).id),
      location: String(response.headers.location),
    });
};

/** Whether a magazine is there as the model after the write has it, or as before: by reading it. */
const probeMagazine =
  (id: string | undefined, title?: string, tags?: readonly TagRef[], started?: number) =>
  async (harness: Harness, before: ApiModel, after: ApiModel): Promise<'applied' | 'untouched'> => {
    await learnCreatedOf(harness, before);
    if (id === undefined) {
      // A create without an id: a new id in the list is the write.
      const list = await send(harness, { method: 'GET', path: '/magazines?limit=100' });
      const shown = (JSON.parse(list.text) as { results: { id: string; title: string; created: string }[] }).results;
      const added = shown.filter((m) => !before.magazines.has(m.id));
      if (added.length === 0) return 'untouched';
      const [made] = added;
      if (added.length > 1 || made?.title !== title)
        fail(
          harness,
          ['fault handling'],
          `a create without id answered 503, and then the list has ${JSON.stringify(added)}`,
        );
      after.put({
        id: made?.id ?? '',
        title: title ?? '',
        tags: tags ?? [],
        createdWithin: [started ?? 0, nowSeconds()],
        articles: [],
      });
      return 'applied';
    }
    const response = await send(harness, { method: 'GET', path: `/magazines/${enc(id ?? '')}` });
    const shown =
      response.status === 200
        ? (JSON.parse(response.text) as { title: string; tags: { id: string; name: string }[]; created: string })
        : undefined;
    const matches = (model: ApiModel) => {
      const magazine = model.magazines.get(id ?? '');
      if (!magazine || !shown) return !magazine && !shown;
      return (
        magazine.title === shown.title &&
        same(
          magazine.tags,
          shown.tags.map((t) => ({ id: t.id, name: t.name })),
        ) &&
        (magazine.created === undefined || String(magazine.created) === shown.created)
      );
    };
    if (matches(before)) return 'untouched';
    if (matches(after)) return 'applied';
    return fail(
      harness,
      ['fault handling'],
      `after a 503 and with faults cleared, magazine ${id} is neither as before nor as after the write:\n${describe(response)}`,
    );
  };

const learnCreatedOf = async (harness: Harness, model: ApiModel) => {
  const current = harness.model;
  harness.model = model;
  try {
    await learnCreated(harness);
  } finally {
    harness.model = current;
  }
};

/** Whether an article was added after all: by the count of its magazine's articles (the new one joins the model if so). */
const probeArticles =
  (magazineId: string, body: string, started: number) =>
  async (harness: Harness, before: ApiModel, after: ApiModel): Promise<'applied' | 'untouched'> => {
    const response = await send(harness, { method: 'GET', path: `/magazines/${enc(magazineId)}/articles?limit=100` });
    const shown = response.status === 200 ? (JSON.parse(response.text) as { results: { id: string }[] }).results : [];
    const had = before.magazines.get(magazineId)?.articles ?? [];
    if (shown.length === had.length) return 'untouched';
    const added = shown.filter((a) => !had.some((known) => known.id === a.id));
    const magazine = after.magazines.get(magazineId);
    if (added.length !== 1 || !magazine)
      return fail(
        harness,
        ['fault handling'],
        `magazine ${magazineId} has ${shown.length} articles after a 503, the model ${had.length}`,
      );
    magazine.articles.push({
      id: added[0]?.id ?? '',
      body: JSON.parse(body) as ArticleBody,
      createdWithin: [started, nowSeconds()],
    });
    return 'applied';
  };

export abstract class Step implements fc.AsyncCommand<ApiModel, Harness> {
  constructor(
    readonly look: Look,
    readonly plan: FaultPlan | undefined,
  ) {}
  check = () => true;
  abstract act(harness: Harness): Promise<void>;
  async run(_model: ApiModel, harness: Harness) {
    if (harness.counting) harness.figures.cases += 1;
    await this.act(harness);
    await checkViews(harness, this.look);
  }
  abstract describe(): string;
  toString() {
    return `${this.describe()}${this.plan ? ` [${describePlan(this.plan)}]` : ''}`;
  }
}

class CreateMagazine extends Step {
  constructor(
    readonly id: IdPick | undefined,
    readonly title: string,
    readonly tags: readonly (typeof TAG_POOL)[number][],
    readonly created: number | undefined,
    readonly key: KeyPick | undefined,
    readonly prefix: Look['prefix'],
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `POST ${this.prefix}/magazines ${JSON.stringify({ id: this.id, title: this.title, tags: this.tags.map((t) => t.sent), created: this.created, key: this.key })}`;
  }
  async act(harness: Harness) {
    const id = this.id === undefined ? undefined : pickId(harness.model, this.id);
    const fresh = bodyOfMagazine({
      ...(id !== undefined && { id }),
      title: this.title,
      tags: this.tags,
      ...(this.created !== undefined && { created: this.created }),
    });
    const { key, body } = chooseKey(harness, 'createMagazine', this.key, '/magazines', fresh);
    const sentBody = body;
    const parsed = JSON.parse(sentBody) as {
      id?: string;
      title: string;
      tags: { id?: string; name: string }[];
      created?: number;
    };
    const bodyId = parsed.id;
    const bodyTags = parsed.tags.map((sent) => TAG_POOL.find((t) => same(t.sent, sent)) as (typeof TAG_POOL)[number]);
    const started = nowSeconds();
    const sent: Sent = {
      method: 'POST',
      path: `${this.prefix}/magazines`,
      body: sentBody,
      ...(key !== undefined && { headers: [['Idempotency-Key', key]] }),
    };
    const location = (made: string) => `${harness.baseUrl}/v1/magazines/${made}`;
    await carryOut(
      harness,
      {
        describe: `POST ${sent.path} ${sentBody}${key ? ` (key ${key})` : ''}`,
        sent,
        resendable: key !== undefined,
        predict: () =>
          keyedOutcome(harness, 'createMagazine', key, '/magazines', sentBody) ??
          (bodyId !== undefined && harness.model.magazines.has(bodyId)
            ? {
                kind: 'expect',
                check: (r) => {
                  expectError(harness, r, 405, '40502', `POST of an id that exists`);
                  if (key !== undefined)
                    harness.model.keyLog.push({ operation: 'createMagazine', key, path: '/magazines', body: sentBody });
                },
              }
            : {
                kind: 'expect',
                check: (r) => {
                  expectCreated(harness, r, bodyId, location, 'POST /magazines');
                },
                apply: (r) => {
                  const made = String(JSON.parse(r.text).id);
                  harness.model.put({
                    id: made,
                    title: parsed.title,
                    tags: tagRefs(bodyTags),
                    ...(parsed.created !== undefined
                      ? { created: parsed.created }
                      : { createdWithin: [started, nowSeconds()] }),
                    articles: [],
                  });
                  remember(harness, 'createMagazine', key, '/magazines', sentBody, r);
                },
              }),
        effect: () => {
          if (bodyId === undefined || harness.model.magazines.has(bodyId)) return;
          harness.model.put({
            id: bodyId,
            title: parsed.title,
            tags: tagRefs(bodyTags),
            ...(parsed.created !== undefined
              ? { created: parsed.created }
              : { createdWithin: [started, nowSeconds()] }),
            articles: [],
          });
        },
        probe: probeMagazine(bodyId, parsed.title, tagRefs(bodyTags), started),
      },
      this.plan,
    );
  }
}

const ifMatchHeader = async (
  harness: Harness,
  id: string | undefined,
  pick: IfMatchPick,
): Promise<string | undefined> => {
  if (pick === 'none') return undefined;
  if (pick === 'star') return '*';
  if (pick === 'bogus') return '"nope-json"';
  const seen = id === undefined ? harness.model.collectionEtag : harness.model.etags.get(id);
  if (pick === 'stale') return seen?.stale.at(-1) ?? '"stale-json"';
  if (seen?.current) return seen.current;
  // Read it as a client would before a conditional write.
  const response = await send(harness, {
    method: 'GET',
    path: id === undefined ? '/magazines?limit=1' : `/magazines/${enc(id)}`,
  });
  const etag = response.status === 200 ? response.headers.etag : undefined;
  if (etag === undefined) return undefined;
  const model =
    id === undefined
      ? harness.model.collectionEtag
      : (harness.model.etags.get(id) ?? harness.model.etags.set(id, { stale: [] }).get(id));
  if (model?.stale.includes(etag))
    fail(harness, ['model'], `the ETag of ${id ?? 'the collection'} (${etag}) is one it had before a change`);
  if (model) model.current = etag;
  return etag;
};

/** Whether an If-Match sent holds for the model: `*` for anything there, or the current ETag. */
const holds = (harness: Harness, id: string | undefined, header: string | undefined, exists: boolean) => {
  if (header === undefined) return true;
  if (!exists) return false;
  if (header === '*') return true;
  const seen = id === undefined ? harness.model.collectionEtag : harness.model.etags.get(id);
  return seen?.current !== undefined && header === seen.current;
};

class ReplaceMagazine extends Step {
  constructor(
    readonly id: IdPick,
    readonly title: string,
    readonly tags: readonly (typeof TAG_POOL)[number][],
    readonly created: number | undefined,
    readonly includeId: boolean,
    readonly ifMatch: IfMatchPick,
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `PUT /magazines/{${this.id.kind} ${this.id.n}} ${JSON.stringify({ title: this.title, tags: this.tags.map((t) => t.sent), created: this.created, includeId: this.includeId, ifMatch: this.ifMatch })}`;
  }
  async act(harness: Harness) {
    const id = pickId(harness.model, this.id);
    const header = await ifMatchHeader(harness, id, this.ifMatch);
    const body = bodyOfMagazine({
      ...(this.includeId && { id }),
      title: this.title,
      tags: this.tags,
      ...(this.created !== undefined && { created: this.created }),
      type: this.includeId,
    });
    const started = nowSeconds();
    /** The magazine as this PUT leaves it: `created` kept from the one it replaces unless the body gives one. */
    const putInModel = (previous: ReturnType<typeof harness.model.magazines.get>) =>
      harness.model.put({
        id,
        title: this.title,
        tags: tagRefs(this.tags),
        ...createdAfterPut(this.created, previous, started),
        articles: previous?.articles ?? [],
      });
    const sent: Sent = {
      method: 'PUT',
      path: `/magazines/${enc(id)}`,
      body,
      ...(header !== undefined && { headers: [['If-Match', header]] }),
    };
    await carryOut(
      harness,
      {
        describe: `PUT ${sent.path} ${body}${header ? ` (If-Match ${header})` : ''}`,
        sent,
        resendable: false,
        predict: () => {
          const previous = harness.model.magazines.get(id);
          if (!holds(harness, id, header, previous !== undefined))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 412, '41201', 'PUT with an If-Match that does not hold'),
            };
          return {
            kind: 'expect',
            check: (r) => {
              if (previous) {
                if (r.status !== 200 || !same(JSON.parse(r.text), { id }))
                  fail(harness, ['model'], `PUT of an existing magazine: expected 200 {"id"}, got\n${describe(r)}`);
              } else
                expectCreated(
                  harness,
                  r,
                  id,
                  (made) => `${harness.baseUrl}/v1/magazines/${made}`,
                  'PUT of a new magazine',
                );
            },
            apply: () => putInModel(previous),
          };
        },
        effect: () => {
          const previous = harness.model.magazines.get(id);
          if (holds(harness, id, header, previous !== undefined)) putInModel(previous);
        },
        probe: probeMagazine(id),
      },
      this.plan,
    );
  }
}

class DeleteMagazine extends Step {
  constructor(
    readonly id: IdPick,
    readonly ifMatch: IfMatchPick,
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `DELETE /magazines/{${this.id.kind} ${this.id.n}} (If-Match ${this.ifMatch})`;
  }
  async act(harness: Harness) {
    const id = pickId(harness.model, this.id);
    const header = await ifMatchHeader(harness, id, this.ifMatch);
    const sent: Sent = {
      method: 'DELETE',
      path: `/magazines/${enc(id)}`,
      ...(header !== undefined && { headers: [['If-Match', header]] }),
    };
    await carryOut(
      harness,
      {
        describe: `DELETE ${sent.path}${header ? ` (If-Match ${header})` : ''}`,
        sent,
        resendable: false,
        predict: () => {
          if (!harness.model.magazines.has(id))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 404, '40402', 'DELETE of a magazine that is not there'),
            };
          if (!holds(harness, id, header, true))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 412, '41201', 'DELETE with an If-Match that does not hold'),
            };
          return {
            kind: 'expect',
            check: (r) => {
              if (r.status !== 200 || !same(JSON.parse(r.text), { id }))
                fail(harness, ['model'], `DELETE: expected 200 {"id"}, got\n${describe(r)}`);
            },
            apply: () => harness.model.remove(id),
          };
        },
        effect: () => {
          if (holds(harness, id, header, harness.model.magazines.has(id))) harness.model.remove(id);
        },
        probe: probeMagazine(id),
      },
      this.plan,
    );
  }
}

interface BulkElement {
  readonly id: IdPick | undefined;
  readonly title: string;
  readonly tags: readonly (typeof TAG_POOL)[number][];
  readonly created: number | undefined;
}

/** PUT /magazines (or DELETE /magazines, with no elements). */
class ReplaceAll extends Step {
  constructor(
    readonly elements: readonly BulkElement[] | undefined,
    readonly ifMatch: 'none' | 'current' | 'stale' | 'star',
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return this.elements === undefined
      ? `DELETE /magazines (If-Match ${this.ifMatch})`
      : `PUT /magazines ${JSON.stringify(this.elements.map((e) => ({ id: e.id, title: e.title, tags: e.tags.map((t) => t.sent), created: e.created })))} (If-Match ${this.ifMatch})`;
  }
  async act(harness: Harness) {
    const header = await ifMatchHeader(harness, undefined, this.ifMatch);
    const seen = new Set<string>();
    const started = nowSeconds();
    // Elements without an id get one from the server: their titles tell them apart in the list afterwards.
    const elements = (this.elements ?? []).flatMap((element, index) => {
      const id = element.id === undefined ? undefined : pickId(harness.model, element.id);
      if (id !== undefined && seen.has(id)) return [];
      if (id !== undefined) seen.add(id);
      return [{ ...element, id, title: id === undefined ? numbered(element.title, index) : element.title }];
    });
    const body = JSON.stringify(
      elements.map((e) => ({
        ...(e.id !== undefined && { id: e.id }),
        title: e.title,
        tags: e.tags.map((t) => t.sent),
        ...(e.created !== undefined && { created: e.created }),
      })),
    );
    const sent: Sent =
      this.elements === undefined
        ? { method: 'DELETE', path: '/magazines', ...(header !== undefined && { headers: [['If-Match', header]] }) }
        : { method: 'PUT', path: '/magazines', body, ...(header !== undefined && { headers: [['If-Match', header]] }) };
    const apply = async () => {
      const next: ModelMagazine[] = [];
      const unnamed = elements.filter((e) => e.id === undefined);
      let made: { id: string; title: string }[] = [];
      if (unnamed.length > 0) {
        const list = await send(harness, { method: 'GET', path: '/magazines?limit=100' });
        made = (JSON.parse(list.text) as { results: { id: string; title: string }[] }).results.filter(
          (m) => !seen.has(m.id),
        );
      }
      for (const e of elements) {
        const id = e.id ?? made.find((m) => m.title === e.title)?.id;
        if (id === undefined)
          fail(harness, ['model'], `PUT /magazines: the element "${e.title}" sent without id is not in the list`);
        const previous = harness.model.magazines.get(id as string);
        next.push({
          id: id as string,
          title: e.title,
          tags: tagRefs(e.tags),
          ...createdAfterPut(e.created, previous, started),
          articles: [],
        });
      }
      harness.model.replaceAll(next);
    };
    let applied: Promise<void> | undefined;
    await carryOut(
      harness,
      {
        describe: `${sent.method} /magazines ${sent.body ?? ''}${header ? ` (If-Match ${header})` : ''}`,
        sent,
        resendable: true,
        between: async () => {
          // Cut short: readers see the old collection whole, or (the switch made) the new one.
          const list = await send(harness, { method: 'GET', path: '/magazines?limit=100' });
          const shown = (JSON.parse(list.text) as { results: { id: string; title: string }[] }).results;
          const old = harness.model
            .ordered()
            .map((m) => `${m.id} ${m.title}`)
            .sort();
          const now = shown.map((m) => `${m.id} ${m.title}`).sort();
          const planned = elements.map((e) => e.title).sort();
          if (same(now, old)) {
            await checkViews(harness, this.look);
            harness.log.push('  (readers see the old collection whole)');
          } else if (
            same(shown.map((m) => m.title).sort(), planned) &&
            elements.every((e) => e.id === undefined || shown.some((m) => m.id === e.id))
          ) {
            harness.log.push('  (readers see the new collection whole)');
          } else {
            fail(
              harness,
              ['fault handling'],
              `a bulk write cut short (503) left readers a mix:\n${JSON.stringify(shown).slice(0, 1500)}\nold: ${JSON.stringify(old)}\nnew: ${JSON.stringify(planned)}`,
            );
          }
        },
        predict: () => {
          if (!holds(harness, undefined, header, true))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 412, '41201', 'a bulk write with an If-Match that does not hold'),
            };
          return {
            kind: 'expect',
            check: (r) => {
              if (r.status !== 200 || !same(JSON.parse(r.text), { id: 'magazines' }))
                fail(
                  harness,
                  ['model'],
                  `${sent.method} /magazines: expected 200 {"id":"magazines"}, got\n${describe(r)}`,
                );
            },
            apply: () => {
              applied = apply();
            },
          };
        },
      },
      this.plan,
    );
    await applied;
  }
}

class AddArticle extends Step {
  constructor(
    readonly magazine: IdPick,
    readonly body: ArticleBody,
    readonly key: KeyPick | undefined,
    readonly label: boolean,
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `POST /magazines/{${this.magazine.kind} ${this.magazine.n}}/articles${this.label ? '.json' : ''} ${JSON.stringify({ title: this.body.title, key: this.key })}`;
  }
  async act(harness: Harness) {
    const id = pickId(harness.model, this.magazine);
    const path = `/magazines/${enc(id)}/articles`;
    const { key, path: keyPath, body } = chooseKey(harness, 'createArticle', this.key, path, JSON.stringify(this.body));
    // A replay goes to the path of the request it repeats.
    const target = keyPath;
    const magazineId = decodeURIComponent(target.split('/')[2] ?? '');
    const started = nowSeconds();
    const sent: Sent = {
      method: 'POST',
      path: `${target}${this.label ? '.json' : ''}`,
      body,
      ...(key !== undefined && { headers: [['Idempotency-Key', key]] }),
    };
    await carryOut(
      harness,
      {
        describe: `POST ${sent.path} ${body.slice(0, 80)}…${key ? ` (key ${key})` : ''}`,
        sent,
        resendable: key !== undefined,
        predict: () =>
          keyedOutcome(harness, 'createArticle', key, target, body) ??
          (harness.model.magazines.has(magazineId)
            ? {
                kind: 'expect',
                check: (r) => {
                  expectCreated(
                    harness,
                    r,
                    undefined,
                    (made) => `${harness.baseUrl}/v1/articles/${made}`,
                    'POST an article',
                  );
                },
                apply: (r) => {
                  const made = String(JSON.parse(r.text).id);
                  const magazine = harness.model.magazines.get(magazineId) as ModelMagazine;
                  const article: ModelArticle = {
                    id: made,
                    body: JSON.parse(body) as ArticleBody,
                    createdWithin: [started, nowSeconds()],
                  };
                  magazine.articles.push(article);
                  remember(harness, 'createArticle', key, target, body, r);
                },
              }
            : {
                kind: 'expect',
                check: (r) => {
                  expectError(harness, r, 404, '40402', 'an article for a magazine that is not there');
                  if (key !== undefined)
                    harness.model.keyLog.push({ operation: 'createArticle', key, path: target, body });
                },
              }),
        probe: probeArticles(magazineId, body, started),
      },
      this.plan,
    );
  }
}

/** Writes sent at once: new magazines of distinct ids, and articles to one magazine. They commute, so the model adds them all. */
class Burst extends Step {
  constructor(
    readonly creates: number,
    readonly articles: number,
    readonly magazine: IdPick,
    readonly tags: readonly (typeof TAG_POOL)[number][],
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `burst of ${this.creates} creates and ${this.articles} articles to {${this.magazine.kind} ${this.magazine.n}} with tags ${this.tags.map((t) => t.id).join(',')}`;
  }
  async act(harness: Harness) {
    const target = pickId(harness.model, this.magazine);
    const started = nowSeconds();
    harness.keyCounter += 1;
    const burstId = `${harness.nonce.slice(0, 6)}-${harness.keyCounter}`;
    const creates = Array.from({ length: this.creates }, (_, i) => ({
      id: `b${burstId}-${i}`,
      body: bodyOfMagazine({
        id: `b${burstId}-${i}`,
        title: `Burst ${i}`,
        tags: this.tags,
        created: 1_650_000_000 + i,
      }),
    }));
    const { faults, plan } = { faults: harness.faults, plan: this.plan };
    harness.log.push(`${this.describe()}${faults ? ` [${describePlan(plan)}]` : ''}`);
    faults?.resetCalls();
    if (faults && plan) {
      faults.inject({
        fault: faultOf(plan),
        after: plan.after,
        ...(plan.times !== Infinity && { times: plan.times }),
        ...(operationsOf(plan) && { operations: operationsOf(plan) }),
      });
    }
    let results: WireResponse[];
    try {
      results = await Promise.all([
        ...creates.map((c) => send(harness, { method: 'POST', path: '/magazines', body: c.body })),
        ...Array.from({ length: this.articles }, (_, i) =>
          send(harness, {
            method: 'POST',
            path: `/magazines/${enc(target)}/articles`,
            body: JSON.stringify({
              title: `Burst article ${i}`,
              author_first_name: 'A',
              author_last_name: 'B',
              author_email: 'a@b.cd',
              date: '2024-01-01',
              text: 'x',
            }),
          }),
        ),
      ]);
    } finally {
      faults?.clearFaults();
    }
    const calls = faults?.takeCalls() ?? [];
    harness.log.push(`  → ${results.map((r) => r.status).join(' ')}`);
    const impaired = detectionImpaired(calls);
    for (const [i, c] of creates.entries()) {
      const r = results[i] as WireResponse;
      if (r.status === 201) {
        expectCreated(harness, r, c.id, (made) => `${harness.baseUrl}/v1/magazines/${made}`, 'a create of a burst');
        harness.model.put({
          id: c.id,
          title: `Burst ${i}`,
          tags: tagRefs(this.tags),
          created: 1_650_000_000 + i,
          articles: [],
        });
        continue;
      }
      if (r.status !== 503) fail(harness, ['model'], `a create of a burst: expected 201 or 503, got\n${describe(r)}`);
      const found = await send(harness, { method: 'GET', path: `/magazines/${enc(c.id)}` });
      if (found.status === 200) {
        if (!impaired)
          fail(harness, ['fault handling'], `a create of a burst answered 503 yet was carried out:\n${describe(r)}`);
        harness.model.put({
          id: c.id,
          title: `Burst ${i}`,
          tags: tagRefs(this.tags),
          created: 1_650_000_000 + i,
          articles: [],
        });
      }
    }
    const articleResults = results.slice(creates.length);
    const magazine = harness.model.magazines.get(target);
    let failed = 0;
    for (const r of articleResults) {
      if (!magazine) {
        // A store failing as it is asked whether the magazine exists can only answer 503.
        if (r.status !== 503 || !harness.faults)
          expectError(harness, r, 404, '40402', 'an article of a burst for a magazine that is not there');
        continue;
      }
      if (r.status === 503) {
        failed += 1;
        continue;
      }
      const made = expectCreated(
        harness,
        r,
        undefined,
        (id) => `${harness.baseUrl}/v1/articles/${id}`,
        'an article of a burst',
      );
      const index = Number(
        JSON.parse(r.request.body?.toString() ?? '{}')
          .title.split(' ')
          .pop(),
      );
      magazine.articles.push({
        id: made,
        body: {
          title: `Burst article ${index}`,
          author_first_name: 'A',
          author_last_name: 'B',
          author_email: 'a@b.cd',
          date: '2024-01-01',
          text: 'x',
        },
        createdWithin: [started, nowSeconds()],
      });
    }
    if (magazine && articleResults.length > 0) {
      // Articles of one magazine are shown in the order they were numbered: sort the model's by the list's order.
      const response = await send(harness, { method: 'GET', path: `/magazines/${enc(target)}/articles?limit=100` });
      const shown = (JSON.parse(response.text) as { results: (ArticleBody & { id: string })[] }).results;
      const extra = shown.filter((a) => !magazine.articles.some((known) => known.id === a.id));
      if (extra.length > 0 && (failed < extra.length || !impaired))
        fail(
          harness,
          ['fault handling'],
          `articles of a burst that answered 503 were carried out: ${extra.map((a) => a.id).join(', ')}`,
        );
      const known = new Map(magazine.articles.map((a) => [a.id, a]));
      for (const a of extra) {
        const { id, title, author_first_name, author_last_name, author_email, date, text } = a;
        known.set(id, {
          id,
          body: { title, author_first_name, author_last_name, author_email, date, text },
          createdWithin: [started, nowSeconds()],
        });
      }
      const modelled = magazine.articles.length + extra.length;
      magazine.articles.splice(0);
      magazine.articles.push(...shown.flatMap((a) => (known.has(a.id) ? [known.get(a.id) as ModelArticle] : [])));
      if (magazine.articles.length !== modelled)
        fail(
          harness,
          ['model'],
          `the articles of ${target} are ${shown.map((a) => a.id).join(', ')}; the model has ${[...known.keys()].join(', ')}`,
        );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Sequences

const bulkElement: fc.Arbitrary<BulkElement> = fc.record({
  id: fc.option(idPick, { freq: 6, nil: undefined }),
  title: titleArbitrary,
  tags: tagsArbitrary,
  created: createdArbitrary,
});

export const commandsArbitrary = (faulty: boolean, maxCommands: number) => {
  const plan = faulty ? faultPlanArbitrary : fc.constant(undefined);
  const prefix = fc.constantFrom<Look['prefix']>('', '/v1', '/api/v1');
  return fc.commands(
    [
      fc
        .tuple(
          fc.option(idPick, { nil: undefined }),
          titleArbitrary,
          tagsArbitrary,
          createdArbitrary,
          keyPick,
          prefix,
          lookArbitrary,
          plan,
        )
        .map((a) => new CreateMagazine(...a)),
      fc
        .tuple(idPick, titleArbitrary, tagsArbitrary, createdArbitrary, fc.boolean(), ifMatchPick, lookArbitrary, plan)
        .map((a) => new ReplaceMagazine(...a)),
      fc.tuple(idPick, ifMatchPick, lookArbitrary, plan).map((a) => new DeleteMagazine(...a)),
      fc
        .tuple(
          fc.option(fc.array(bulkElement, { maxLength: 5 }), { freq: 4, nil: undefined }),
          fc.constantFrom<'none' | 'current' | 'stale' | 'star'>('none', 'none', 'current', 'stale', 'star'),
          lookArbitrary,
          plan,
        )
        .map((a) => new ReplaceAll(...a)),
      fc.tuple(idPick, articleArbitrary, keyPick, fc.boolean(), lookArbitrary, plan).map((a) => new AddArticle(...a)),
      fc
        .tuple(
          fc.integer({ min: 0, max: 3 }),
          fc.integer({ min: 0, max: 3 }),
          idPick,
          tagsArbitrary,
          lookArbitrary,
          plan,
        )
        .map((a) => new Burst(...a)),
    ],
    { maxCommands },
  );
};

/** Starts a run: the collection emptied (a bulk delete, itself checked), a fresh model. */
export const freshHarness = async (
  base: Omit<Harness, 'model' | 'log' | 'sentBodies' | 'keyCounter' | 'nonce'>,
  model: ApiModel,
): Promise<Harness> => {
  const harness: Harness = { ...base, model, log: [], sentBodies: [], keyCounter: 0, nonce: randomUUID() };
  for (let attempt = 0; ; attempt++) {
    const reset = await send(harness, { method: 'DELETE', path: '/magazines' });
    if (reset.status === 200) break;
    if (reset.status !== 503 || attempt > MAX_RESENDS)
      fail(harness, ['model'], `the reset of a run failed:\n${describe(reset)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(reset.headers['retry-after'] ?? 1)));
  }
  harness.log.push('DELETE /magazines (the run starts empty)');
  return harness;
};

export const FINAL_LOOK: Look = {
  sort: 'desc',
  offset: 1,
  limit: 2,
  format: 'xml-label',
  prefix: '/api/v1',
  pick: 0,
  walk: true,
};

export const lastYear = () => yearOf(nowSeconds()) - 1;
