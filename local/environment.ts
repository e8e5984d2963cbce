import { randomBytes } from 'node:crypto';
import { devNull } from 'node:os';
import { ConfigError, isLocalEndpoint, notLocal, readStoreConfig } from '../shared/config';
import {
  type DynamoDbLocalOptions,
  localCredentials,
  localDynamoDbClient,
  localRegion,
  startDynamoDbLocal,
} from './dynamodb-local';
import { ensureTable } from './ensure-table';

/**
 * The environment the handlers run in on this machine, in place: DynamoDB named, its table
 * ready, AWS credentials replaced by local ones. Only `prepareLocalEnvironment` makes one, and
 * handlers are loaded only with one in hand (see `sourceHandlers`, `bundledHandlers`), so no
 * handler can read its settings before they exist.
 */
class PreparedEnvironment {
  // A private field makes the type nominal: nothing but `prepareLocalEnvironment` makes one.
  readonly #prepared = true;

  constructor(
    readonly endpoint: string,
    readonly tableName: string,
    /** Whether the table had to be created. */
    readonly table: 'created' | 'existed',
    /** Settings of the handlers, as set in this process's environment. */
    readonly variables: Readonly<Record<string, string>>,
    /** The DynamoDB Local started here, if one was. */
    private readonly dynamoDbLocal: { stop(): Promise<void> } | undefined,
  ) {}

  get startedDynamoDbLocal(): boolean {
    return this.#prepared && this.dynamoDbLocal !== undefined;
  }

  /** Stops the DynamoDB Local started here, if one was. */
  async stop(): Promise<void> {
    await this.dynamoDbLocal?.stop();
  }
}

export type LocalEnvironment = PreparedEnvironment;

export interface LocalEnvironmentOptions extends DynamoDbLocalOptions {
  /** Use this DynamoDB instead of `DYNAMODB_ENDPOINT` or a DynamoDB Local started here. */
  readonly endpoint?: string;
  /** The table (else `TABLE_NAME`, else `magazines`). */
  readonly tableName?: string;
  /** Further settings of the handlers, such as `MOCK_ENABLED` or `BASE_URL`. */
  readonly settings?: Readonly<Record<string, string>>;
  readonly onStartingDynamoDbLocal?: () => void;
  /** Give the table its stream (the folder reads it); on unless a test runs no folder. */
  readonly stream?: boolean;
}

/** Variables through which the SDK would find real credentials, another account's profile, or another kind of endpoint. */
const AWS_SHELL_SETTINGS = [
  'AWS_USE_FIPS_ENDPOINT',
  'AWS_USE_DUALSTACK_ENDPOINT',
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_DEFAULT_PROFILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
];

/** The handlers' own settings as the shell gives them, so that source and bundled handlers both see them. */
const HANDLER_SETTINGS = ['MOCK_ENABLED', 'BASE_URL', 'LOG_LEVEL', 'CURSOR_KEY', 'METRICS'] as const;
const handlerSettingsOf = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(HANDLER_SETTINGS.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));

/**
 * Names the DynamoDB the handlers use (the one given, else `DYNAMODB_ENDPOINT`, else a DynamoDB
 * Local started here), refuses an AWS endpoint, sets the handlers' settings in this process's
 * environment with local credentials in place of any real ones, and creates the table from the
 * shared definition. Everything the handlers read is in place when it resolves.
 */
export const prepareLocalEnvironment = async (options: LocalEnvironmentOptions = {}): Promise<LocalEnvironment> => {
  const {
    endpoint: givenEndpoint,
    tableName,
    settings = {},
    onStartingDynamoDbLocal,
    stream: _stream,
    ...dynamoDbLocalOptions
  } = options;
  const given = givenEndpoint ?? process.env.DYNAMODB_ENDPOINT;
  if (given && !isLocalEndpoint(given)) throw new ConfigError(`${notLocal(given)} Unset it to start DynamoDB Local.`);
  if (!given) onStartingDynamoDbLocal?.();
  const dynamoDbLocal = given ? undefined : await startDynamoDbLocal(dynamoDbLocalOptions);
  const endpoint = given || dynamoDbLocal!.endpoint;

  const variables: Record<string, string> = {
    // One key for the server's run, shared by its handlers in this process and in workers.
    CURSOR_KEY: randomBytes(32).toString('base64url'),
    ...handlerSettingsOf(process.env),
    ...settings,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
    // DynamoDB Local keeps one database for all regions (-sharedDb); one region keeps the SDK's signing plain.
    AWS_REGION: localRegion,
    ...(tableName && { TABLE_NAME: tableName }),
  };
  for (const name of AWS_SHELL_SETTINGS) delete process.env[name];
  // The shell's AWS config and credentials files hold nothing for a local DynamoDB (profiles, FIPS or dual-stack endpoints).
  Object.assign(process.env, variables, { AWS_CONFIG_FILE: devNull, AWS_SHARED_CREDENTIALS_FILE: devNull });

  const client = localDynamoDbClient(endpoint);
  try {
    // The handlers' own reading of their settings: were anything amiss, it fails here, at start.
    const store = readStoreConfig();
    const table = await ensureTable(client, store.tableName, { stream: options.stream ?? true });
    return new PreparedEnvironment(
      endpoint,
      store.tableName,
      table,
      { ...variables, TABLE_NAME: store.tableName },
      dynamoDbLocal,
    );
  } catch (error) {
    await dynamoDbLocal?.stop();
    throw error;
  } finally {
    client.destroy();
  }
};
