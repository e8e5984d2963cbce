import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { buildProxyEvent, localPublisher, type Pairs, sigV4Headers } from '../../local/api-gateway-event';
import type { Recording, WireCall } from './answers';

/** What the warm and cold benchmarks ask: the same requests of the API and of every competitor. */

export const SEED_SIZE = 30;
const TAG_NAMES = ['News', 'Science', 'Travel', 'Food', 'Sport', 'Culture'];
const FIRST_CREATED = 1_717_200_000;

/** The magazines the table holds when the calls are recorded (PUT /magazines): two tags each, a day apart. */
export const seedMagazines = Array.from({ length: SEED_SIZE }, (_, i) => ({
  id: `mag-${String(i + 1).padStart(2, '0')}`,
  title: `Magazine ${i + 1} of the benchmark collection`,
  tags: [{ name: TAG_NAMES[i % TAG_NAMES.length]! }, { name: TAG_NAMES[(i + 2) % TAG_NAMES.length]! }],
  created: FIRST_CREATED + i * 86_400,
}));

export const GET_ID = 'mag-05';
export const LIST_LIMIT = 25;

export type Scenario = 'get' | 'listJson' | 'listXml' | 'post';
export const scenarios: readonly Scenario[] = ['get', 'listJson', 'listXml', 'post'];
export const scenarioLabel: Record<Scenario, string> = {
  get: 'GET one',
  listJson: `list JSON (${LIST_LIMIT})`,
  listXml: `list XML (${LIST_LIMIT})`,
  post: 'POST',
};

const domainName = 'abcdef1234.execute-api.us-east-1.amazonaws.com';

/** An API Gateway event of the deployed API for one request (writes signed as the publisher's). */
export const apiEvent = (
  method: string,
  resource: string,
  path: string,
  options: { params?: Record<string, string>; query?: Pairs; accept?: string; body?: string } = {},
): APIGatewayProxyEvent => {
  const now = new Date();
  const body = options.body ?? null;
  const headers: Pairs = [
    ['Accept', options.accept ?? 'application/json'],
    ['Accept-Encoding', 'gzip, deflate, br'],
    ['User-Agent', 'magazine-api-bench'],
    ...(body === null ? [] : ([['Content-Type', 'application/json']] as Pairs)),
    ...(method === 'GET' ? [] : sigV4Headers(localPublisher, body ?? '', now)),
  ];
  return buildProxyEvent({
    method,
    resource,
    path,
    pathParameters: options.params ?? null,
    headers,
    query: options.query ?? [],
    body,
    stage: 'prod',
    requestId: randomUUID(),
    now,
    sourceIp: '203.0.113.10',
    port: 443,
    scheme: 'https',
    caller: method === 'GET' ? undefined : localPublisher,
    domainName,
  });
};

export const seedEvent = () => apiEvent('PUT', '/magazines', '/magazines', { body: JSON.stringify(seedMagazines) });

export const scenarioEvent = (scenario: Scenario): APIGatewayProxyEvent => {
  switch (scenario) {
    case 'get':
      return apiEvent('GET', '/magazines/{id}', `/magazines/${GET_ID}`, { params: { id: GET_ID } });
    case 'listJson':
      return apiEvent('GET', '/magazines', '/magazines', { query: [['limit', String(LIST_LIMIT)]] });
    case 'listXml':
      return apiEvent('GET', '/magazines', '/magazines', {
        query: [['limit', String(LIST_LIMIT)]],
        accept: 'application/xml',
      });
    case 'post':
      return apiEvent('POST', '/magazines', '/magazines', {
        body: JSON.stringify({ title: 'A magazine of the benchmark', tags: [{ name: 'News' }, { name: 'Bench' }] }),
      });
  }
};

// ---------------------------------------------------------------------------------------------
// The competitors' table: one item per magazine, a Query for a page

const competitorItem = (magazine: (typeof seedMagazines)[number]) => ({
  PK: `MAG#${magazine.id}`,
  SK: 'MAG',
  id: magazine.id,
  title: magazine.title,
  tags: magazine.tags.map((tag) => ({ id: tag.name.toLowerCase(), name: tag.name })),
  created: magazine.created,
});

const wire = (operation: string, response: unknown): WireCall => ({
  operation,
  request: '',
  status: 200,
  response: JSON.stringify(response),
});

/** What DynamoDB answers the competitors and the reference handler (one call each). */
export const competitorRecording = (scenario: Scenario): Recording => {
  const magazine = seedMagazines.find((m) => m.id === GET_ID)!;
  switch (scenario) {
    case 'get':
      return { init: [], invocation: [wire('GetItem', { Item: marshall(competitorItem(magazine)) })] };
    case 'listJson':
    case 'listXml': {
      const items = seedMagazines.slice(0, LIST_LIMIT).map((m) => marshall(competitorItem(m)));
      return {
        init: [],
        invocation: [wire('Query', { Count: items.length, Items: items, ScannedCount: items.length })],
      };
    }
    case 'post':
      return { init: [], invocation: [wire('PutItem', {})] };
  }
};

// ---------------------------------------------------------------------------------------------
// The cursor key, read from Secrets Manager as a deployed list function reads it

export const CURSOR_KEY_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:CursorKey-AbCdEf';

/** A deployed list function's environment: the secret's ARN, no key (lambdaEnvironment gives one). */
export const secretEnvironment = { CURSOR_KEY: '', CURSOR_KEY_SECRET_ARN: CURSOR_KEY_SECRET_ARN } as const;

/** Secrets Manager's answer to the init phase's GetSecretValue, as the service sends it. */
const secretRead: WireCall = {
  operation: 'GetSecretValue',
  request: JSON.stringify({ SecretId: CURSOR_KEY_SECRET_ARN }),
  status: 200,
  response: JSON.stringify({
    ARN: CURSOR_KEY_SECRET_ARN,
    CreatedDate: 1_767_225_600,
    Name: 'CursorKey',
    SecretString: 'k'.repeat(64),
    VersionId: '00000000-0000-4000-8000-000000000000',
    VersionStages: ['AWSCURRENT'],
  }),
};

/** A list function's recording with the cursor key's read added to its init phase. */
export const withSecretRead = (recording: Recording): Recording => ({
  init: [...recording.init, secretRead],
  invocation: recording.invocation,
});
