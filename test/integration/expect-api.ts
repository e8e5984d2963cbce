import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { contractProblems } from '../support/contract';
import { type Client, clientFor, type HttpResponse, takeResponses } from '../support/http';
import { type LocalApi, type LocalApiOptions, startLocalApi } from '../support/local-api';

/** Assertions the integration tests share: what a client of the API must always see. */

export interface TagView {
  id: string;
  name: string;
  url: string;
}

export interface MagazineView {
  id: string;
  type: string;
  title: string;
  tags: TagView[];
  created: string;
}

export interface ArticleView {
  id: string;
  type: string;
  magazine_id: string;
  title: string;
  author_first_name: string;
  author_last_name: string;
  author_email: string;
  date: string;
  text: string;
  created: string;
}

export interface Envelope<T> {
  metadata: { resultset: { count: number; offset: number; limit: number } };
  results: T[];
}

export interface ErrorView {
  developerMessage: string;
  userMessage: string;
  errorCode: string;
  moreInfo: string;
}

export const MAGAZINE_FIELDS = ['created', 'id', 'tags', 'title', 'type'];
export const TAG_FIELDS = ['id', 'name', 'url'];
export const ARTICLE_FIELDS = [
  'author_email',
  'author_first_name',
  'author_last_name',
  'created',
  'date',
  'id',
  'magazine_id',
  'text',
  'title',
  'type',
];
export const ERROR_FIELDS = ['developerMessage', 'errorCode', 'moreInfo', 'userMessage'];

export const JSON_TYPE = 'text/javascript; charset=utf-8';
export const APPLICATION_JSON_TYPE = 'application/json; charset=utf-8';
export const XML_TYPE = 'application/xml; charset=utf-8';

/** Names of the implementation that must never reach a client. */
export const INTERNAL_NAMES = [
  '"PK"',
  '<PK>',
  'GSI1',
  'MAG#',
  'TAG#',
  'ARTICLE#',
  'CATALOGUE',
  'stack',
  'TransactWrite',
  'DynamoDB',
  'ConditionalCheck',
  'node_modules',
  '.ts:',
];

/** A fresh identifier, so that tests sharing one table never collide. */
export const uniqueId = (stem = 'm') => `${stem}-${randomUUID().slice(0, 8)}`;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export const magazineBody = (overrides: Record<string, unknown> = {}) => ({
  title: 'Modern Astronomy',
  tags: [{ name: 'Science' }],
  ...overrides,
});

export const articleBody = (overrides: Record<string, unknown> = {}) => ({
  title: 'Notes on Comets',
  author_first_name: 'Ada',
  author_last_name: 'Lovelace',
  author_email: 'ada@example.com',
  date: '2024-02-29',
  text: 'Comets are icy bodies.',
  ...overrides,
});

export const sortedKeys = (value: object) => Object.keys(value).sort();

/** A magazine representation: exactly the representation's fields, of their types. */
export const expectMagazineShape = (magazine: unknown) => {
  const m = magazine as MagazineView;
  expect(sortedKeys(m)).toEqual(MAGAZINE_FIELDS);
  expect(typeof m.id).toBe('string');
  expect(m.type).toBe('magazine');
  expect(typeof m.title).toBe('string');
  expect(m.created).toMatch(/^\d+$/);
  expect(Array.isArray(m.tags)).toBe(true);
  for (const tag of m.tags) {
    expect(sortedKeys(tag)).toEqual(TAG_FIELDS);
    expect(tag.url).toMatch(/^https?:\/\/[^/]+\/(api\/)?v1\/tags\/[^/]+$/);
  }
};

export const expectArticleShape = (article: unknown) => {
  const a = article as ArticleView;
  expect(sortedKeys(a)).toEqual(ARTICLE_FIELDS);
  expect(a.type).toBe('article');
  expect(a.created).toMatch(/^\d+$/);
};

export const expectEnvelopeShape = (body: unknown) => {
  const e = body as Envelope<unknown>;
  expect(sortedKeys(e)).toEqual(['metadata', 'results']);
  expect(sortedKeys(e.metadata)).toEqual(['resultset']);
  expect(sortedKeys(e.metadata.resultset)).toEqual(['count', 'limit', 'offset']);
  expect(Number.isInteger(e.metadata.resultset.count)).toBe(true);
  expect(Array.isArray(e.results)).toBe(true);
};

/** `Vary: Accept` on every response. */
export const expectVaryAccept = (response: HttpResponse) => {
  const vary = (response.headers.vary ?? '').split(',').map((v) => v.trim().toLowerCase());
  expect(vary, 'Vary header').toContain('accept');
};

export const expectNoInternalNames = (response: HttpResponse, tableName?: string) => {
  const everything = `${response.text}\n${Object.entries(response.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')}`;
  for (const name of INTERNAL_NAMES) expect(everything, `response must not contain ${name}`).not.toContain(name);
  if (tableName)
    expect(everything, 'response must not contain the table name').not.toMatch(
      new RegExp(`(^|[^A-Za-z0-9_-])${escapeRegExp(tableName)}($|[^A-Za-z0-9_-])`),
    );
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface ErrorExpectation {
  readonly status: number;
  readonly baseUrl: string;
  /** Words `developerMessage` must contain: the field, parameter or header at fault. */
  readonly mentions?: readonly string[];
  readonly format?: 'json' | 'xml';
  /** Whether the request was a HEAD (no body to read). */
  readonly head?: boolean;
  readonly contentType?: string;
}

/** The API's error object, complete and consistent. */
export const expectError = (response: HttpResponse, expectation: ErrorExpectation): ErrorView | undefined => {
  const { status, baseUrl, mentions = [], format = 'json' } = expectation;
  expect(response.status, `status of ${response.text}`).toBe(status);
  expectVaryAccept(response);
  expectNoInternalNames(response);
  if (expectation.contentType) expect(response.headers['content-type']).toBe(expectation.contentType);
  else expect(response.headers['content-type']).toBe(format === 'xml' ? XML_TYPE : JSON_TYPE);
  if (expectation.head) {
    expect(response.text).toBe('');
    return undefined;
  }
  const error = format === 'xml' ? (parseXml(response.text).error as ErrorView) : response.json<ErrorView>();
  expect(sortedKeys(error)).toEqual(ERROR_FIELDS);
  expect(typeof error.developerMessage).toBe('string');
  expect(error.developerMessage.length).toBeGreaterThan(0);
  expect(typeof error.userMessage).toBe('string');
  expect(error.userMessage.length).toBeGreaterThan(0);
  const code = String(error.errorCode);
  expect(code).toMatch(new RegExp(`^${status}\\d+$`));
  if (format === 'json') expect(typeof error.errorCode).toBe('string');
  // Under every prefix: links are always `{base_url}/v1/…`.
  expect(error.moreInfo).toBe(`${baseUrl}/v1/documentation/errors/${code}.html`);
  for (const word of mentions) expect(error.developerMessage, 'developerMessage names what is wrong').toContain(word);
  return { ...error, errorCode: code };
};

/** Every item of the table, read with a Scan (fine in a test, never on a request path). */
export const scanTable = async (
  documentClient: DynamoDBDocumentClient,
  tableName: string,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.sort((a, b) => `${String(a.PK)}|${String(a.SK)}`.localeCompare(`${String(b.PK)}|${String(b.SK)}`));
};

/** Scans the table before and after `action`, and expects no item added, removed or changed. */
export const expectTableUnchanged = async <T>(
  documentClient: DynamoDBDocumentClient,
  tableName: string,
  action: () => Promise<T>,
): Promise<T> => {
  const before = await scanTable(documentClient, tableName);
  const result = await action();
  const after = await scanTable(documentClient, tableName);
  expect(after, 'the table must be unchanged').toEqual(before);
  return result;
};

const ARRAY_ELEMENTS = new Set([
  'response.results.magazine',
  'response.results.article',
  'response.results.tag',
  'magazine.tags.tag',
  'response.results.magazine.tags.tag',
]);

/** Well-formed XML with a declaration, parsed with lists as arrays. */
export const parseXml = (text: string): Record<string, unknown> => {
  expect(text.startsWith('<?xml'), 'XML starts with a declaration').toBe(true);
  expect(XMLValidator.validate(text), 'XML is well formed').toBe(true);
  const parser = new XMLParser({
    ignoreDeclaration: true,
    parseTagValue: false,
    isArray: (_name, jpath) => ARRAY_ELEMENTS.has(String(jpath)),
  });
  return parser.parse(text) as Record<string, unknown>;
};

/** The headers a HEAD must repeat from its GET. */
export const REPEATED_HEADERS = [
  'content-type',
  'vary',
  'etag',
  'last-modified',
  'link',
  'location',
  'allow',
  'cache-control',
];

export const pickHeaders = (response: HttpResponse, names = REPEATED_HEADERS) =>
  Object.fromEntries(
    names.filter((name) => response.headers[name] !== undefined).map((name) => [name, response.headers[name]]),
  );

/**
 * Rules every response obeys, checked on each one a test received (call in `afterEach`): it
 * matches the published OpenAPI document (test/support/contract.ts), carries `Vary: Accept`, and
 * (but for the HTML and OpenAPI documents) names nothing internal. A mismatch fails the test
 * that received the response, listing each problem.
 */
export const expectEveryResponseConforms = (tableName?: string, moreInfoSeen?: Set<string>) => {
  const mismatches = takeResponses().flatMap((response) => {
    const moreInfo =
      response.status >= 400 ? /<moreInfo>([^<]+)<\/moreInfo>|"moreInfo":"([^"]+)"/.exec(response.text) : null;
    if (moreInfo) moreInfoSeen?.add(moreInfo[1] ?? moreInfo[2] ?? '');
    const problems = contractProblems({
      method: response.method,
      path: response.path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    });
    const vary = (response.headers.vary ?? '').split(',').map((v) => v.trim().toLowerCase());
    if (!vary.includes('accept')) problems.push(`no Vary: Accept (Vary: ${response.headers.vary ?? 'absent'})`);
    const isDocument =
      /^text\/html/.test(response.headers['content-type'] ?? '') || response.path.includes('openapi.json');
    if (!isDocument) {
      const leaked = [...INTERNAL_NAMES, ...(tableName ? [tableName] : [])].filter((name) =>
        response.text.includes(name),
      );
      if (leaked.length > 0) problems.push(`names internal things: ${leaked.join(', ')}`);
    }
    return problems.length > 0
      ? [`${response.method} ${response.path} → ${response.status}:\n  - ${problems.join('\n  - ')}`]
      : [];
  });
  expect(mismatches, 'responses that break a rule every response must keep').toEqual([]);
};

/**
 * The API of one test file: started before its tests (then `seed` runs), every response of each
 * test checked against the contract after it; at the end, every `moreInfo` link the file received
 * is followed (it must be an HTML page), then the API is closed.
 */
export const useLocalApi = (options?: LocalApiOptions, seed?: () => Promise<void>) => {
  const local = {} as { api: LocalApi; client: Client };
  const moreInfoSeen = new Set<string>();
  beforeAll(async () => {
    local.api = await startLocalApi(options);
    local.client = clientFor(local.api.baseUrl);
    await seed?.();
  });
  afterEach(() => {
    expectEveryResponseConforms(local.api?.tableName, moreInfoSeen);
  });
  afterAll(async () => {
    try {
      for (const url of moreInfoSeen) {
        const page = await local.client.get(new URL(url).pathname, { headers: { Accept: 'text/html' } });
        expect([page.status, page.headers['content-type']], url).toEqual([200, 'text/html; charset=utf-8']);
      }
      takeResponses();
    } finally {
      await local.api?.close();
    }
  });
  return local;
};
