import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleFunctions } from '../../local/bundle-functions';
import { bundledHandlers } from '../../local/bundled-handlers';
import { type LocalEnvironment, prepareLocalEnvironment } from '../../local/environment';
import { lambdaContext } from '../../local/lambda-context';
import { type HandlerLoader, sourceHandlers } from '../../local/load-handler';
import { allEvents, eventsDir } from '../../scripts/make-events';
import { minimumCompressionBytes } from '../../shared/http/compression';
import type { TableAction } from '../../shared/operation/row';
import { expandRoutes, operations } from '../../shared/routes/table';
import { type DynamoDbProxy, startDynamoDbProxy } from '../support/dynamodb-proxy';

const files = readdirSync(eventsDir).filter((file) => file.endsWith('.json'));
const eventOf = (handler: string) =>
  JSON.parse(readFileSync(path.join(eventsDir, `${handler}.json`), 'utf8')) as APIGatewayProxyEvent;

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
      const route = routes.find(
        (r) =>
          r.resource === event.resource &&
          (r.method === event.httpMethod || (r.method === 'ANY' && r.handler === handler)),
      );
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

/** One DynamoDB request as IAM authorises it: an action, on the table or on an index. */
interface Authorised {
  readonly action: string;
  readonly onIndex: boolean;
}

/** A transaction needs the action of each of its items; there is no IAM action for the transaction itself. */
const transactItemActions: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

const authorisedActions = (target: string, body: string): Authorised[] => {
  const operation = target.replace(/^DynamoDB_\d+\./, '');
  const input = JSON.parse(body || '{}') as { IndexName?: string; TransactItems?: Record<string, unknown>[] };
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    return (input.TransactItems ?? []).flatMap((item) =>
      Object.keys(item).map((kind) => ({ action: transactItemActions[kind] ?? `unknown ${kind}`, onIndex: false })),
    );
  }
  return [{ action: operation, onIndex: input.IndexName !== undefined }];
};

/** What the route table grants a handler's function: its operation's actions, and `Query` on the indexes when it queries. */
const grantsOf = (handler: string) => {
  const actions: readonly TableAction[] = operations.find((operation) => operation.handler === handler)?.actions ?? [];
  return { onTable: [...actions].sort(), onIndexes: [] as TableAction[] };
};

describe('the grant check', () => {
  it('counts a transaction as the actions of its items', () => {
    const body = JSON.stringify({ TransactItems: [{ Put: {} }, { Update: {} }, { ConditionCheck: {} }] });
    expect(authorisedActions('DynamoDB_20120810.TransactWriteItems', body).map((a) => a.action)).toEqual([
      'PutItem',
      'UpdateItem',
      'ConditionCheckItem',
    ]);
    expect(authorisedActions('DynamoDB_20120810.Query', JSON.stringify({ IndexName: 'GSI1' }))).toEqual([
      { action: 'Query', onIndex: true },
    ]);
  });
});

/**
 * The events are fed to each handler as it runs from its TypeScript source, and as it deploys:
 * bundled with the CDK stack's settings, imported and invoked as Lambda's runtime does it.
 */
const variants: [string, (environment: LocalEnvironment) => Promise<HandlerLoader>][] = [
  ['from its TypeScript source', async (environment) => sourceHandlers(environment)],
  [
    'bundled as deployed and run as Lambda runs it',
    async (environment) =>
      bundledHandlers(environment, await bundleFunctions(mkdtempSync(path.join(tmpdir(), 'bundles-')))),
  ],
];

describe.each(variants)('each event, fed to its handler %s, on DynamoDB Local', (_, loaderFor) => {
  /**
   * The handlers talk to DynamoDB Local through this proxy, which notes what each request needs
   * from IAM, so that a handler calling an action its role lacks fails here rather than in AWS.
   */
  let proxy: DynamoDbProxy | undefined;
  let handlers: HandlerLoader | undefined;
  let calls: Authorised[] = [];

  beforeAll(async () => {
    proxy = await startDynamoDbProxy(inject('dynamoDbEndpoint'), (target, body) => {
      calls.push(...authorisedActions(target, body));
    });
    handlers = await loaderFor(
      await prepareLocalEnvironment({ endpoint: proxy.endpoint, tableName: `events-${randomUUID()}` }),
    );
  });

  afterAll(async () => {
    await handlers?.close?.();
    await proxy?.close();
  });

  it('covers every event file', () => {
    expect(sequence.map(([handler]) => `${handler}.json`).sort()).toEqual([...files].sort());
  });

  // A handler module that is missing fails here: its route would be a 502 in AWS.
  for (const [handler, status] of sequence) {
    it(`${handler}.json answers ${status}, calling only DynamoDB actions its role is granted`, async () => {
      const run = await handlers!(handler);
      const event = eventOf(handler);
      calls = [];
      const response = (await run(
        event,
        lambdaContext(handler, event.requestContext.requestId),
      )) as APIGatewayProxyResult;
      expect(response.statusCode, response.body).toBe(status);
      // From the compression size on, the bytes follow Accept-Encoding as well as Accept.
      expect(response.headers?.Vary).toBe(
        Buffer.byteLength(response.body) >= minimumCompressionBytes ? 'Accept, Accept-Encoding' : 'Accept',
      );
      if (status >= 400) {
        expect(Object.keys(JSON.parse(response.body) as object).sort()).toEqual([
          'developerMessage',
          'errorCode',
          'moreInfo',
          'userMessage',
        ]);
      }
      const grants = grantsOf(handler);
      const onTable = new Set(calls.filter((call) => !call.onIndex).map((call) => call.action));
      const onIndexes = new Set(calls.filter((call) => call.onIndex).map((call) => call.action));
      expect(
        [...onTable].filter((action) => !grants.onTable.includes(action as TableAction)),
        `${handler}: table actions not granted`,
      ).toEqual([]);
      expect(
        [...onIndexes].filter((action) => !grants.onIndexes.includes(action as TableAction)),
        `${handler}: index actions not granted`,
      ).toEqual([]);
    });
  }
});
