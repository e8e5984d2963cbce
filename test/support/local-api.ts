import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { localCredentials, localDynamoDbClient, localRegion } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/ensure-table';
import type { HandlerLoader } from '../../local/load-handler';
import { startLocalServer } from '../../local/server';

export interface LocalApiOptions {
  /** `MOCK_ENABLED` for the handlers; on by default, as on the testing server. */
  readonly mockEnabled?: boolean;
  /** Further environment for the handlers, such as `BASE_URL`. */
  readonly env?: Readonly<Record<string, string>>;
  /** Print one line per request (off by default, to keep test output readable). */
  readonly logRequests?: boolean;
  /** Print why a request ended in a 502 (on by default: it is the handler's stack trace). */
  readonly logErrors?: boolean;
  /** Replace how handlers are loaded (tests of the local server itself). */
  readonly loadHandler?: HandlerLoader;
}

export interface LocalApi {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly baseUrl: string;
  /** A document client on the same table, to arrange or inspect data behind the API's back. */
  readonly documentClient: DynamoDBDocumentClient;
  readonly dynamoDbClient: DynamoDBClient;
  readonly tableName: string;
  readonly dynamoDbEndpoint: string;
  close(): Promise<void>;
}

/**
 * Handlers read their settings when their module loads, and a test file's worker loads each
 * handler once; so a worker's settings are fixed by its first API. A second API in the same file
 * shares the first one's table and must ask for the same settings.
 */
let workerSettings: { readonly tableName: string; readonly signature: string } | undefined;

/**
 * The whole API on a local port over a fresh table on the run's DynamoDB Local (started by
 * `test/support/global-setup.ts`). One per test file: start it in `beforeAll`, close it in `afterAll`.
 */
export const startLocalApi = async (options: LocalApiOptions = {}): Promise<LocalApi> => {
  const dynamoDbEndpoint = inject('dynamoDbEndpoint');
  const env: Record<string, string> = {
    DYNAMODB_ENDPOINT: dynamoDbEndpoint,
    AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
    AWS_REGION: localRegion,
    MOCK_ENABLED: String(options.mockEnabled ?? true),
    ...options.env,
  };
  const signature = JSON.stringify(Object.entries(env).sort());
  if (workerSettings && workerSettings.signature !== signature) {
    throw new Error('startLocalApi: this test file already started an API with other settings; handlers keep the settings they loaded with. Put tests that need other settings in another file.');
  }
  const tableName = workerSettings?.tableName ?? `magazines-test-${randomUUID()}`;
  workerSettings = { tableName, signature };

  const dynamoDbClient = localDynamoDbClient(dynamoDbEndpoint);
  await ensureTable(dynamoDbClient, tableName);

  // Before the server imports any handler: shared/config.ts and shared/db read them at load.
  const previous = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries({ ...env, TABLE_NAME: tableName })) {
    previous.set(name, process.env[name]);
    process.env[name] = value;
  }

  const server = await startLocalServer({
    quiet: !options.logRequests,
    logErrors: options.logErrors ?? true,
    ...(options.loadHandler && { loadHandler: options.loadHandler }),
  });
  const documentClient = DynamoDBDocumentClient.from(dynamoDbClient, { marshallOptions: { removeUndefinedValues: true } });

  return {
    baseUrl: server.url,
    documentClient,
    dynamoDbClient,
    tableName,
    dynamoDbEndpoint,
    close: async () => {
      await server.close();
      documentClient.destroy();
      for (const [name, value] of previous) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
};

export interface RequestInitWithJson extends RequestInit {
  /** Sent as the body, serialised, with `Content-Type: application/json` unless another is set. */
  readonly json?: unknown;
}

/** `fetch` bound to a base URL: `const api = request(baseUrl); await api('/magazines', { json: {...}, method: 'POST' })`. */
export const request =
  (baseUrl: string) =>
  (path: string, init: RequestInitWithJson = {}): Promise<Response> => {
    const { json, ...rest } = init;
    if (json === undefined) return fetch(`${baseUrl}${path}`, rest);
    const headers = new Headers(rest.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${baseUrl}${path}`, { ...rest, headers, body: JSON.stringify(json) });
  };
