/** Deployment settings: every environment variable the functions read, read once when one starts. */

const flag = (value: string | undefined, fallback: boolean) =>
  value === undefined || value === '' ? fallback : !['false', '0', 'no', 'off'].includes(value.toLowerCase());

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

export interface Config {
  /** DynamoDB table holding every item of the API; unset in a Lambda function deployed without one. */
  readonly tableName: string | undefined;
  /** Whether `mock` requests are answered (the testing server) or refused (production). */
  readonly mockEnabled: boolean;
  /** Fixed `{base_url}`; when unset, it is taken from the request (API Gateway domain and stage). */
  readonly baseUrl: string | undefined;
  /** DynamoDB Local (or another endpoint); unset in AWS, where the SDK finds the service itself. */
  readonly dynamoDbEndpoint: string | undefined;
  readonly region: string;
  readonly logLevel: LogLevel;
}

/** Locally `TABLE_NAME` defaults to `magazines`; in Lambda (`AWS_LAMBDA_FUNCTION_NAME` set) it has no default. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const inLambda = Boolean(env.AWS_LAMBDA_FUNCTION_NAME);
  const logLevel = (env.LOG_LEVEL?.toUpperCase() ?? 'INFO') as LogLevel;
  return {
    tableName: env.TABLE_NAME || (inLambda ? undefined : 'magazines'),
    mockEnabled: flag(env.MOCK_ENABLED, true),
    baseUrl: env.BASE_URL?.replace(/\/+$/, '') || undefined,
    dynamoDbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    logLevel: LOG_LEVELS.includes(logLevel) ? logLevel : 'INFO',
  };
};

export const config = readConfig();

/** For the modules that use the table: a function deployed without one fails at start, not on a request. */
export const requiredTableName = (settings: Config = config): string => {
  if (!settings.tableName) throw new Error('TABLE_NAME is not set: this function needs the table and has none.');
  return settings.tableName;
};
