/**
 * Deployment settings: every environment variable the functions read. Nothing is read when this
 * module is imported: each setting is read on first use and kept, so a script that prepares the
 * environment (starts DynamoDB Local, names its endpoint) before it loads a handler cannot be
 * overtaken by an import that froze the environment too early.
 */

const flag = (value: string | undefined, fallback: boolean) =>
  value === undefined || value === '' ? fallback : !['false', '0', 'no', 'off'].includes(value.toLowerCase());

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
export const isLogLevel = (value: string): value is LogLevel => (LOG_LEVELS as readonly string[]).includes(value);

/** What every function reads: the HTTP side of a deployment. */
interface Config {
  /** Whether `mock` requests are answered (the testing server) or refused (production). */
  readonly mockEnabled: boolean;
  /** Fixed `{base_url}`; when unset, it is taken from the request (API Gateway domain and stage). */
  readonly baseUrl: string | undefined;
  readonly logLevel: LogLevel;
  /**
   * Signs the `cursor` of list links, so that a cursor tampered with is refused (`CURSOR_KEY`):
   * for local runs only, as anyone who can read a function's configuration can read it.
   */
  readonly cursorKey: string | undefined;
  /**
   * The Secrets Manager secret that holds a deployment's cursor key (`CURSOR_KEY_SECRET_ARN`): its
   * ARN, not its value, is what a deployed function is told (shared/cursor-key.ts).
   */
  readonly cursorKeySecretArn: string | undefined;
  /** The deployment's stage (`dev`, `prod`), the `Stage` of every metric; `local` on this machine. */
  readonly stage: string;
  /**
   * Whether each request writes its metrics line (`METRICS`): on in Lambda, where CloudWatch reads
   * it; off elsewhere, where nothing does and a line per request would bury the local server's log.
   */
  readonly metricsEnabled: boolean;
}

/** What the functions that use the table read. */
export interface StoreConfig {
  readonly tableName: string;
  /** DynamoDB Local (or another endpoint); unset in AWS, where the SDK finds the service itself. */
  readonly dynamoDbEndpoint: string | undefined;
  readonly region: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const logLevel = (env.LOG_LEVEL?.toUpperCase() ?? 'INFO') as LogLevel;
  return {
    mockEnabled: flag(env.MOCK_ENABLED, true),
    baseUrl: env.BASE_URL?.replace(/\/+$/, '') || undefined,
    logLevel: LOG_LEVELS.includes(logLevel) ? logLevel : 'INFO',
    cursorKey: env.CURSOR_KEY || undefined,
    cursorKeySecretArn: env.CURSOR_KEY_SECRET_ARN || undefined,
    stage: env.STAGE || 'local',
    metricsEnabled: flag(env.METRICS, Boolean(env.AWS_LAMBDA_FUNCTION_NAME)),
  };
};

const isPrivateIpv4 = (host: string) => {
  const octets = host.split('.').map(Number);
  if (octets.length !== 4 || octets.some((octet) => !Number.isInteger(octet) || octet < 0 || octet > 255)) return false;
  const [a = 0, b = 0] = octets;
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
};

/**
 * Whether an endpoint names a DynamoDB on this machine or its private network: localhost, a
 * loopback or private address, or a single-label host name (a container's, such as
 * `dynamodb-local`). Anything else, AWS above all, is refused outside Lambda: an allow-list,
 * because a deny-list of AWS's host names can always be got round.
 */
export const isLocalEndpoint = (endpoint: string): boolean => {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host.startsWith('[')) return host === '[::1]' || /^\[f[cd][0-9a-f]{2}:/.test(host);
  if (/^[\d.]+$/.test(host)) return isPrivateIpv4(host);
  return /^[a-z0-9-]+$/.test(host);
};

export const notLocal = (endpoint: string) =>
  `DYNAMODB_ENDPOINT (${endpoint}) is not a local DynamoDB. Outside AWS Lambda the API only talks to a DynamoDB on this machine or its private network (localhost, a loopback or private address, or a container's name); deploy with \`npm run deploy\` to use AWS.`;

/**
 * In Lambda (`AWS_LAMBDA_FUNCTION_NAME` set) the table must be named and the SDK finds DynamoDB.
 * Anywhere else (`npm start`, `npm run invoke`, tests) the DynamoDB must be named by
 * `DYNAMODB_ENDPOINT` and must not be AWS: a local run that lost its endpoint fails with this
 * message instead of reading and writing whatever table the machine's AWS credentials reach.
 */
export const readStoreConfig = (env: NodeJS.ProcessEnv = process.env): StoreConfig => {
  const inLambda = Boolean(env.AWS_LAMBDA_FUNCTION_NAME);
  const endpoint = env.DYNAMODB_ENDPOINT || undefined;
  if (inLambda && !env.TABLE_NAME)
    throw new ConfigError('TABLE_NAME is not set: this function needs the table and has none.');
  if (!inLambda) {
    if (!endpoint) {
      throw new ConfigError(
        'DYNAMODB_ENDPOINT is not set. Outside AWS Lambda the API talks only to a DynamoDB named by DYNAMODB_ENDPOINT ' +
          '(`npm start` and `npm run invoke` start DynamoDB Local and set it themselves); it never falls back to AWS.',
      );
    }
    if (!isLocalEndpoint(endpoint)) throw new ConfigError(notLocal(endpoint));
  }
  return {
    tableName: env.TABLE_NAME || 'magazines',
    dynamoDbEndpoint: endpoint,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
  };
};

/**
 * How a magazine item holds its tags (`MAGAZINE_TAGS_FORM`): `string`, one `<id> <name>` a tag, 28
 * bytes less a tag on the wire than `map`, a map of `id` and `name`, which 1.0.0 wrote and is the
 * only form it reads. Every version since reads both. Unset, `string`; the CDK stack sets it from
 * `magazineTagsForm` (`map` until its operator says otherwise, docs/operations.md), so that a
 * canary or a rollback to 1.0.0 never meets a magazine it cannot read.
 */
export type MagazineTagsForm = 'string' | 'map';

export const isMagazineTagsForm = (value: unknown): value is MagazineTagsForm => value === 'string' || value === 'map';

export const readMagazineTagsForm = (env: NodeJS.ProcessEnv = process.env): MagazineTagsForm => {
  const form = env.MAGAZINE_TAGS_FORM || 'string';
  if (!isMagazineTagsForm(form))
    throw new ConfigError(`MAGAZINE_TAGS_FORM must be \`string\` or \`map\`; got \`${form}\`.`);
  return form;
};

let settings: Config | undefined;
let storeSettings: StoreConfig | undefined;
let tagsForm: MagazineTagsForm | undefined;

/** The HTTP settings, read on first use. */
export const config = (): Config => (settings ??= readConfig());

/** The store settings, read on first use; throws (and keeps nothing) while the environment is not ready. */
export const storeConfig = (): StoreConfig => (storeSettings ??= readStoreConfig());

/** How magazine writes store tags, read on first use. */
export const magazineTagsForm = (): MagazineTagsForm => (tagsForm ??= readMagazineTagsForm());
