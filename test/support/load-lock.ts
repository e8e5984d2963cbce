import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's load lock (`startLoadLock`). */
    loadLock: string;
  }
}

/**
 * The load tests (`runsAlone()`) write as many concurrent clients as production sees, on the one
 * DynamoDB Local of the run and two cores: beside them every other file's calls wait seconds and
 * answer 503, as they should on a store that slow. So a load test runs alone: every test file
 * holds this lock shared while it runs, a load test holds it exclusive, and a file waiting for it
 * exclusive goes before any that asks after it (the load tests are not starved).
 */
type Mode = 'shared' | 'exclusive';

/** A lock not released within this long (a worker that died) is taken back. */
const LEASE_MS = 15 * 60_000;

/** The lock's server, in the run's global set-up: its address, and how to stop it. */
export const startLoadLock = async () => {
  let shared = 0;
  let exclusive = false;
  const waiting: { readonly mode: Mode; readonly grant: () => void }[] = [];
  const grantWaiting = () => {
    for (let next = waiting[0]; next; next = waiting[0]) {
      if (exclusive || (next.mode === 'exclusive' && shared > 0)) return;
      waiting.shift();
      if (next.mode === 'exclusive') exclusive = true;
      else shared++;
      next.grant();
    }
  };
  const release = (mode: Mode) => {
    if (mode === 'exclusive') exclusive = false;
    else shared = Math.max(0, shared - 1);
    grantWaiting();
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://lock');
    const mode: Mode = url.searchParams.get('mode') === 'exclusive' ? 'exclusive' : 'shared';
    if (url.pathname === '/release') {
      release(mode);
      response.end();
      return;
    }
    waiting.push({
      mode,
      grant: () => {
        const lease = setTimeout(() => release(mode), LEASE_MS);
        lease.unref();
        response.end(JSON.stringify({ lease: LEASE_MS }));
      },
    });
    grantWaiting();
  });
  // A file may wait minutes for the load tests before it: no request timeout.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

let alone = false;

/** Called at the top of a load test file: it runs with no other test file beside it. */
export const runsAlone = () => {
  alone = true;
};

/** Every test file (vitest's setupFiles): holds the lock, shared or alone, while it runs. */
export const holdLoadLock = () => {
  let held: Mode | undefined;
  beforeAll(async () => {
    const mode: Mode = alone ? 'exclusive' : 'shared';
    await (await fetch(`${inject('loadLock')}/acquire?mode=${mode}`)).text();
    held = mode;
  }, LEASE_MS);
  afterAll(async () => {
    if (held) await fetch(`${inject('loadLock')}/release?mode=${held}`);
  });
};
