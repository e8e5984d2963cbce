/**
 * The credentials every deployed function signs with, put in place of the SDK's default chain
 * (`@aws-sdk/credential-provider-node`) when a function is bundled (`credentialChain` in
 * infra/bundling.ts); nothing imports this module by name.
 *
 * Lambda hands a function its role's credentials in the environment (on demand, provisioned, and
 * under `sam local invoke` and `npm start -- --bundled`), or, where it cannot keep them there
 * (SnapStart), at a container credentials endpoint that the environment names. Those are the
 * default chain's first and last links, and the only two kept. The others (profiles, SSO,
 * processes, web identity, instance metadata) and the STS and SSO clients they load are about
 * 130 KiB of every bundle and took about 10 ms of every cold start: list-magazines' import and
 * first call 64.9 against 55.9 ms of CPU, get-magazine's 56.4 against 46.0 ms (8 fresh processes
 * each, DynamoDB answered in process; `npm run bench` has the figures). The container endpoint's
 * reader gives 7.6 KiB of that back, and 0.5-1.1 ms (10 alternating processes): no function runs
 * under SnapStart today, but one that did would otherwise find no credentials and never start.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';

type Init = Parameters<typeof fromEnv>[0] & Parameters<typeof fromHttp>[0];
type Credentials = Awaited<ReturnType<ReturnType<typeof fromEnv>>>;

/** Read again this long before they expire, as the default chain does. */
const REFRESH_BEFORE_MS = 5 * 60_000;

const containerEndpoint = () =>
  Boolean(process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI || process.env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI);

const expiresWithin = (credentials: Credentials, ms: number) =>
  credentials.expiration !== undefined && credentials.expiration.getTime() - Date.now() < ms;

/**
 * The default chain's name and signature, so that the SDK clients' runtime config takes it
 * unchanged. Like the chain, it keeps what it read (the SDK asks before every call), reads again
 * within 5 minutes of an expiry, and keeps using what it has while that is still valid if the
 * new read fails.
 */
export const defaultProvider = (init: Init = {}) => {
  const fromEnvironment = fromEnv(init);
  // Made when first needed: it refuses to be made where the environment names no endpoint.
  let fromContainer: ReturnType<typeof fromHttp> | undefined;
  const read = async (): Promise<Credentials> => {
    try {
      if (process.env.AWS_ACCESS_KEY_ID || !containerEndpoint()) return await fromEnvironment();
      fromContainer ??= fromHttp(init);
      return await fromContainer();
    } catch (error) {
      throw new Error(
        'No AWS credentials: a bundled function reads them from its environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) or from the container endpoint it names (AWS_CONTAINER_CREDENTIALS_FULL_URI), as Lambda sets them.',
        { cause: error },
      );
    }
  };
  let kept: Credentials | undefined;
  let reading: Promise<Credentials> | undefined;
  return async (): Promise<Credentials> => {
    if (kept && !expiresWithin(kept, REFRESH_BEFORE_MS)) return kept;
    reading ??= read().finally(() => {
      reading = undefined;
    });
    try {
      kept = await reading;
      return kept;
    } catch (error) {
      if (kept && !expiresWithin(kept, 0)) return kept;
      throw error;
    }
  };
};
