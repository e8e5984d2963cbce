import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBStreamSchema } from '@aws-lambda-powertools/parser/schemas/dynamodb';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { type LocalEnvironment, prepareLocalEnvironment } from '../../local/environment';
import { type LocalEventBus, startLocalEventBus } from '../../local/event-bus';
import { lambdaContext } from '../../local/lambda-context';
import { sourceHandlers } from '../../local/load-handler';
import { passesFilter } from '../../local/stream-reader';
import { readStreamEvent } from '../../scripts/invoke';
import { allStreamEvents, eventFileOf, eventsDir } from '../../scripts/make-events';
import { prefixesOf, type StreamTask } from '../../shared/operation/row';
import { functionNames } from '../../shared/routes/table';
import { streamTasks } from '../../shared/routes/tasks';

/**
 * The stream tasks' events (events/stream/): what `npm run invoke` and `sam local invoke` feed the
 * folder and the publisher. Each must be a batch Lambda could hand over, and must name what the
 * sample create really writes, or the folder would fold lists no write makes and the publisher
 * read attributes no item has.
 */
type Stored = Record<string, { S?: string }>;
const byKey = (a: Stored, b: Stored) =>
  `${a.PK?.S} ${a.SK?.S}` < `${b.PK?.S} ${b.SK?.S}` ? -1 : `${a.PK?.S} ${a.SK?.S}` > `${b.PK?.S} ${b.SK?.S}` ? 1 : 0;
const streamDir = path.join(eventsDir, 'stream');
const streamEventOf = (handler: string) =>
  JSON.parse(readFileSync(path.join(streamDir, `${handler}.json`), 'utf8')) as DynamoDBStreamEvent;
const createEvent = JSON.parse(
  readFileSync(path.join(eventsDir, 'create-magazine.json'), 'utf8'),
) as APIGatewayProxyEvent;

describe('events/stream/', () => {
  it('holds one batch per stream task, as `npm run events` writes it, in the form Lambda hands it over', () => {
    expect(readdirSync(streamDir).sort()).toEqual(streamTasks.map((task) => `${task.handler}.json`).sort());
    for (const [handler, event] of Object.entries(allStreamEvents())) {
      expect(streamEventOf(handler), handler).toEqual(event);
      expect(DynamoDBStreamSchema.safeParse(event).error, handler).toBeUndefined();
      expect(event.Records.length, handler).toBeGreaterThan(0);
    }
  });
});

describe('the sample events', () => {
  it('include one for every function, where npm run invoke and npm run logical-ids look for it', () => {
    for (const handler of functionNames()) expect(existsSync(eventFileOf(handler)), handler).toBe(true);
  });
});

describe('npm run invoke, given a stream task', () => {
  it('takes its batch from events/stream/, and says why another file is not one', () => {
    expect(readStreamEvent(path.join(streamDir, 'fold-counts.json'))).toEqual(streamEventOf('fold-counts'));
    const proxyEvent = path.join(eventsDir, 'get-magazine.json');
    const refusal = (file: string) => `${file} is not a DynamoDB stream event (a batch of the table's stream): `;
    expect(() => readStreamEvent(proxyEvent)).toThrow(`${refusal(proxyEvent)}\`Records\` is not an array.`);
    const dir = mkdtempSync(path.join(tmpdir(), 'stream-event-'));
    const file = (name: string, event: unknown) => {
      writeFileSync(path.join(dir, name), JSON.stringify(event));
      return path.join(dir, name);
    };
    const empty = file('empty.json', { Records: [] });
    expect(() => readStreamEvent(empty)).toThrow(`${refusal(empty)}\`Records\` is empty`);
    // Keys written plainly would name no list: the folder would fold nothing and say nothing.
    const plain = file('plain.json', {
      Records: [{ eventName: 'INSERT', dynamodb: { Keys: { PK: 'G#0#L#ALL', SK: '#T1' } } }],
    });
    expect(() => readStreamEvent(plain)).toThrow(
      `${refusal(plain)}\`Records[0]\` has no \`eventName\`, or no \`dynamodb.Keys\` with \`PK\` and \`SK\` as \`{"S": …}\`.`,
    );
  });
});

describe('the stream events, beside what the sample create writes on DynamoDB Local', () => {
  const tableName = `stream-events-${randomUUID()}`;
  const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
  let environment: LocalEnvironment;
  let bus: LocalEventBus;
  let stored: Stored[] = [];

  const scan = async () => ((await client.send(new ScanCommand({ TableName: tableName }))).Items ?? []) as Stored[];

  beforeAll(async () => {
    // The publisher reads where its bus is when its module loads.
    bus = await startLocalEventBus();
    Object.assign(process.env, { EVENT_BUS_NAME: bus.busName, EVENTBRIDGE_ENDPOINT: bus.endpoint });
    environment = await prepareLocalEnvironment({ endpoint: inject('dynamoDbEndpoint'), tableName });
    const create = await sourceHandlers(environment)('create-magazine');
    // At the sample request's time, as the samples are made: the created date and the tickets' times follow it.
    vi.useFakeTimers({ now: createEvent.requestContext.requestTimeEpoch, toFake: ['Date'] });
    try {
      const response = (await create(
        createEvent,
        lambdaContext('create-magazine', createEvent.requestContext.requestId),
      )) as APIGatewayProxyResult;
      expect(response.statusCode, response.body).toBe(201);
    } finally {
      vi.useRealTimers();
    }
    stored = await scan();
  });

  afterAll(async () => {
    await bus?.stop();
    client.destroy();
  });

  /** What a write makes afresh each time (ids, tokens), left out of the comparison. */
  const fresh = new Set(['revision', 'incarnation', 'writeToken']);
  const settled = (image: Stored): Stored =>
    Object.fromEntries(
      Object.entries(image).map(([name, value]) => [
        name,
        // A ticket's sort key ends with its write's random token.
        fresh.has(name)
          ? { S: 'fresh' }
          : name === 'SK' && value.S?.startsWith('#T')
            ? { S: value.S.replace(/#[^#]+$/, '#…') }
            : value,
      ]),
    );

  it.each(streamTasks.map((task) => task as StreamTask))(
    '$handler: one record for each item the create wrote that its filter passes, holding that item',
    (task) => {
      const passing = stored.filter((item) =>
        passesFilter(
          { eventName: 'INSERT', dynamodb: { Keys: { PK: item.PK, SK: item.SK } } } as never,
          prefixesOf(task),
          task.changes,
        ),
      );
      const records = streamEventOf(task.handler).Records;
      expect(passing.length, task.handler).toBeGreaterThan(0);
      expect(records.map((record) => settled(record.dynamodb!.NewImage as Stored)).sort(byKey)).toEqual(
        passing.map(settled).sort(byKey),
      );
      for (const { dynamodb } of records)
        expect(dynamodb!.Keys).toEqual({ PK: dynamodb!.NewImage!.PK, SK: dynamodb!.NewImage!.SK });
    },
  );

  it('fold-counts folds the tickets of the lists its batch names', async () => {
    const fold = await sourceHandlers(environment)('fold-counts');
    const event = streamEventOf('fold-counts');
    const tickets = async () => (await scan()).filter((item) => item.SK?.S?.startsWith('#T')).length;
    const before = await tickets();
    const result = (await fold(event as never, lambdaContext('fold-counts', randomUUID()))) as { folded: number };
    expect(result).toMatchObject({ lists: new Set(event.Records.map((record) => record.dynamodb!.Keys!.PK!.S)).size });
    expect(result.folded).toBeGreaterThan(0);
    expect(await tickets()).toBe(before - result.folded);
  });

  it("publish-events puts the sample magazine's creation on the bus, with the create's request id", async () => {
    const publish = await sourceHandlers(environment)('publish-events');
    expect(
      await publish(streamEventOf('publish-events') as never, lambdaContext('publish-events', randomUUID())),
    ).toEqual({ events: 1 });
    expect(bus.events).toEqual([
      expect.objectContaining({
        'detail-type': 'MagazineCreated',
        detail: expect.objectContaining({
          magazineId: 'sample-magazine',
          requestId: createEvent.requestContext.requestId,
        }),
      }),
    ]);
  });
});
