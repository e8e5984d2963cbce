import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localCredentials, localDynamoDbClient } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import { allEvents, eventsDir } from '../../scripts/make-events';
import { lambdaContext, loadHandler } from '../../scripts/invoke';
import { expandRoutes } from '../../shared/routes';

const files = readdirSync(eventsDir).filter((file) => file.endsWith('.json'));
const eventOf = (handler: string) => JSON.parse(readFileSync(path.join(eventsDir, `${handler}.json`), 'utf8')) as APIGatewayProxyEvent;
const moduleExists = (handler: string) => existsSync(path.resolve(eventsDir, '..', 'functions', `${handler}.ts`));

describe('events/', () => {
  it('holds one event per handler, as `npm run events` writes them', () => {
    const generated = allEvents();
    expect(files.map((file) => file.replace(/\.json$/, '')).sort()).toEqual(Object.keys(generated).sort());
    for (const [handler, event] of Object.entries(generated)) expect(eventOf(handler), handler).toEqual(event);
  });

  it('gives each event the resource and method of a route served by its handler', () => {
    const routes = expandRoutes();
    for (const file of files) {
      const handler = file.replace(/\.json$/, '');
      const event = eventOf(handler);
      const route = routes.find((r) => r.resource === event.resource && (r.method === event.httpMethod || (r.method === 'ANY' && r.handler === handler)));
      expect(route?.handler, file).toBe(handler);
      expect(event.requestContext.resourcePath).toBe(event.resource);
      expect(event.requestContext.path).toBe(`/${event.requestContext.stage}${event.path}`);
    }
  });
});

/**
 * Fed to their handlers in this order on one fresh table, so that each finds what it needs (the
 * magazine exists before it is read, the second magazine before it is deleted).
 */
const sequence: readonly [handler: string, status: number][] = [
  ['list-magazines', 200],
  ['create-magazine', 201],
  ['get-magazine', 200],
  ['replace-magazine', 200],
  ['list-articles', 200],
  ['create-article', 201],
  ['get-article', 404],
  ['list-tags', 200],
  ['get-tag', 200],
  ['list-tag-magazines', 200],
  ['replace-all-magazines', 200],
  ['delete-magazine', 200],
  ['delete-all-magazines', 200],
  ['get-documentation', 200],
  ['list-error-pages', 200],
  ['get-error-page', 200],
  ['get-openapi', 200],
  ['not-found', 404],
  ['method-not-allowed', 405],
];

describe('each event, fed to its handler on DynamoDB Local', () => {
  beforeAll(async () => {
    const endpoint = inject('dynamoDbEndpoint');
    const tableName = `events-${process.pid}-${Date.now()}`;
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: endpoint,
      TABLE_NAME: tableName,
      MOCK_ENABLED: 'true',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
    });
    await ensureTable(localDynamoDbClient(endpoint), tableName);
  });

  it('covers every event file', () => {
    expect(sequence.map(([handler]) => `${handler}.json`).sort()).toEqual([...files].sort());
  });

  for (const [handler, status] of sequence) {
    it.skipIf(!moduleExists(handler))(`${handler}.json answers ${status}`, async () => {
      const run = await loadHandler(handler);
      const event = eventOf(handler);
      const response = (await run(event, lambdaContext(handler, event.requestContext.requestId), () => undefined)) as APIGatewayProxyResult;
      expect(response.statusCode, response.body).toBe(status);
      expect(response.headers?.Vary).toBe('Accept');
      if (status >= 400) {
        expect(Object.keys(JSON.parse(response.body) as object).sort()).toEqual(['developerMessage', 'errorCode', 'moreInfo', 'userMessage']);
      }
    });
  }
});
