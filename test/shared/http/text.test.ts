import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../../shared/domain/store';
import { listPaging } from '../../../shared/http/paging';
import { created, ok } from '../../../shared/http/replies';
import { findIllFormedText } from '../../../shared/http/text';
import { api } from '../../../shared/routes/api';
import { row as createMagazineRow } from '../../../shared/routes/rows/create-magazine';
import { row as getArticleRow } from '../../../shared/routes/rows/get-article';
import { row as getMagazineRow } from '../../../shared/routes/rows/get-magazine';
import { row as getTagRow } from '../../../shared/routes/rows/get-tag';
import { row as listMagazinesRow } from '../../../shared/routes/rows/list-magazines';
import { row as replaceMagazineRow } from '../../../shared/routes/rows/replace-magazine';
import { invoke } from '../../support/proxy-event';

const LONE = '\udfff';
const SURROGATE = 'holds an unpaired UTF-16 surrogate';

describe('finding text that is not Unicode in a decoded body', () => {
  it('finds the first unpaired surrogate in document order, with its path', () => {
    expect(findIllFormedText({ title: 'a', tags: [{ name: 'x' }, { id: 'b', name: `a${LONE}` }] })).toEqual({
      path: ['tags', 1, 'name'],
      inName: false,
    });
    expect(findIllFormedText([{ title: 'a' }, { title: '\ud800' }, { title: LONE }])).toEqual({
      path: [1, 'title'],
      inName: false,
    });
    expect(findIllFormedText(LONE)).toEqual({ path: [], inName: false });
  });

  it('finds a field name that is not Unicode, at the object holding it', () => {
    expect(findIllFormedText({ [`ti${LONE}tle`]: 'x' })).toEqual({ path: [], inName: true });
    expect(findIllFormedText({ tags: [{ name: 'x', [LONE]: 1 }] })).toEqual({ path: ['tags', 0], inName: true });
  });

  it('takes pairs, every plane, and values that are no text', () => {
    expect(
      findIllFormedText({ title: '\ud83d\ude00 \u{1D54F} é \u0000 \ufffd', n: 1, b: true, z: null, a: [[], {}] }),
    ).toBeUndefined();
    // Half a pair is unpaired, whichever half and wherever it stands.
    expect(findIllFormedText({ title: '\ud83d' })).toBeDefined();
    expect(findIllFormedText({ title: '\ude00\ud83d' })).toBeDefined();
  });

  it('walks a body nested as deep as JSON.parse takes without running out of stack', () => {
    const depth = 100_000;
    const deep: unknown = JSON.parse(`${'['.repeat(depth)}"\\udfff"${']'.repeat(depth)}`);
    expect(findIllFormedText(deep)?.path).toHaveLength(depth);
  });
});

/** A store whose every method fails: nothing that is refused may reach it. */
const unused = new Proxy({} as Store, {
  get: (_, name) => () => {
    throw new Error(`store.${String(name)} was called`);
  },
});
const stores = { real: () => unused, mock: unused };

const lister = api(listMagazinesRow, {
  stores,
  paging: listPaging(async () => 'test-key'),
  run: () => ok({ results: [] }, { root: 'response' }),
});
const reader = api(getMagazineRow, { stores, run: ({ params }) => ok({ id: params.id }, { root: 'magazine' }) });
const creator = api(createMagazineRow, { stores, run: ({ links }) => created('x1', links.to('/magazines/x1')) });
const replacer = api(replaceMagazineRow, { stores, run: () => ok({ id: 'x1' }, { root: 'response' }) });
const articleReader = api(getArticleRow, {
  stores,
  run: ({ params }) => ok({ id: params.articleId }, { root: 'article' }),
});
const tagReader = api(getTagRow, { stores, run: ({ params }) => ok({ id: params.tagId }, { root: 'tag' }) });

const refusal = (response: Awaited<ReturnType<typeof invoke>>) => ({
  status: response.status,
  errorCode: response.json?.errorCode,
  developerMessage: response.json?.developerMessage,
});

const refusedAs = (place: string) => ({
  status: 400,
  errorCode: '40015',
  developerMessage: `${place} ${SURROGATE} (a code unit from U+D800 to U+DFFF without its partner, such as the JSON escape \`\\udfff\` alone); it must be valid Unicode text.`,
});

describe('the middleware stack refuses text that is not Unicode, naming where it is, before any other check', () => {
  it.each([
    ['tag', lister],
    ['fields', lister],
    ['cursor', lister],
    ['sort', lister],
    ['year', lister],
    ['offset', lister],
    ['limit', lister],
    ['format', lister],
    ['mock', lister],
    ['fields', reader],
  ])('query parameter %s', async (name, handler) => {
    const response = await invoke(handler, {
      resource: '/magazines',
      params: { id: 'm1' },
      query: { [name]: `x${LONE}` },
    });
    expect(refusal(response)).toEqual(refusedAs(`Query parameter \`${name}\``));
  });

  it.each([
    ['id', reader, '/magazines/{id}'],
    ['articleId', articleReader, '/articles/{articleId}'],
    ['tagId', tagReader, '/tags/{tagId}'],
  ])('path segment {%s}', async (name, handler, resource) => {
    const response = await invoke(handler, { resource, params: { [name]: `a${LONE}` } });
    expect(refusal(response)).toEqual(refusedAs(`Path segment \`{${name}}\``));
  });

  it('the path segment of PUT /magazines/{id}, before its form is checked (which would quote it)', async () => {
    const response = await invoke(replacer, {
      method: 'PUT',
      resource: '/magazines/{id}',
      params: { id: LONE },
      headers: { 'Content-Type': 'application/json' },
      body: { title: 'T' },
    });
    expect(refusal(response)).toEqual(refusedAs('Path segment `{id}`'));
  });

  it.each([
    ['Idempotency-Key', creator, 'POST'],
    ['Content-Type', creator, 'POST'],
    ['If-Match', replacer, 'PUT'],
    ['Accept', reader, 'GET'],
    ['If-None-Match', reader, 'GET'],
  ] as const)('header %s', async (name, handler, method) => {
    const response = await invoke(handler, {
      method,
      resource: method === 'POST' ? '/magazines' : '/magazines/{id}',
      params: { id: 'm1' },
      headers: { 'Content-Type': 'application/json', [name]: `"a${LONE}"` },
      body: method === 'GET' ? undefined : { title: 'T' },
    });
    expect(refusal(response)).toEqual(refusedAs(`Header \`${name}\``));
  });

  it('a body field, through the stack, named by its path', async () => {
    const response = await invoke(creator, {
      method: 'POST',
      resource: '/magazines',
      headers: { 'Content-Type': 'application/json' },
      body: `{"title":"T","tags":[{"id":"lone","name":"\\udfff"}]}`,
    });
    expect(refusal(response)).toEqual(refusedAs('Body field `tags[0].name`'));
  });

  it('answers in the format asked for, as well-formed XML that does not quote the text', async () => {
    const labelled = await invoke(reader, { resource: '/magazines/{id}', params: { id: `a${LONE}.xml` } });
    expect(labelled.status).toBe(400);
    expect(labelled.headers['Content-Type']).toBe('application/xml; charset=utf-8');
    expect(XMLValidator.validate(labelled.body)).toBe(true);
    expect(labelled.body).toContain('<errorCode>40015</errorCode>');
    expect(labelled.body.isWellFormed()).toBe(true);
    // A `format` that is not Unicode names no format: the refusal names it, in the format `Accept` asks for.
    const byAccept = await invoke(lister, {
      resource: '/magazines',
      query: { format: LONE },
      headers: { Accept: 'application/xml' },
    });
    expect(byAccept.status).toBe(400);
    expect(byAccept.headers['Content-Type']).toBe('application/xml; charset=utf-8');
    expect(byAccept.body).toContain('Query parameter `format`');
  });

  it('ignores what the operation does not take, as before: unknown parameters, other headers, and 404s', async () => {
    const ignored = await invoke(lister, {
      resource: '/magazines',
      query: { utm: LONE, [LONE]: 'x' },
      headers: { 'User-Agent': LONE },
    });
    expect(ignored.status).toBe(200);
    // …while the same request with one parameter it takes is refused.
    expect(refusal(await invoke(lister, { resource: '/magazines', query: { utm: LONE, tag: LONE } })).errorCode).toBe(
      '40015',
    );
    const notFound = api('notFound', { run: () => ok({}, { root: 'response' }) });
    expect(
      (await invoke(notFound, { resource: '/{proxy+}', params: { proxy: LONE }, query: { tag: LONE } })).status,
    ).toBe(200);
  });
});
