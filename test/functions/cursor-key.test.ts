import '../support/mocked-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { invoke } from '../support/proxy-event';

/**
 * Two deployments, each with its own cursor key in Secrets Manager: a function instance is a fresh
 * import of the handler module (a cold start), its secret read through a mocked client.
 */
const secrets = mockClient(SecretsManagerClient);
mockClient(DynamoDBDocumentClient).rejects(new Error('not used: mock lists read no table'));
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:CursorKey-AbCdEf';
process.env.CURSOR_KEY_SECRET_ARN = SECRET_ARN;
process.env.AWS_REGION = 'eu-west-1';
afterAll(() => {
  delete process.env.CURSOR_KEY_SECRET_ARN;
});

/** A cold start of list-magazines in a deployment whose secret holds `key`. */
const deployment = async (key: string) => {
  secrets.reset();
  secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).resolves({ SecretString: key });
  vi.resetModules();
  const { handler } = await import('../../functions/list-magazines');
  return handler;
};

const list = (handler: unknown, query: Record<string, string>) =>
  invoke(handler, { resource: '/magazines', query: { mock: '1', limit: '2', ...query } });

const nextCursor = (link: string | undefined) => {
  const cursor = /[?&]cursor=([^&>]+)[^>]*>; rel="next"/.exec(link ?? '')?.[1];
  if (!cursor) throw new Error(`No next cursor in ${link}`);
  return decodeURIComponent(cursor);
};

describe('the cursor key of a deployment', () => {
  beforeEach(() => secrets.reset());
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.METRICS;
  });

  it('signs cursors that the same deployment follows and another refuses with 400', async () => {
    const first = await deployment('key-of-deployment-a');
    const page = await list(first, {});
    expect(page.status).toBe(200);
    const cursor = nextCursor(page.headers.Link);

    const again = await list(first, { cursor });
    expect(again.status).toBe(200);

    const second = await deployment('key-of-deployment-b');
    const elsewhere = await list(second, { cursor });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json).toMatchObject({ errorCode: '40004' });
    expect(elsewhere.json?.developerMessage).toMatch(/`cursor`/);
  });

  it('is read from Secrets Manager once per instance, by the ARN the function is given', async () => {
    const handler = await deployment('key-of-deployment-a');
    for (let page = 0; page < 3; page += 1) expect((await list(handler, {})).status).toBe(200);
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
    expect(secrets).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: SECRET_ARN });
  });

  it('answers 503 with Retry-After while the secret cannot be read, and reads it again on the next request', async () => {
    secrets.reset();
    secrets.on(GetSecretValueCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    vi.resetModules();
    const { handler } = await import('../../functions/list-magazines');
    const lines: string[] = [];
    process.env.METRICS = 'true';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => lines.push(String(chunk)) > 0);
    const refused = await list(handler, {});
    expect(refused.status).toBe(503);
    expect(refused.headers['Retry-After']).toBeDefined();
    expect(JSON.stringify(refused.json)).not.toMatch(/secret|ThrottlingException/i);
    // The operator reads Secrets Manager, not DynamoDB, as the cause: in the log line and in the metric's `Reason`.
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(expect.objectContaining({ message: 'Store unavailable', reason: 'cursor-key' }));
    expect(logged).toContainEqual(expect.objectContaining({ Reason: 'cursor-key', StoreUnavailable: 1 }));

    secrets.reset();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'key-of-deployment-a' });
    expect((await list(handler, {})).status).toBe(200);
  });
});
