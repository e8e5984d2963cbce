import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultProvider } from '../../shared/lambda-credentials';

/** The credential chain a bundled function signs with (in place of the SDK's default chain). */
describe('the credentials of a bundled function', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("are the role's credentials that Lambda puts in the environment", async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'token');
    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
  });

  it('are refused with a message that says where they are read from, when the environment has none', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    vi.stubEnv('AWS_PROFILE', 'someone');
    await expect(defaultProvider()()).rejects.toThrow(/No AWS credentials in the environment \(AWS_ACCESS_KEY_ID/);
  });

  it('are read once and kept, as the SDK asks for them before every call', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAFIRST');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    const provider = defaultProvider();
    const first = await provider();
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIASECOND');
    expect(await provider()).toBe(first);
  });

  it('are read again when the environment says they are about to expire', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAFIRST');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_CREDENTIAL_EXPIRATION', new Date(Date.now() + 60_000).toISOString());
    const provider = defaultProvider();
    await provider();
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIASECOND');
    expect(await provider()).toMatchObject({ accessKeyId: 'ASIASECOND' });
  });
});
