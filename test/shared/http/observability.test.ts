import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../../local/lambda-context';
import { createDocumentClient } from '../../../shared/db/client';
import { tableAccess } from '../../../shared/db/table-access';
import { remove, transact, update } from '../../../shared/db/table-writes';
import { StoreUnavailable } from '../../../shared/domain/errors';
import type { Store } from '../../../shared/domain/store';
import { created, ok } from '../../../shared/http/replies';
import { metricsNamespace, startRequestCounts } from '../../../shared/metrics';
import { api } from '../../../shared/routes/api';
import { row as createMagazineRow } from '../../../shared/routes/rows/create-magazine';
import { row as getMagazineRow } from '../../../shared/routes/rows/get-magazine';
import { type ProxyHandler, proxyEvent } from '../../support/proxy-event';

/** What Lambda sets for an actively traced function; the functions' metrics line is on in Lambda. */
beforeAll(() => {
  process.env.METRICS = 'true';
});

const unused = new Proxy({} as Store, {
  get: (_, name) => () => {
    throw new Error(`store.${String(name)} was called`);
  },
});

const reader = api(getMagazineRow, {
  stores: { real: () => unused, mock: unused },
  run: ({ params }) => {
    if (params.id === 'defect') throw new Error('PK MAG#defect exploded');
    if (params.id === 'busy') throw new StoreUnavailable('throttled');
    return ok({ id: params.id, title: 'T', tags: [] }, { root: 'magazine', names: { tags: 'tag' } });
  },
});

const creator = api(createMagazineRow, {
  stores: {
    real: () => ({ ...unused, createMagazine: async () => ({ id: 'm1', replayed: false }) }) as Store,
    mock: { ...unused, createMagazine: async () => ({ id: 'mock-1', replayed: false }) } as Store,
  },
  run: async ({ store, links }) => {
    const { id } = await store.createMagazine({ id: undefined, title: 't', tags: [], created: undefined });
    return created(id, links.to(`/magazines/${id}`));
  },
});

/** API Gateway's request id (`x-amzn-RequestId`, what the client sees) and Lambda's differ, as they do in AWS. */
const gatewayRequestId = 'c0ffee00-gateway-request';
const lambdaRequestId = 'deadbeef-lambda-request';
const traceRoot = '1-5759e988-bd862e3fe1be46a994272793';

const call = async (handler: unknown, options: Parameters<typeof proxyEvent>[0]) => {
  const lines: Record<string, unknown>[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
    return true;
  });
  const event = proxyEvent(options);
  const response = await (handler as ProxyHandler)(
    { ...event, requestContext: { ...event.requestContext, requestId: gatewayRequestId } },
    lambdaContext('test-function', lambdaRequestId),
  );
  write.mockRestore();
  const metrics = lines.filter((line) => line.level === 'METRICS');
  return { response, lines, logs: lines.filter((line) => line.level !== 'METRICS'), metrics };
};

type Directive = { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] };
const directivesOf = (line: Record<string, unknown>) =>
  (line._aws as { CloudWatchMetrics: Directive[] }).CloudWatchMetrics;

afterEach(() => {
  delete process.env._X_AMZN_TRACE_ID;
});

describe("a defect's 500 and its log line", () => {
  it("quote the request id the client sees (API Gateway's), with Lambda's and the trace id beside it in the log", async () => {
    process.env._X_AMZN_TRACE_ID = `Root=${traceRoot};Parent=53995c3f42cd8ad8;Sampled=1`;
    const { response, logs } = await call(reader, { resource: '/magazines/{id}', params: { id: 'defect' } });
    expect(response.statusCode).toBe(500);
    const body = JSON.parse(response.body) as Record<string, string>;
    expect(body.developerMessage).toContain(gatewayRequestId);
    expect(body.developerMessage).not.toContain(lambdaRequestId);
    expect(response.body).not.toContain('MAG#');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      level: 'ERROR',
      requestId: gatewayRequestId,
      awsRequestId: lambdaRequestId,
      traceId: traceRoot,
      operation: 'getMagazine',
      error: { message: 'PK MAG#defect exploded' },
    });
  });

  it("take the trace from API Gateway's X-Amzn-Trace-Id header where Lambda sets none (the local server)", async () => {
    const { logs } = await call(reader, {
      resource: '/magazines/{id}',
      params: { id: 'defect' },
      headers: { 'X-Amzn-Trace-Id': `Root=${traceRoot}` },
    });
    expect(logs[0]).toMatchObject({ requestId: gatewayRequestId, traceId: traceRoot });
  });
});

describe('the metrics line (CloudWatch embedded metric format)', () => {
  it('counts each request once per operation and stage, in one namespace, with its latency', async () => {
    const { metrics } = await call(reader, { resource: '/magazines/{id}', params: { id: 'm1' } });
    expect(metrics).toHaveLength(1);
    const line = metrics[0]!;
    expect(line).toMatchObject({
      Stage: 'local',
      Operation: 'getMagazine',
      statusCode: 200,
      Requests: 1,
      ClientErrors: 0,
      ServerErrors: 0,
      Latency: expect.any(Number),
      requestId: gatewayRequestId,
    });
    const [main, ...rest] = directivesOf(line);
    expect(rest).toEqual([]);
    expect(main).toEqual({
      Namespace: metricsNamespace,
      Dimensions: [['Stage', 'Operation'], ['Stage']],
      Metrics: [
        { Name: 'Requests', Unit: 'Count' },
        { Name: 'Latency', Unit: 'Milliseconds' },
        { Name: 'ClientErrors', Unit: 'Count' },
        { Name: 'ServerErrors', Unit: 'Count' },
      ],
    });
    expect(typeof (line._aws as { Timestamp: unknown }).Timestamp).toBe('number');
  });

  it('counts 4xx and 5xx by error code', async () => {
    const notAcceptable = await call(reader, {
      resource: '/magazines/{id}',
      params: { id: 'm1' },
      headers: { Accept: 'image/png' },
    });
    expect(notAcceptable.metrics[0]).toMatchObject({ statusCode: 406, ClientErrors: 1, ErrorCode: '40601' });
    expect(directivesOf(notAcceptable.metrics[0]!)).toContainEqual({
      Namespace: metricsNamespace,
      Dimensions: [['Stage', 'Operation', 'ErrorCode']],
      Metrics: [{ Name: 'ClientErrors', Unit: 'Count' }],
    });
    const defect = await call(reader, { resource: '/magazines/{id}', params: { id: 'defect' } });
    expect(defect.metrics[0]).toMatchObject({ statusCode: 500, ServerErrors: 1, ErrorCode: '50001' });
    expect(directivesOf(defect.metrics[0]!)).toContainEqual({
      Namespace: metricsNamespace,
      Dimensions: [['Stage', 'Operation', 'ErrorCode']],
      Metrics: [{ Name: 'ServerErrors', Unit: 'Count' }],
    });
  });

  it("counts a store's 503 by its reason", async () => {
    const { response, metrics } = await call(reader, { resource: '/magazines/{id}', params: { id: 'busy' } });
    expect(response.statusCode).toBe(503);
    expect(metrics[0]).toMatchObject({ ServerErrors: 1, StoreUnavailable: 1, Reason: 'throttled' });
    expect(directivesOf(metrics[0]!)).toContainEqual({
      Namespace: metricsNamespace,
      Dimensions: [['Stage', 'Reason']],
      Metrics: [{ Name: 'StoreUnavailable', Unit: 'Count' }],
    });
  });

  it('counts magazines created, and a mock request as a mock request only', async () => {
    const real = await call(creator, { method: 'POST', resource: '/magazines', body: { title: 't' } });
    expect(real.response.statusCode).toBe(201);
    expect(real.metrics[0]).toMatchObject({ MagazinesCreated: 1 });
    expect(directivesOf(real.metrics[0]!)).toContainEqual({
      Namespace: metricsNamespace,
      Dimensions: [['Stage']],
      Metrics: [{ Name: 'MagazinesCreated', Unit: 'Count' }],
    });
    const mock = await call(creator, {
      method: 'POST',
      resource: '/magazines',
      query: { mock: 'true' },
      body: { title: 't' },
    });
    expect(mock.response.statusCode).toBe(201);
    expect(mock.metrics[0]).toMatchObject({ MockRequests: 1 });
    expect(mock.metrics[0]).not.toHaveProperty('MagazinesCreated');
  });
});

describe("the store's faults, counted where they happen", () => {
  it('counts a transaction that lost a race and was sent again', async () => {
    const conflict = Object.assign(new Error('conflict'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'TransactionConflict' }],
    });
    const send = vi.fn().mockRejectedValueOnce(conflict).mockRejectedValueOnce(conflict).mockResolvedValue({});
    const access = tableAccess({ send } as never, 'table', Date.now() + 5_000);
    const counts = startRequestCounts();
    const { retries } = await transact(access, {});
    expect(retries).toBe(2);
    expect(counts.get('StoreConflictsRetried')).toBe(2);
  });

  it('counts a conditional update or delete that lost a race and was sent again, alike', async () => {
    const conflict = Object.assign(new Error('conflict'), { name: 'TransactionConflictException' });
    for (const [name, write] of [
      ['update', update],
      ['remove', remove],
    ] as const) {
      const send = vi.fn().mockRejectedValueOnce(conflict).mockResolvedValue({});
      const access = tableAccess({ send } as never, 'table', Date.now() + 5_000);
      const counts = startRequestCounts();
      expect(await write(access, { Key: { PK: 'P', SK: 'S' } } as never)).toBe(true);
      expect(send).toHaveBeenCalledTimes(2);
      expect(counts.get('StoreConflictsRetried'), name).toBe(1);
    }
  });

  it('counts each throttled attempt, even one the SDK retried away', async () => {
    let calls = 0;
    const dynamoDb = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        res.setHeader('Content-Type', 'application/x-amz-json-1.0');
        if (calls === 1) {
          res.statusCode = 400;
          res.end(
            JSON.stringify({
              __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
              message: 'Rate exceeded',
            }),
          );
        } else res.end(JSON.stringify({ Item: { PK: { S: 'p' }, SK: { S: 's' } } }));
      });
    });
    await new Promise<void>((listening) => dynamoDb.listen(0, '127.0.0.1', listening));
    try {
      const { port } = dynamoDb.address() as AddressInfo;
      process.env.AWS_ACCESS_KEY_ID ??= 'local';
      process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
      const client = createDocumentClient({
        settings: { dynamoDbEndpoint: `http://127.0.0.1:${port}`, region: 'eu-west-1' },
      });
      const counts = startRequestCounts();
      const item = await tableAccess(client, 'table', Date.now() + 5_000).get({ PK: 'p', SK: 's' });
      expect(item).toEqual({ PK: 'p', SK: 's' });
      expect(calls).toBe(2);
      expect(counts.get('StoreThrottled')).toBe(1);
    } finally {
      await new Promise((closed) => dynamoDb.close(closed));
    }
  });
});
