import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultProvider } from '../../shared/lambda-credentials';

/** The credential chain a bundled function signs with (in place of the SDK's default chain). */
describe('the credentials of a bundled function', () => {
  let server: Server | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  const environment = (accessKeyId: string, expiresInMs?: number) => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', accessKeyId ? 'secret' : '');
    vi.stubEnv('AWS_SESSION_TOKEN', accessKeyId ? 'token' : '');
    vi.stubEnv(
      'AWS_CREDENTIAL_EXPIRATION',
      expiresInMs === undefined ? '' : new Date(Date.now() + expiresInMs).toISOString(),
    );
  };

  /** A container credentials endpoint, as Lambda runs one under SnapStart; counts what it is asked. */
  const endpoint = async () => {
    const asked = { count: 0 };
    server = createServer((_request, response) => {
      asked.count++;
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          AccessKeyId: 'ASIACONTAINER',
          SecretAccessKey: 'container-secret',
          Token: 'container-token',
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    vi.stubEnv('AWS_CONTAINER_CREDENTIALS_FULL_URI', `http://127.0.0.1:${port}/credentials`);
    vi.stubEnv('AWS_CONTAINER_AUTHORIZATION_TOKEN', 'lambda-token');
    return asked;
  };

  it("are the role's credentials that Lambda puts in the environment", async () => {
    environment('ASIAEXAMPLE');
    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
    });
  });

  it('are refused with a message that says where they are read from, when the environment has none', async () => {
    environment('');
    vi.stubEnv('AWS_CONTAINER_CREDENTIALS_FULL_URI', '');
    vi.stubEnv('AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', '');
    vi.stubEnv('AWS_PROFILE', 'someone');
    await expect(defaultProvider()()).rejects.toThrow(/No AWS credentials: .*AWS_ACCESS_KEY_ID/);
  });

  it('are read once and kept, as the SDK asks for them before every call', async () => {
    environment('ASIAFIRST');
    const provider = defaultProvider();
    const first = await provider();
    environment('ASIASECOND');
    expect(await provider()).toBe(first);
  });

  it('are read again within 5 minutes of their expiry, and kept while still valid if that read fails', async () => {
    environment('ASIAFIRST', 120_000);
    const provider = defaultProvider();
    await provider();
    environment('ASIASECOND', 120_000);
    expect(await provider()).toMatchObject({ accessKeyId: 'ASIASECOND' });
    environment('');
    expect(await provider()).toMatchObject({ accessKeyId: 'ASIASECOND' });
  });

  it('are read again after a failed read, once the environment has them', async () => {
    environment('');
    const provider = defaultProvider();
    await expect(provider()).rejects.toThrow(/No AWS credentials/);
    environment('ASIALATER');
    expect(await provider()).toMatchObject({ accessKeyId: 'ASIALATER' });
  });

  it('come from the container endpoint the environment names when it holds no keys (SnapStart), asked once', async () => {
    environment('');
    const asked = await endpoint();
    const provider = defaultProvider();
    const [first, second] = await Promise.all([provider(), provider()]);
    expect(first).toMatchObject({
      accessKeyId: 'ASIACONTAINER',
      secretAccessKey: 'container-secret',
      sessionToken: 'container-token',
    });
    expect(second).toBe(first);
    expect(await provider()).toBe(first);
    expect(asked.count).toBe(1);
  });
});
