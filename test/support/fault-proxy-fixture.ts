/**
 * What the fault proxy's own tests (dynamodb-faults*.test.ts) share: a table, a proxy in front of
 * DynamoDB Local, clients of it as the SDK makes them, and ways to see what was really stored.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { localCredentials, localDynamoDbClient, localRegion } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import { type FaultProxy, type RecordedCall, startFaultProxy } from './dynamodb-faults';

export const upstream = inject('dynamoDbEndpoint');
const directClient = localDynamoDbClient(upstream);
/** Straight to DynamoDB Local, to see what was really stored. */
export const direct = DynamoDBDocumentClient.from(directClient);
export const table = `faults-${randomUUID()}`;

/** The proxy every test goes through, and one that emulates transaction conflicts (live bindings, set before the first test). */
export let proxy: FaultProxy;
export let conflicting: FaultProxy;
/** Draws for `probability`, taken in order; Math.random once empty. */
export const draws: number[] = [];
const clients: DynamoDBClient[] = [];

/** The table and the two proxies for one test file, and each test's faults, calls and clients cleared after it. */
export const useFaultProxies = () => {
  beforeAll(async () => {
    await ensureTable(directClient, table, { stream: false });
    proxy = await startFaultProxy(upstream, { random: () => draws.shift() ?? Math.random() });
    conflicting = await startFaultProxy(upstream, { conflicts: { holdMs: 250 } });
  });

  afterEach(() => {
    for (const target of [proxy, conflicting]) {
      target.clearFaults();
      target.resetCalls();
      target.resetCounters();
    }
    for (const client of clients.splice(0)) client.destroy();
  });

  afterAll(async () => {
    direct.destroy();
    await proxy?.close();
    await conflicting?.close();
  });
};

interface ClientSettings {
  readonly maxAttempts?: number;
  readonly requestTimeout?: number;
  readonly via?: FaultProxy;
}

/** A low-level client of the proxy. Without `maxAttempts`, the SDK's own default retry strategy. */
export const lowLevel = (settings: ClientSettings = {}) => {
  const config: DynamoDBClientConfig = {
    endpoint: (settings.via ?? proxy).endpoint,
    region: localRegion,
    credentials: localCredentials,
    requestHandler: { requestTimeout: settings.requestTimeout ?? 2_000, throwOnRequestTimeout: true },
    ...(settings.maxAttempts === undefined ? {} : { maxAttempts: settings.maxAttempts }),
  };
  const client = new DynamoDBClient(config);
  clients.push(client);
  return client;
};

/** A document client of the proxy, as the Lambda handlers make one. */
export const sdk = (settings: ClientSettings = {}) => DynamoDBDocumentClient.from(lowLevel(settings));

export const newId = () => randomUUID().slice(0, 8);
export const key = (id: string) => ({ PK: `faults#${id}`, SK: 'item' });
export const item = (id: string, extra: Record<string, unknown> = {}) => ({ ...key(id), ...extra });
export const wireKey = (id: string) => ({ PK: { S: `faults#${id}` }, SK: { S: 'item' } });

export const stored = async (id: string) =>
  (await direct.send(new GetCommand({ TableName: table, Key: key(id), ConsistentRead: true }))).Item;

export interface SdkFailure {
  readonly name: string;
  readonly code?: string;
  readonly $fault?: string;
  readonly $metadata: { readonly httpStatusCode?: number; readonly attempts?: number };
}

export const failureOf = async (pending: Promise<unknown>): Promise<SdkFailure> => {
  try {
    await pending;
  } catch (error) {
    return error as SdkFailure;
  }
  throw new Error('Expected the call to fail.');
};

export const until = async (condition: () => boolean, timeoutMs = 2_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting for the proxy.');
    await new Promise((tick) => setTimeout(tick, 5));
  }
};

export const arrived = (target: FaultProxy, operation: string) => () =>
  target.calls().some((call) => call.operation === operation);

export const only = (calls: readonly RecordedCall[], operation: string) =>
  calls.filter((call) => call.operation === operation);
