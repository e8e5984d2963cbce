/**
 * `npm run events`: writes events/<handler>.json, one API Gateway REST (payload 1.0) proxy event
 * per operation, from the route table, and events/stream/<handler>.json, one stream batch per
 * stream task (what the sample create leaves on the table's stream), for `sam local invoke -e`
 * and `npm run invoke`. `--check` only compares, and fails when the files are out of date.
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { buildProxyEvent, type Caller, signedMethods, sigV4Headers } from '../local/api-gateway-event';
import { methodNotAllowedHandler, notFoundHandler, type OperationId, operations } from '../shared/routes/table';
import { scheduledTaskOfHandler, streamTaskOfHandler } from '../shared/routes/tasks';
import { streamEvents } from './stream-events';
import { readCommandLine } from './support/cli';

interface Sample {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

const sampleMagazine = { id: 'sample-magazine', title: 'Sample Magazine', tags: [{ name: 'Sample' }] };

/** What each operation's event asks; a new operation without a sample fails the type check. */
export const samples = {
  listMagazines: { query: { limit: '5' } },
  createMagazine: { body: sampleMagazine },
  replaceAllMagazines: { body: [sampleMagazine, { id: 'second-magazine', title: 'Second Magazine', tags: [] }] },
  deleteAllMagazines: {},
  getMagazine: { params: { id: 'sample-magazine' } },
  replaceMagazine: {
    params: { id: 'sample-magazine' },
    body: { title: 'Sample Magazine, revised', tags: [{ name: 'Sample' }] },
  },
  deleteMagazine: { params: { id: 'second-magazine' } },
  listArticles: { params: { id: 'sample-magazine' } },
  createArticle: {
    params: { id: 'sample-magazine' },
    body: {
      title: 'A sample article',
      author_first_name: 'Ada',
      author_last_name: 'Lovelace',
      author_email: 'ada@example.com',
      date: '2024-05-01',
      text: 'The text of the article.',
    },
  },
  getArticle: { params: { articleId: 'sample-article' } },
  listTags: {},
  getTag: { params: { tagId: 'sample' } },
  listTagMagazines: { params: { tagId: 'sample' } },
  getDocumentation: {},
  listErrorPages: {},
  getErrorPage: { params: { errorCode: '40401.html' } },
  getOpenApi: {},
} as const satisfies Record<OperationId, Sample>;

const stage = 'dev';
const domainName = 'abcdef1234.execute-api.us-east-1.amazonaws.com';
/** The API the sample events came in to: where the links of the change events they set off point. */
export const sampleBaseUrl = `https://${domainName}/${stage}`;
/** Fixed, so that generating twice gives the same files. */
const requestTimeEpoch = 1_714_521_600_000;

const fill = (resource: string, params: Readonly<Record<string, string>> = {}) =>
  resource.replace(/\{([A-Za-z0-9_]+)\+?\}/g, (_, name: string) => params[name] ?? '');

const pairs = (values: Readonly<Record<string, string>> | undefined) => Object.entries(values ?? {});

/** The signer of the sample writes: a role session, as a publisher's temporary credentials are. */
const sampleCaller: Caller = {
  accessKey: 'ASIAXAMPLEPUBLISHER0',
  accountId: '123456789012',
  caller: 'AROAXAMPLEPUBLISHER0:publisher-session',
  userArn: 'arn:aws:sts::123456789012:assumed-role/MagazinePublisher/publisher-session',
};

export const makeEvent = (
  method: string,
  resource: string,
  sample: Sample,
  name: string,
  signed = false,
): APIGatewayProxyEvent => {
  const body = sample.body === undefined ? null : JSON.stringify(sample.body);
  const now = new Date(requestTimeEpoch);
  return buildProxyEvent({
    method,
    resource,
    path: fill(resource, sample.params),
    pathParameters: sample.params ? { ...sample.params } : null,
    headers: [
      ...pairs({
        Accept: 'application/json, text/javascript',
        'Accept-Encoding': 'gzip, deflate, br',
        Host: domainName,
        'User-Agent': 'sam-local-invoke-sample',
        ...(body !== null && { 'Content-Type': 'application/json' }),
      }),
      // SigV4, as a signing client sends it: API Gateway checked the signature and passes these on.
      ...(signed ? sigV4Headers(sampleCaller, body ?? '', now) : []),
    ],
    query: pairs(sample.query),
    body,
    stage,
    requestId: `00000000-0000-4000-8000-${String(name.length).padStart(12, '0')}`,
    now,
    sourceIp: '203.0.113.10',
    port: 443,
    scheme: 'https',
    caller: signed ? sampleCaller : undefined,
    apiId: domainName.split('.')[0],
  });
};

/** Every event file, by handler module name. */
export const allEvents = (): Record<string, APIGatewayProxyEvent> => {
  const events: Record<string, APIGatewayProxyEvent> = {};
  for (const operation of operations)
    events[operation.handler] = makeEvent(
      operation.method,
      operation.path,
      samples[operation.id],
      operation.handler,
      signedMethods.has(operation.method),
    );
  events[notFoundHandler] = makeEvent('GET', '/{proxy+}', { params: { proxy: 'magazine' } }, notFoundHandler);
  events[methodNotAllowedHandler] = makeEvent('PATCH', '/magazines', {}, methodNotAllowedHandler);
  return events;
};

export const eventsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'events');

/** The sample event of a function: a scheduled task's and a stream task's in folders of their own. */
export const eventFileOf = (handler: string) =>
  path.join(
    eventsDir,
    ...(scheduledTaskOfHandler(handler) ? ['scheduled'] : streamTaskOfHandler(handler) ? ['stream'] : []),
    `${handler}.json`,
  );

/** The stream tasks' events, by handler: the batches the sample create-magazine event sets off. */
export const allStreamEvents = () => {
  const create = allEvents()['create-magazine']!;
  return streamEvents({
    body: samples.createMagazine.body,
    requestId: create.requestContext.requestId,
    at: requestTimeEpoch,
  });
};

/** Every file `npm run events` writes, by its path. */
const allFiles = (): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries({ ...allEvents(), ...allStreamEvents() }).map(([handler, event]) => [eventFileOf(handler), event]),
  );

const main = () => {
  const { values } = readCommandLine({
    command: 'npm run events',
    usage: `Usage: npm run events [-- --check]

Writes events/<function>.json: the API Gateway REST proxy event of each operation, from the route
table, and events/stream/<function>.json: the stream batch of each stream task, what the sample
create leaves on the table's stream (for \`npm run invoke\` and \`sam local invoke\`).

Options:
  --check   write nothing; fail when a file is out of date
  --help    this text; runs nothing
`,
    options: { check: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  const check = values.check;
  const stale: string[] = [];
  for (const [file, event] of Object.entries(allFiles())) {
    const text = `${JSON.stringify(event, null, 2)}\n`;
    let current: string | undefined;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === text) continue;
    stale.push(path.relative(eventsDir, file));
    if (check) continue;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  if (check && stale.length) {
    process.stderr.write(`events/ is out of date (${stale.join(', ')}); run \`npm run events\`.\n`);
    process.exit(1);
  }
  process.stdout.write(check ? 'events/ is up to date.\n' : `Wrote ${stale.length} event file(s) in events/.\n`);
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
