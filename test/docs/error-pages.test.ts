import { describe, expect, it } from 'vitest';
import { handler as getErrorPage } from '../../functions/get-error-page';
import { handler as listErrorPages } from '../../functions/list-error-pages';
import { escapeHtml } from '../../shared/docs/html';
import { errorCatalogue, errorCodes } from '../../shared/http/error-catalogue';
import { QUOTA_RETRY_AFTER_SECONDS } from '../../shared/http/gateway-errors';
import { errorGuide } from '../../shared/openapi/error-guide';
import { invoke } from '../support/proxy-event';

const html = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

describe('error documentation', () => {
  it.each(errorCodes.map((code) => [code]))(
    'has a page for %s saying what happened, why, how to fix it, with an example response',
    async (code) => {
      const response = await invoke(getErrorPage, {
        resource: '/v1/documentation/errors/{errorCode}',
        params: { errorCode: `${code}.html` },
      });
      expect(response.status).toBe(200);
      expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
      // Pages are over the compression size: their bytes follow Accept-Encoding too.
      expect(response.headers.Vary).toBe('Accept, Accept-Encoding');
      const entry = { ...errorCatalogue[code], ...errorGuide[code] };
      expect(response.body).toMatch(/^<!doctype html>/);
      expect(response.body).toContain(`<title>Error ${code}: ${escapeHtml(entry.title)}</title>`);
      expect(response.body).toContain(html(entry.cause));
      expect(response.body).toContain(html(entry.fix));
      expect(response.body).toContain(`HTTP/1.1 ${entry.status}`);
      // The example shows the header a client must read to retry, where the error carries one.
      if ([409, 429, 503].includes(entry.status)) expect(response.body).toMatch(/\nRetry-After: [1-9]\d*\n/);
      else expect(response.body).not.toContain('Retry-After');
      expect(response.body).toContain(`&quot;errorCode&quot;: &quot;${code}&quot;`);
      expect(response.body).toContain(`https://api.example.com/v1/documentation/errors/${code}.html`);
      expect(response.body).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
    },
  );

  it("shows the quota's Retry-After as API Gateway sends it, not a second", async () => {
    const response = await invoke(getErrorPage, {
      resource: '/v1/documentation/errors/{errorCode}',
      params: { errorCode: '42902.html' },
    });
    expect(response.body).toContain(`Retry-After: ${QUOTA_RETRY_AFTER_SECONDS}\n`);
  });

  it('lists every code in the index, each linking to its page', async () => {
    for (const resource of ['/v1/documentation/errors', '/documentation/errors', '/api/v1/documentation/errors']) {
      const response = await invoke(listErrorPages, { resource, path: `${resource}/` });
      expect(response.status).toBe(200);
      expect(response.headers['Content-Type']).toBe('text/html; charset=utf-8');
      for (const code of errorCodes)
        expect(response.body).toContain(`href="https://api.example.com/v1/documentation/errors/${code}.html"`);
    }
  });

  it.each([['40402'], ['99999.html'], ['40402.htm'], ['abc.html']])(
    'answers %s with 404 40405 in the error object',
    async (segment) => {
      const response = await invoke(getErrorPage, {
        resource: '/v1/documentation/errors/{errorCode}',
        params: { errorCode: segment },
      });
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({
        errorCode: '40405',
        moreInfo: 'https://api.example.com/v1/documentation/errors/40405.html',
      });
      expect(String(response.json?.developerMessage)).toContain(segment);
    },
  );
});
