/** Deployment settings, read once when a function starts. */

const flag = (value: string | undefined, fallback: boolean) =>
  value === undefined || value === '' ? fallback : !['false', '0', 'no', 'off'].includes(value.toLowerCase());

export interface Config {
  /** DynamoDB table holding every item of the API. */
  readonly tableName: string;
  /** Whether `mock` requests are answered (the testing server) or refused (production). */
  readonly mockEnabled: boolean;
  /** Fixed `{base_url}`; when unset, it is taken from the request (API Gateway domain and stage). */
  readonly baseUrl: string | undefined;
}

export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => ({
  tableName: env.TABLE_NAME || 'magazines',
  mockEnabled: flag(env.MOCK_ENABLED, true),
  baseUrl: env.BASE_URL?.replace(/\/+$/, '') || undefined,
});

export const config = readConfig();
