/**
 * The credentials every deployed function signs with, put in place of the SDK's default chain
 * (`@aws-sdk/credential-provider-node`) when a function is bundled (`credentialChain` in
 * infra/bundling.ts); nothing imports this module by name.
 *
 * Lambda hands a function its role's credentials in the environment, which is the default chain's
 * first link, so the chain never goes past it in Lambda, under `sam local invoke` (which sets them
 * from the caller's profile) or under `npm start -- --bundled`. Its other links (profiles, SSO,
 * processes, web identity, instance metadata) and the STS and SSO clients they load are about
 * 130 KiB of every bundle and took about 10 ms of every cold start: list-magazines' import and
 * first call 64.9 against 55.9 ms of CPU, get-magazine's 56.4 against 46.0 ms (8 fresh processes
 * each, DynamoDB answered in process; `npm run bench` has the figures).
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

type Init = Parameters<typeof fromEnv>[0];
type Credentials = Awaited<ReturnType<ReturnType<typeof fromEnv>>>;

/** Read again this long before they expire, as the default chain does (only when the environment says when). */
const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * The default chain's name and signature, so that the SDK clients' runtime config takes it
 * unchanged. Like the chain, it keeps what it read: the SDK asks its provider before every call.
 */
export const defaultProvider = (init: Init = {}) => {
  const fromEnvironment = fromEnv(init);
  let kept: Promise<Credentials> | undefined;
  const read = async () => {
    try {
      return await fromEnvironment();
    } catch (error) {
      kept = undefined;
      throw new Error(
        'No AWS credentials in the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY): a bundled function reads only those, as Lambda sets them.',
        { cause: error },
      );
    }
  };
  return async (): Promise<Credentials> => {
    kept ??= read();
    const credentials = await kept;
    if (credentials.expiration && credentials.expiration.getTime() - Date.now() < REFRESH_BEFORE_MS) {
      kept = read();
      return kept;
    }
    return credentials;
  };
};
