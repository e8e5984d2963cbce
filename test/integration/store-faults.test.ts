import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { type Fault, type FaultKind, startFaultProxy } from '../support/dynamodb-faults';
import { articleBody, expectError, expectTableUnchanged, magazineBody, uniqueId, useLocalApi } from './expect-api';

/**
 * DynamoDB failing for good, in the ways it does on AWS: every request still answers in form,
 * with 503 and `Retry-After`, and within its function's timeout (the local server stops a
 * function at its deployed timeout and answers 502, as Lambda and API Gateway do).
 */
const proxy = await startFaultProxy(inject('dynamoDbEndpoint'));
afterAll(() => proxy.close());
afterEach(() => proxy.clearFaults());

const local = useLocalApi({ env: { DYNAMODB_ENDPOINT: proxy.endpoint } });
/** The table as it is, read past the failing proxy. */
const direct = DynamoDBDocumentClient.from(localDynamoDbClient(inject('dynamoDbEndpoint')));
afterAll(() => direct.destroy());

let magazineId: string;
beforeAll(async () => {
  magazineId = uniqueId();
  expect((await local.client.post('/magazines', magazineBody({ id: magazineId }))).status).toBe(201);
});

const requests = () =>
  [
    ['GET', `/magazines/${magazineId}`],
    ['POST', '/magazines', magazineBody()],
    ['GET', '/magazines?limit=5&offset=1'],
    ['GET', '/tags'],
    ['PUT', `/magazines/${magazineId}`, { title: 'Changed' }],
    ['POST', `/magazines/${magazineId}/articles`, articleBody()],
    ['DELETE', `/magazines/${magazineId}`],
  ] as const;

/** A store that does not answer costs each request its whole deadline: three requests show it. */
const faults: readonly [string, Fault | FaultKind, number][] = [
  ['throttled', 'throttle', 7],
  ['answering 500', 'internal', 7],
  ['answering 503', 'unavailable', 7],
  ['not answering', 'timeout', 3],
];

describe('DynamoDB failing on every call', { timeout: 120_000 }, () => {
  it.each(faults)(
    '%s: every operation answers 503 with Retry-After in time, and changes nothing',
    async (_, fault, n) => {
      proxy.inject({ fault });
      for (const [method, path, body] of requests().slice(0, n)) {
        const answer = await expectTableUnchanged(direct, local.api.tableName, () =>
          local.client.request(method, path, body === undefined ? {} : { json: body }),
        );
        expectError(answer, { status: 503, baseUrl: local.api.baseUrl });
        expect(Number(answer.headers['retry-after']), `${method} ${path}`).toBeGreaterThanOrEqual(1);
      }
    },
  );
});
