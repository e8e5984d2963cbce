import { describe, expect, it } from 'vitest';
import { expandRoutes } from '../../shared/routes/table';
import type { HttpResponse } from '../support/http';
import { articleBody, magazineBody, useLocalApi } from './expect-api';

/** Names every plain JavaScript object already has: a gateway that files client names in one breaks on them. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

const local = useLocalApi(undefined, async () => {
  expect((await local.client.post('/magazines', magazineBody({ id: 'h1', tags: [{ name: 'Science' }] }))).status).toBe(
    201,
  );
});

/** Every route the gateway has, as a request a client could send to it (mock on for writes, so that each probe meets the same state). */
const probes = expandRoutes()
  .filter((route) => route.resource !== '/{proxy+}')
  .map((route) => {
    const method = route.method === 'ANY' ? 'PATCH' : route.method;
    const path = route.resource.replace('{errorCode}', '40401.html').replace(/\{[A-Za-z]+\}/g, 'h1');
    const write = method === 'POST' || method === 'PUT' || method === 'DELETE';
    const body = path.includes('articles')
      ? articleBody()
      : method === 'PUT' && !path.includes('h1')
        ? [magazineBody({ id: 'h1' })]
        : magazineBody({ id: 'h1' });
    return { method, path, query: write ? 'mock=True' : 'limit=5', body: write ? body : undefined };
  })
  .concat([{ method: 'GET', path: '/nothing/here', query: 'limit=5', body: undefined }]);

/** The status and, for an error, its code (JSON or XML). */
const outcome = (response: HttpResponse) => [
  response.status,
  /"errorCode":"(\d+)"|<errorCode>(\d+)</.exec(response.text)?.slice(1).join('') ?? '',
];

describe('query keys and header names that every JavaScript object has', () => {
  it.each(probes)(
    '$method $path answers them as any other unknown parameter and header',
    async ({ method, path, query, body }) => {
      const send = (extraQuery: string, headers: Record<string, string>) =>
        local.client.request(method, `${path}?${query}&${extraQuery}`, {
          headers,
          ...(body !== undefined && { json: body }),
        });
      const expected = outcome(await send('unknown=1', { 'X-Unknown': '1' }));
      expect(expected[0]).toBeLessThan(500);
      for (const name of PROTOTYPE_NAMES) {
        expect(outcome(await send(`${encodeURIComponent(name)}=1`, {})), `query key ${name}`).toEqual(expected);
        expect(outcome(await send('unknown=1', { [name]: '1' })), `header ${name}`).toEqual(expected);
      }
    },
  );
});
