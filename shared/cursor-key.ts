/**
 * The key that signs list cursors (shared/http/cursor.ts). Whoever holds it can forge a cursor,
 * so no deployment signs with a key anyone can read: the CDK stack generates one per stage in
 * Secrets Manager and tells the list functions its ARN, never its value, and each function
 * instance reads it once. A key in an environment variable would be readable by anyone allowed to
 * read the function's configuration.
 *
 * Outside AWS (`npm start`, tests) `CURSOR_KEY` names one, else a random key is made per process:
 * a cursor never outlives the server that made it, which is what a local server needs.
 */
import { randomBytes } from 'node:crypto';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError, readConfig } from './config';
import { StoreUnavailable } from './domain/errors';
import { CALL_ATTEMPT_MS, CALL_ATTEMPTS, CONNECTION_MS } from './timing';

let client: SecretsManagerClient | undefined;

const readSecret = async (secretId: string): Promise<string> => {
  client ??= new SecretsManagerClient({
    maxAttempts: CALL_ATTEMPTS,
    requestHandler: { requestTimeout: CALL_ATTEMPT_MS, connectionTimeout: CONNECTION_MS, throwOnRequestTimeout: true },
  });
  let secret: string | undefined;
  try {
    secret = (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    // A request that cannot sign or check its cursor cannot be served; another try, later, may.
    // Its own reason, so that the metrics and the runbook point at Secrets Manager, not DynamoDB.
    throw new StoreUnavailable('cursor-key', 1, { cause: error });
  }
  if (!secret) throw new ConfigError('The cursor key secret (CURSOR_KEY_SECRET_ARN) holds no text.');
  return secret;
};

const load = async (): Promise<string> => {
  // Read afresh, not through the cached `config()`: a handler module starts this when it is imported.
  const { cursorKey, cursorKeySecretArn } = readConfig();
  if (cursorKeySecretArn) return readSecret(cursorKeySecretArn);
  if (cursorKey) return cursorKey;
  if (process.env.AWS_LAMBDA_FUNCTION_NAME)
    throw new ConfigError('CURSOR_KEY_SECRET_ARN is not set: this function signs list cursors and has no key.');
  return randomBytes(32).toString('base64url');
};

let loading: Promise<string> | undefined;

/**
 * The key, read on first use and kept for the life of the instance. A read that failed is not
 * kept: the next request tries again.
 */
export const cursorKey = (): Promise<string> => {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
};
