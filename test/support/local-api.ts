import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { type BackgroundTasks, startBackgroundTasks } from '../../local/background';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { prepareLocalEnvironment } from '../../local/environment';
import type { LocalEventBus } from '../../local/event-bus';
import { type HandlerLoader, sourceHandlers } from '../../local/load-handler';
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
  /**
   * Run the folder on the table's stream, as `npm start` does (off by default: most tests count
   * or inject the calls of their own requests, and readers are exact with or without it).
   */
  readonly folder?: boolean;
  /** Run the change events' publisher on the table's stream, onto a local bus (off by default). */
  readonly events?: boolean;
}

export interface LocalApi {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly baseUrl: string;
  /** A document client on the same table, to arrange or inspect data behind the API's back. */
  readonly documentClient: DynamoDBDocumentClient;
  readonly dynamoDbClient: DynamoDBClient;
  readonly tableName: string;
  readonly dynamoDbEndpoint: string;
  /** With `folder`: resolves once the folder has handled every change written so far. */
  foldersCaughtUp(): Promise<void>;
  /** With `events`: the bus the change events are put on. */
  readonly eventBus: LocalEventBus | undefined;
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
  const { DYNAMODB_ENDPOINT: throughProxy, ...env } = options.env ?? {};
  const dynamoDbEndpoint = throughProxy ?? inject('dynamoDbEndpoint');
  const settings: Record<string, string> = { MOCK_ENABLED: String(options.mockEnabled ?? true), ...env };
  const signature = JSON.stringify([dynamoDbEndpoint, ...Object.entries(settings).sort()]);
  if (workerSettings && workerSettings.signature !== signature) {
    throw new Error(
      'startLocalApi: this test file already started an API with other settings; handlers keep the settings they loaded with. Put tests that need other settings in another file.',
    );
  }
  const tableName = workerSettings?.tableName ?? `magazines-test-${randomUUID()}`;
  workerSettings = { tableName, signature };

  const before = { ...process.env };
  const environment = await prepareLocalEnvironment({
    endpoint: dynamoDbEndpoint,
    tableName,
    settings,
    stream: (options.folder ?? false) || (options.events ?? false),
  });
  const handlers = options.loadHandler ?? sourceHandlers(environment);
  const server = await startLocalServer({
    quiet: !options.logRequests,
    logErrors: options.logErrors ?? true,
    handlers,
  });
  const tasks = [...(options.folder ? ['fold-counts'] : []), ...(options.events ? ['publish-events'] : [])];
  const background: BackgroundTasks | undefined =
    tasks.length > 0
      ? await startBackgroundTasks(environment, handlers, {
          onError: (task, error) => console.error(`${task}:`, error),
          tasks,
          baseUrl: server.url,
        })
      : undefined;
  const dynamoDbClient = localDynamoDbClient(dynamoDbEndpoint);
  const documentClient = DynamoDBDocumentClient.from(dynamoDbClient, {
    marshallOptions: { removeUndefinedValues: true },
  });

  return {
    baseUrl: server.url,
    documentClient,
    dynamoDbClient,
    tableName,
    dynamoDbEndpoint,
    eventBus: background?.eventBus,
    foldersCaughtUp: async () => {
      if (!background)
        throw new Error('startLocalApi: the folder runs only with `folder: true` (the publisher with `events: true`).');
      await background.caughtUp();
    },
    close: async () => {
      await server.close();
      await background?.stop();
      documentClient.destroy();
      for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
      Object.assign(process.env, before);
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
