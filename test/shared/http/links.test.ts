import { describe, expect, it } from 'vitest';
import { linksFor } from '../../../shared/http/links';
import { tagUrl } from '../../../shared/http/representations/magazine';
import { proxyEvent } from '../../support/proxy-event';

/**
 * Links and tag URLs are kept from one request to the next (an instance serves one base URL):
 * requests that alternate base URLs, and more tags than are kept, still get their own URLs.
 */
describe('links kept between requests', () => {
  const eventAt = (domainName: string, proto = 'https') => {
    const event = proxyEvent({ resource: '/tags/{id}', params: { id: 'x' } });
    // As the header normaliser hands them on.
    return {
      ...event,
      headers: { 'x-forwarded-proto': proto },
      requestContext: { ...event.requestContext, domainName },
    };
  };

  it('follow the base URL of each request', () => {
    const bases = [
      ['a.example.com', 'https'],
      ['b.example.com', 'https'],
      ['b.example.com', 'http'],
      ['a.example.com', 'https'],
    ] as const;
    for (let round = 0; round < 3; round++)
      for (const [domain, proto] of bases) {
        const links = linksFor(eventAt(domain, proto), undefined);
        expect(links.baseUrl).toBe(`${proto}://${domain}`);
        expect(tagUrl(links, 'news')).toBe(`${proto}://${domain}/v1/tags/news`);
        expect(tagUrl(links, 'a b/é')).toBe(`${proto}://${domain}/v1/tags/a%20b%2F%C3%A9`);
      }
  });

  it('write each tag its own URL, however many tags there are', () => {
    const links = linksFor(eventAt('c.example.com'), undefined);
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 2_500; i++) expect(tagUrl(links, `t${i}`)).toBe(`https://c.example.com/v1/tags/t${i}`);
  });
});
