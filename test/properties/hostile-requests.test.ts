import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanTable } from '../integration/expect-api';
import { contractProblems } from '../support/contract';
import { type LocalApi, startLocalApi } from '../support/local-api';
import {
  type HostileCase,
  hostileCase,
  isMock,
  isWriteRequest,
  negotiatedFormat,
  SEEDED_IDS,
  SEEDED_WITH_ARTICLES,
  SPEC_ACCEPT,
} from '../support/properties/hostile';
import {
  casesFor,
  type Figures,
  fuzzSettings,
  newFigures,
  runProperty,
  Violation,
  type ViolationKind,
} from '../support/properties/run';
import {
  errorObjectProblems,
  leaksOf,
  sendWire,
  type WireRequest,
  type WireResponse,
} from '../support/properties/wire';

/**
 * (a) Hostile requests over every route, prefix, label and method of the route table: none is
 * answered with a 5xx, every 4xx is the error object (in XML where XML was asked for), no
 * response shows an internal name, every response is one the published document describes, and
 * a write the API refuses (or a rehearsal with `mock`) changes no item of the table (scanned
 * before and after each one) and, at the end, nothing a client can see.
 */

const settings = fuzzSettings();
/** Half of a fuzz run's requests: one generated request each (the reads that check a write are not counted). */
const numRuns = casesFor(0.5, 220, settings);
const figures: Figures = newFigures('hostile requests');

let api: LocalApi;

const get = (path: string) => sendWire(api.baseUrl, { method: 'GET', path, headers: [['Accept', SPEC_ACCEPT]] });

/** A seeding request; a 503 (a machine too busy for the store's deadline) is sent again after its Retry-After. */
const expectStatus = async (request: WireRequest, status: number) => {
  for (let attempt = 1; ; attempt++) {
    const response = await sendWire(api.baseUrl, request);
    if (response.status === status) return;
    if (response.status !== 503 || attempt >= 5)
      throw new Error(`Seeding: ${request.method} ${request.path} answered ${response.status}: ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers['retry-after'] ?? 1)));
  }
};

/** The magazines the hostile writes aim at, two of them with articles. */
const seed = async () => {
  await expectStatus({ method: 'DELETE', path: '/magazines' }, 200);
  const magazines = SEEDED_IDS.map((id, i) => ({
    id,
    title: `Seeded ${i} ☃`,
    tags: i % 2 === 0 ? [{ name: 'News' }, { id: 'art-design', name: 'Art & Design' }] : [{ name: 'Science' }],
    created: 1_550_000_000 + i * 40_000_000,
  }));
  await expectStatus(
    {
      method: 'PUT',
      path: '/magazines',
      headers: [['Content-Type', 'application/json']],
      body: JSON.stringify(magazines),
    },
    200,
  );
  for (const id of SEEDED_WITH_ARTICLES) {
    const article = {
      title: 'Seeded article',
      author_first_name: 'Ada',
      author_last_name: 'Lovelace',
      author_email: 'ada@example.com',
      date: '2024-02-29',
      text: 'Text.',
    };
    await expectStatus(
      {
        method: 'POST',
        path: `/magazines/${id}/articles`,
        headers: [['Content-Type', 'application/json']],
        body: JSON.stringify(article),
      },
      201,
    );
  }
};

/** What clients see of the data: the list with its count and version, the tags, the articles of the seeded magazines. */
const snapshot = async (): Promise<string[]> => {
  const views = [
    '/magazines?limit=100',
    '/tags?limit=100',
    ...SEEDED_IDS.map((id) => `/magazines/${id}/articles?limit=100`),
  ];
  const responses = await Promise.all(views.map(get));
  return responses.map(
    (r, i) => `${views[i]} → ${r.status} ${r.headers.etag ?? ''} ${r.headers['last-modified'] ?? ''}\n${r.text}`,
  );
};

let baseline: string[] = [];

beforeAll(async () => {
  api = await startLocalApi({ env: { LOG_LEVEL: 'ERROR' } });
  await seed();
  baseline = await snapshot();
});

afterAll(async () => {
  await api?.close();
});

const describeRequest = (request: WireRequest) => {
  const body = request.body === undefined ? '' : Buffer.from(request.body).toString('utf8');
  return `${request.method} ${request.path}\n${(request.headers ?? []).map(([n, v]) => `${n}: ${v.slice(0, 200)}`).join('\n')}${body ? `\n\n${body.slice(0, 300)}${body.length > 300 ? `… (${body.length} characters)` : ''}` : ''}`;
};

const describeResponse = (response: WireResponse) =>
  `${response.status}\n${Object.entries(response.headers)
    .map(([n, v]) => `${n}: ${v}`)
    .join('\n')}\n\n${response.text.slice(0, 600)}`;

/** The table itself, item by item: a refused write must not have written anything, even where no client looks. */
const table = async () => JSON.stringify(await scanTable(api.documentClient, api.tableName));

const check = async (hostile: HostileCase, pass: 'count' | 'shrink') => {
  const { request } = hostile;
  const write = isWriteRequest(request);
  const itemsBefore = write ? await table() : '';
  const response = await sendWire(api.baseUrl, request, pass === 'count' ? figures : undefined);
  if (pass === 'count') figures.cases += 1;
  const problems: { kind: ViolationKind; what: string }[] = [];
  if (response.status >= 500) problems.push({ kind: 'server error', what: `answered ${response.status}` });
  const leaks = leaksOf(response, api.tableName);
  if (leaks.length > 0) problems.push({ kind: 'leak', what: `shows ${leaks.join(', ')}` });
  if (response.status >= 400) {
    const format = response.status === 406 ? 'json' : negotiatedFormat(request, hostile.resource);
    for (const problem of errorObjectProblems(response, api.baseUrl, format))
      problems.push({ kind: 'error object', what: problem });
  }
  // The document's checker resolves `.` and `..` segments as a URL parser does; the API routes the
  // raw path (`/tags/../magazines` is the tag `..`), so such paths are held to the other rules only.
  const dotSegments = /(^|\/)\.\.?(\/|$|\?|#)/.test(request.path.split('?')[0] ?? '');
  if (request.method !== 'OPTIONS' && !dotSegments) {
    for (const problem of contractProblems({
      method: request.method,
      path: request.path,
      status: response.status,
      headers: response.headers,
      body: response.text,
    }))
      problems.push({ kind: 'document', what: problem });
  }
  if (write) {
    const rehearsal = isMock(request);
    if (response.status < 400 && !rehearsal)
      problems.push({ kind: 'accepted', what: `a write with a defect (${hostile.defect}) was accepted` });
    const itemsAfter = await table();
    if (itemsAfter !== itemsBefore) {
      problems.push({
        kind: 'state change',
        what: `a ${rehearsal ? 'rehearsal (mock)' : `refused write (${hostile.defect})`} changed the table's items:\nbefore ${itemsBefore.slice(0, 1500)}\nafter  ${itemsAfter.slice(0, 1500)}`,
      });
      await seed();
      baseline = await snapshot();
    }
  }
  if (problems.length > 0) {
    throw new Violation(
      [...new Set(problems.map((p) => p.kind))],
      `${describeRequest(request)}\n→ ${describeResponse(response)}\nProblems:\n- ${problems.map((p) => `${p.kind}: ${p.what}`).join('\n- ')}`,
    );
  }
};

describe('hostile requests over every route, prefix, label and method', () => {
  it('get no 5xx, only the error object for a 4xx, no internal name, and change nothing when refused', {
    timeout: settings.runs === undefined ? 300_000 : 24 * 3600_000,
  }, async () => {
    await runProperty({ figures, arbitrary: hostileCase, check, numRuns, settings });
  });

  it('leave what clients see (lists, counts, versions, tags, articles) as it was before them', async () => {
    const after = await snapshot();
    const changed = after.filter((view, i) => view !== baseline[i]);
    expect(changed, 'views that changed').toEqual([]);
  });
});
