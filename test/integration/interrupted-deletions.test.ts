import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleFunctions } from '../../local/bundle-functions';
import { bundledHandlers } from '../../local/bundled-handlers';
import { type LocalEnvironment, prepareLocalEnvironment } from '../../local/environment';
import { lambdaContext } from '../../local/lambda-context';
import { type HandlerLoader, sourceHandlers } from '../../local/load-handler';
import { eventsDir } from '../../scripts/make-events';
import { DELETION_PREFIX } from '../../shared/db/keys';
import { timeoutSecondsOf } from '../../shared/routes/table';
import { type DynamoDbProxy, startDynamoDbProxy } from '../support/dynamodb-proxy';
import { sweepGarbage } from '../support/garbage';
import { operationOf } from '../support/grants';
import { type Client, clientFor } from '../support/http';
import { startLocalApi } from '../support/local-api';
import { type ArticleView, articleBody, type Envelope, type MagazineView, magazineBody, scanTable } from './expect-api';

/**
 * A delete cut short after its point of no return: here, DynamoDB refuses the article deletes.
 * The magazine and its articles are gone for clients at once (the articles live under the
 * magazine's incarnation, which no magazine has any more); the garbage is swept later.
 */
let proxy: DynamoDbProxy;
let api: Awaited<ReturnType<typeof startLocalApi>>;
let client: Client;
let refuseBatchWrites = false;
/** Cuts a bulk write's own sweep short: its read of the garbage notes fails, the write is made. */
let refuseBulkSweeps = false;

beforeAll(async () => {
  proxy = await startDynamoDbProxy(inject('dynamoDbEndpoint'), (target, body, headers) => {
    const refused =
      (refuseBatchWrites && target.endsWith('.BatchWriteItem')) ||
      (refuseBulkSweeps &&
        target.endsWith('.Query') &&
        body.includes('"TRASH"') &&
        operationOf(headers) === 'replaceAllMagazines');
    return refused ? { status: 400, type: 'ValidationException' } : undefined;
  });
  // The warning each refused cleanup logs is the expected outcome here.
  api = await startLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint, LOG_LEVEL: 'ERROR' }, logErrors: false });
  client = clientFor(api.baseUrl);
});

afterAll(async () => {
  await api?.close();
  await proxy?.close();
});

const count = async () =>
  (await client.get('/magazines?limit=1')).json<Envelope<MagazineView>>().metadata.resultset.count;

/** Creates a magazine with an article, then deletes it with its article deletes refused. */
const interruptedDeletion = async (id: string) => {
  expect((await client.post('/magazines', magazineBody({ id }))).status).toBe(201);
  const article = await client.post(`/magazines/${id}/articles`, articleBody());
  const before = await count();
  refuseBatchWrites = true;
  try {
    expect((await client.delete(`/magazines/${id}`)).status).toBe(200);
  } finally {
    refuseBatchWrites = false;
  }
  expect((await client.get(`/magazines/${id}`)).status).toBe(404);
  expect((await client.post(`/magazines/${id}/articles`, articleBody())).status).toBe(404);
  expect(await count()).toBe(before - 1);
  return article.json<{ id: string }>().id;
};

describe('a deletion cut short', () => {
  it('is finished by PUT /magazines, which can then create the id again with no article of its past', async () => {
    const articleId = await interruptedDeletion('cut-1');
    const put = await client.put('/magazines', [magazineBody({ id: 'cut-1', title: 'Second life' })]);
    expect(put.status, put.text).toBe(200);
    expect((await client.get(`/articles/${articleId}`)).status).toBe(404);
    expect((await client.get('/magazines/cut-1')).json<MagazineView>().title).toBe('Second life');
    const articles = (await client.get('/magazines/cut-1/articles')).json<Envelope<ArticleView>>();
    expect([articles.metadata.resultset.count, articles.results]).toEqual([0, []]);
  });

  it('is finished by a POST of the same id, which then creates it', async () => {
    const articleId = await interruptedDeletion('cut-2');
    expect((await client.post('/magazines', magazineBody({ id: 'cut-2' }))).status).toBe(201);
    expect((await client.get(`/articles/${articleId}`)).status).toBe(404);
    expect((await client.get('/magazines/cut-2/articles')).json<Envelope<ArticleView>>().metadata.resultset.count).toBe(
      0,
    );
  });

  it('leaves nothing readable, and nothing at all once the garbage is swept', async () => {
    const articleId = await interruptedDeletion('cut-3');
    expect((await client.get(`/articles/${articleId}`)).status).toBe(404);
    expect((await client.delete('/magazines')).status).toBe(200);
    expect(await count()).toBe(0);
    await sweepGarbage(api.documentClient, api.tableName);
    // Only each deletion's note is left (its change event's source, cleared by time to live).
    const left = (await scanTable(api.documentClient, api.tableName)).filter(
      (item) => ('id' in item || 'magazineId' in item) && !String(item.SK).startsWith(DELETION_PREFIX),
    );
    expect(left).toEqual([]);
  });
});

/** The janitor's function as its schedule runs it: from its TypeScript source, and bundled as deployed. */
const janitors: [string, (environment: LocalEnvironment) => Promise<HandlerLoader>][] = [
  ['from its TypeScript source', async (environment) => sourceHandlers(environment)],
  [
    'bundled as deployed',
    async (environment) =>
      bundledHandlers(
        environment,
        await bundleFunctions(mkdtempSync(path.join(tmpdir(), 'janitor-')), { names: ['sweep-garbage'] }),
      ),
  ],
];

describe.each(janitors)('the janitor, run on its scheduled event %s', (_, loaderFor) => {
  const scheduledEvent = JSON.parse(readFileSync(path.join(eventsDir, 'scheduled', 'sweep-garbage.json'), 'utf8'));

  it('is the event EventBridge sends on a schedule', () => {
    expect(EventBridgeSchema.parse(scheduledEvent)).toMatchObject({ 'detail-type': 'Scheduled Event' });
  });

  /** Runs the janitor's function as its schedule does, on the API's table. */
  const runJanitor = async () => {
    const handlers = await loaderFor(
      await prepareLocalEnvironment({ endpoint: proxy.endpoint, tableName: api.tableName }),
    );
    try {
      const run = await handlers('sweep-garbage');
      const context = lambdaContext('sweep-garbage', scheduledEvent.id, {
        timeoutMs: timeoutSecondsOf('sweep-garbage') * 1000,
      });
      return (await run(scheduledEvent, context)) as { cleared: number; left: boolean };
    } finally {
      await handlers.close?.();
    }
  };

  it('clears the articles a deletion cut short left, with no request to finish it', async () => {
    const id = `cut-janitor-${randomUUID().slice(0, 8)}`;
    await interruptedDeletion(id);
    const garbage = async () =>
      (await scanTable(api.documentClient, api.tableName)).filter(
        (item) => (item.PK === 'TRASH' && item.kind === 'articles') || ('magazineId' in item && item.magazineId === id),
      );
    expect(await garbage()).not.toEqual([]);
    // `left` may be true: a generation replaced by an earlier bulk write waits out its guards.
    expect((await runJanitor()).cleared).toBeGreaterThanOrEqual(1);
    expect(await garbage()).toEqual([]);
  });

  it('clears the generation a bulk write replaced when the write could not, its articles with it', async () => {
    const old = `replaced-${randomUUID().slice(0, 8)}`;
    const kept = `kept-${randomUUID().slice(0, 8)}`;
    expect((await client.post('/magazines', magazineBody({ id: old }))).status).toBe(201);
    expect((await client.post(`/magazines/${old}/articles`, articleBody())).status).toBe(201);
    refuseBulkSweeps = true;
    try {
      expect((await client.put('/magazines', [magazineBody({ id: kept })])).status).toBe(200);
    } finally {
      refuseBulkSweeps = false;
    }
    const leftOf = async (id: string) =>
      (await scanTable(api.documentClient, api.tableName)).filter(
        (item) => item.id === id || ('magazineId' in item && item.magazineId === id),
      ).length;
    expect(await leftOf(old)).toBeGreaterThan(0);
    await runJanitor();
    expect(await leftOf(old)).toBe(0);
    expect((await client.get(`/magazines/${kept}`)).status).toBe(200);
    expect(await leftOf(kept)).toBe(1);
  });
});
