import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DynamoDBStreamSchema } from '@aws-lambda-powertools/parser/schemas/dynamodb';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDbClient } from '../../local/dynamodb-local';
import { type LocalEnvironment, prepareLocalEnvironment } from '../../local/environment';
import { type LocalEventBus, startLocalEventBus } from '../../local/event-bus';
import { lambdaContext } from '../../local/lambda-context';
import { sourceHandlers } from '../../local/load-handler';
import { readStreamEvent } from '../../scripts/invoke';
import { allStreamEvents, eventsDir } from '../../scripts/make-events';
import { streamTasks } from '../../shared/routes/tasks';

/**
 * The stream tasks' events (events/stream/): what `npm run invoke` and `sam local invoke` feed the
 * folder and the publisher. Each must be a batch Lambda could hand over, and must name what the
 * sample create really writes, or the folder would fold lists no write makes and the publisher
 * read attributes no item has.
 */
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

describe('npm run invoke, given a stream task', () => {
  it('takes its batch from events/stream/, and says why another file is not one', () => {
    expect(readStreamEvent(path.join(streamDir, 'fold-counts.json'))).toEqual(streamEventOf('fold-counts'));
    const proxyEvent = path.join(eventsDir, 'get-magazine.json');
    expect(() => readStreamEvent(proxyEvent)).toThrow(
      `${proxyEvent} is not a DynamoDB stream event (a batch of the table's stream): \`Records\` is not an array.`,
    );
  });
});

describe('the stream events, beside what the sample create writes on DynamoDB Local', () => {
  const tableName = `stream-events-${randomUUID()}`;
  const client = localDynamoDbClient(inject('dynamoDbEndpoint'));
  let environment: LocalEnvironment;
  let bus: LocalEventBus;
  let stored: Record<string, { S?: string }>[] = [];

  beforeAll(async () => {
    // The publisher reads where its bus is when its module loads.
    bus = await startLocalEventBus();
    Object.assign(process.env, { EVENT_BUS_NAME: bus.busName, EVENTBRIDGE_ENDPOINT: bus.endpoint });
    environment = await prepareLocalEnvironment({ endpoint: inject('dynamoDbEndpoint'), tableName });
    const create = await sourceHandlers(environment)('create-magazine');
    const response = (await create(
      createEvent,
      lambdaContext('create-magazine', createEvent.requestContext.requestId),
    )) as APIGatewayProxyResult;
    expect(response.statusCode, response.body).toBe(201);
    stored = ((await client.send(new ScanCommand({ TableName: tableName }))).Items ?? []) as typeof stored;
  });

  afterAll(async () => {
    await bus?.stop();
    client.destroy();
  });

  it.each(streamTasks.map((task) => task.handler))(
    '%s: every record is an item the create wrote, with the same attributes',
    (handler) => {
      for (const record of streamEventOf(handler).Records) {
        const keys = record.dynamodb!.Keys!;
        const sk = keys.SK!.S!;
        // A ticket's sort key holds its time and a random token: the same partition and kind of key.
        const item = stored.find(
          (candidate) =>
            candidate.PK?.S === keys.PK!.S &&
            (sk.startsWith('#T') ? candidate.SK?.S?.startsWith('#T') : candidate.SK?.S === sk),
        );
        expect(item, `${keys.PK!.S} ${sk}`).toBeDefined();
        expect(Object.keys(record.dynamodb!.NewImage!).sort(), sk).toEqual(Object.keys(item!).sort());
      }
    },
  );

  it('fold-counts folds the lists its batch names', async () => {
    const fold = await sourceHandlers(environment)('fold-counts');
    const event = streamEventOf('fold-counts');
    const lists = new Set(event.Records.map((record) => record.dynamodb!.Keys!.PK!.S));
    expect(await fold(event as never, lambdaContext('fold-counts', randomUUID()))).toMatchObject({
      lists: lists.size,
    });
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
