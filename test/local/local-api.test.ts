import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, request, startLocalApi } from '../support/local-api';

let api: LocalApi;
let get: ReturnType<typeof request>;

beforeAll(async () => {
  api = await startLocalApi();
  get = request(api.baseUrl);
});

afterAll(() => api.close());

describe('the local API on DynamoDB Local', () => {
  it('serves an unknown path with the 404 error object from functions/not-found.ts', async () => {
    const response = await get('/nonexistent-path');
    expect(response.status).toBe(404);
    expect(response.headers.get('vary')).toBe('Accept');
    expect(await response.json()).toMatchObject({
      errorCode: '40401',
      userMessage: expect.any(String),
      developerMessage: expect.stringContaining('/nonexistent-path'),
      moreInfo: `${api.baseUrl}/v1/documentation/errors/40401.html`,
    });
  });

  it('serves the root, which has no operation, with the same 404 error object', async () => {
    const response = await get('/');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ errorCode: '40401' });
  });

  it('names the versions that exist when asked for one that does not', async () => {
    const response = await get('/v2/magazines');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { developerMessage: string }).developerMessage).toContain('v1');
  });

  it('answers 405 with an Allow header for a method a known resource does not support', async () => {
    const response = await get('/magazines', { method: 'PATCH' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
  });

  it('gives each test file its own active table', async () => {
    const { Table } = await api.dynamoDbClient.send(new DescribeTableCommand({ TableName: api.tableName }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(api.tableName).toMatch(/^magazines-test-/);
  });
});
