import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  APPLICATION_JSON_TYPE,
  type Envelope,
  expectError,
  expectMagazineShape,
  expectVaryAccept,
  JSON_TYPE,
  type MagazineView,
  parseXml,
  sortedKeys,
  useLocalApi,
  XML_TYPE,
} from './expect-api';

const TRICKY_TITLE = `Signal & Noise <Quarterly> "quoted" 'apos'`;

const local = useLocalApi(undefined, async () => {
  const response = await local.client.put('/magazines', [
    { id: 'f1', title: TRICKY_TITLE, created: '1600000000', tags: [{ name: 'R&D' }, { id: 'lt', name: '<less>' }] },
    { id: 'f2', title: 'Plain', created: '1600000001', tags: [] },
  ]);
  expect(response.status).toBe(200);
});

const withAccept = (path: string, accept: string | null) => local.client.get(path, { headers: { Accept: accept } });

describe('which format: label, then format=, then Accept, then JSON', () => {
  it('no Accept header: JSON as text/javascript', async () => {
    const response = await withAccept('/magazines/f2', null);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expectMagazineShape(response.json());
  });

  it('the Accept clients send (application/json, text/javascript): text/javascript', async () => {
    const response = await withAccept('/magazines/f2', 'application/json, text/javascript');
    expect(response.headers['content-type']).toBe(JSON_TYPE);
  });

  it('Accept application/json only: application/json', async () => {
    const response = await withAccept('/magazines/f2', 'application/json');
    expect(response.headers['content-type']).toBe(APPLICATION_JSON_TYPE);
    expectMagazineShape(response.json());
  });

  it('Accept text/javascript only, */* and application/*: text/javascript', async () => {
    for (const accept of ['text/javascript', '*/*', 'text/html, */*;q=0.1']) {
      expect((await withAccept('/magazines/f2', accept)).headers['content-type'], accept).toBe(JSON_TYPE);
    }
  });

  it('Accept application/xml or text/xml: XML', async () => {
    for (const accept of ['application/xml', 'text/xml', 'application/json;q=0.5, application/xml']) {
      const response = await withAccept('/magazines/f2', accept);
      expect(response.headers['content-type'], accept).toBe(XML_TYPE);
      parseXml(response.text);
    }
  });

  it('format=xml beats a JSON Accept; format=json beats an XML Accept', async () => {
    expect((await withAccept('/magazines/f2?format=xml', 'application/json')).headers['content-type']).toBe(XML_TYPE);
    const json = await withAccept('/magazines/f2?format=json', 'application/xml');
    expect(json.headers['content-type']).toMatch(/^(text\/javascript|application\/json); charset=utf-8$/);
    expectMagazineShape(json.json());
  });

  it('the .xml label beats a JSON Accept (the documented example) and format=json', async () => {
    const response = await withAccept('/api/v1/magazines/f2.xml?format=json', 'application/json, text/javascript');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    parseXml(response.text);
  });

  it('the .json label beats an XML Accept and format=xml', async () => {
    const response = await withAccept('/magazines/f2.json?format=xml', 'application/xml');
    expect(response.status).toBe(200);
    expectMagazineShape(response.json());
  });

  it('every answer carries Vary: Accept', async () => {
    for (const path of [
      '/magazines',
      '/magazines/f2.xml',
      '/magazines/f2?format=xml',
      '/magazines/nope',
      '/magazines/f2.yaml',
    ]) {
      expectVaryAccept(await local.client.get(path));
    }
  });
});

describe('406 for a format the API does not have', () => {
  const JSON_ERROR = /^(text\/javascript|application\/json); charset=utf-8$/;

  it('an unknown label on /magazines/{id}: /magazines/f2.yaml', async () => {
    const response = await local.client.get('/magazines/f2.yaml');
    expect(response.headers['content-type']).toMatch(JSON_ERROR);
    expectError(response, {
      status: 406,
      baseUrl: local.api.baseUrl,
      mentions: ['yaml'],
      contentType: response.headers['content-type'],
    });
  });

  it('an unknown label on a list path: /magazines/f2/articles.yaml is no format of the API either', async () => {
    const response = await local.client.get('/magazines/f2/articles.yaml');
    expect([404, 406]).toContain(response.status);
    expectError(response, {
      status: response.status,
      baseUrl: local.api.baseUrl,
      contentType: response.headers['content-type'],
    });
  });

  it.each([
    '/magazines/f2.XML',
    '/magazines/f2.Json',
    '/tags/lt.XML',
    '/magazines.XML',
    '/tags.Xml',
    '/magazines/f2/articles.XML',
  ])(
    'a label in capitals is no label of the API on any path: %s is a 406 in JSON, even to an XML client',
    async (path) => {
      for (const [suffix, accept] of [
        ['', null],
        ['', 'application/xml'],
        ['?format=xml', null],
      ] as const) {
        const response = await withAccept(`${path}${suffix}`, accept);
        const error = expectError(response, {
          status: 406,
          baseUrl: local.api.baseUrl,
          mentions: [`\`.${path.split('.').pop()}\``, '`.json`', '`.xml`'],
          contentType: response.headers['content-type'],
        });
        expect(response.headers['content-type'], `${path}${suffix} with Accept ${accept}`).toMatch(JSON_ERROR);
        expect(error?.errorCode).toBe('40601');
      }
    },
  );

  it('format=yaml', async () => {
    const response = await local.client.get('/magazines?format=yaml');
    expect(response.headers['content-type']).toMatch(JSON_ERROR);
    expectError(response, {
      status: 406,
      baseUrl: local.api.baseUrl,
      mentions: ['format'],
      contentType: response.headers['content-type'],
    });
  });

  it('Accept: image/png', async () => {
    const response = await withAccept('/magazines', 'image/png');
    expectError(response, {
      status: 406,
      baseUrl: local.api.baseUrl,
      mentions: ['Accept'],
      contentType: response.headers['content-type'],
    });
    expect(response.headers['content-type']).toMatch(/^(text\/javascript|application\/json); charset=utf-8$/);
  });

  it('a long error object says Vary: Accept, Accept-Encoding, as any body compressed from 1,024 bytes on; a short one Vary: Accept', async () => {
    // The 406 quotes the Accept header it could not serve: a long header makes a long error object.
    const accept = Array.from({ length: 80 }, (_, i) => `image/x-type-${i}`).join(', ');
    const long = await withAccept('/magazines', accept);
    expect(long.status).toBe(406);
    expect(Buffer.byteLength(long.text)).toBeGreaterThanOrEqual(1024);
    expect(long.headers.vary).toBe('Accept, Accept-Encoding');
    const head = await local.client.head('/magazines', { headers: { Accept: accept } });
    expect(head.status).toBe(406);
    expect(head.headers.vary).toBe('Accept, Accept-Encoding');
    const short = await withAccept('/magazines', 'image/png');
    expect(Buffer.byteLength(short.text)).toBeLessThan(1024);
    expect(short.headers.vary).toBe('Accept');
  });

  it('an error from before or outside negotiation is JSON of the default JSON type: text/javascript with no Accept or the documented default Accept', async () => {
    for (const accept of [null, 'application/json, text/javascript']) {
      for (const [path, status] of [
        ['/magazines/f2.yaml', 406],
        ['/magazines?format=yaml', 406],
        ['/documentation/errors/99999.html', 404],
      ] as const) {
        const response = await withAccept(path, accept);
        expect(response.status).toBe(status);
        expect(response.headers['content-type'], `${path} with Accept ${accept}`).toBe(JSON_TYPE);
      }
    }
  });
});

describe('XML documents', () => {
  it('a magazine: <magazine> root, <tags><tag>, text escaped and round-tripping', async () => {
    const response = await local.client.get('/magazines/f1.xml');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    const doc = parseXml(response.text) as {
      magazine: {
        id: string;
        type: string;
        title: string;
        created: string;
        tags: { tag: { id: string; name: string; url: string }[] };
      };
    };
    expect(Object.keys(doc)).toEqual(['magazine']);
    expect(sortedKeys(doc.magazine)).toEqual(['created', 'id', 'tags', 'title', 'type']);
    expect(doc.magazine).toMatchObject({ id: 'f1', type: 'magazine', title: TRICKY_TITLE, created: '1600000000' });
    expect(doc.magazine.tags.tag).toEqual([
      { id: 'r-d', name: 'R&D', url: `${local.api.baseUrl}/v1/tags/r-d` },
      { id: 'lt', name: '<less>', url: `${local.api.baseUrl}/v1/tags/lt` },
    ]);
  });

  it('a list: <response> root with <metadata><resultset> and <results><magazine>', async () => {
    const response = await local.client.get('/magazines.xml?limit=1');
    expect(response.status).toBe(200);
    const doc = parseXml(response.text) as {
      response: {
        metadata: { resultset: { count: string; offset: string; limit: string } };
        results: { magazine: { id: string; tags: unknown }[] };
      };
    };
    expect(Object.keys(doc)).toEqual(['response']);
    expect(doc.response.metadata.resultset).toEqual({ count: '2', offset: '0', limit: '1' });
    expect(doc.response.results.magazine.map((m) => m.id)).toEqual(['f1']);
  });

  it('an empty list is still well formed', async () => {
    const response = await local.client.get('/magazines.xml?year=1990');
    expect(response.status).toBe(200);
    const doc = parseXml(response.text) as { response: { metadata: { resultset: { count: string } } } };
    expect(doc.response.metadata.resultset.count).toBe('0');
  });

  it('XML and JSON carry the same data', async () => {
    const json = (await local.client.get('/magazines?sort=desc')).json<Envelope<MagazineView>>();
    const xml = parseXml((await local.client.get('/magazines?sort=desc&format=xml')).text) as {
      response: { results: { magazine: { id: string; title: string }[] } };
    };
    expect(xml.response.results.magazine.map((m) => [m.id, m.title])).toEqual(json.results.map((m) => [m.id, m.title]));
  });

  it('an error in XML: <error> with the four fields', async () => {
    const response = await local.client.get('/magazines/nope.xml');
    expectError(response, { status: 404, baseUrl: local.api.baseUrl, format: 'xml', mentions: ['nope'] });
    expect(Object.keys(parseXml(response.text))).toEqual(['error']);
  });

  it('a 400 in XML when XML was asked for', async () => {
    expectError(await local.client.get('/magazines.xml?limit=0'), {
      status: 400,
      baseUrl: local.api.baseUrl,
      format: 'xml',
      mentions: ['limit'],
    });
    expectError(await withAccept('/magazines?sort=sideways', 'application/xml'), {
      status: 400,
      baseUrl: local.api.baseUrl,
      format: 'xml',
      mentions: ['sort'],
    });
  });

  it('text XML cannot carry (control characters) still gives a well-formed document', async () => {
    expect(
      (
        await local.client.put('/magazines/fctl', {
          title: 'Bell\u0007 and form\u000c feed',
          tags: [{ id: 'ctl', name: 'Tab\there' }],
        })
      ).status,
    ).toBe(201);
    const response = await local.client.get('/magazines/fctl.xml');
    expect(response.status).toBe(200);
    const doc = parseXml(response.text) as { magazine: { title: string } };
    expect(doc.magazine.title).toContain('Bell');
    expect((await local.client.delete('/magazines/fctl')).status).toBe(200);
  });

  it('a carriage return reaches an XML reader as it reaches a JSON reader, not turned into a line feed', async () => {
    const title = 'a\rb\r\nc';
    expect((await local.client.put('/magazines/fcr', { title, tags: [{ id: 'cr', name: 'x\ry' }] })).status).toBe(201);
    const response = await local.client.get('/magazines/fcr.xml');
    parseXml(response.text);
    expect(response.text).not.toContain('\r');
    // As an XML 1.0 parser reads it: a raw CR is a line end, and only `&#13;` is a CR.
    const reader = new XMLParser({ htmlEntities: true, trimValues: false, parseTagValue: false });
    const { magazine } = reader.parse(response.text) as {
      magazine: { title: string; tags: { tag: { name: string } } };
    };
    expect([magazine.title, magazine.tags.tag.name]).toEqual([title, 'x\ry']);
    expect((await local.client.get('/magazines/fcr')).json<MagazineView>().title).toBe(title);
    expect((await local.client.delete('/magazines/fcr')).status).toBe(200);
  });

  it('the answer to a create, asked for in XML, is well formed XML carrying the id', async () => {
    const response = await local.client.post('/magazines?format=xml', { id: 'fx', title: 'X' });
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe(XML_TYPE);
    expect(JSON.stringify(parseXml(response.text))).toContain('"id":"fx"');
  });
});
