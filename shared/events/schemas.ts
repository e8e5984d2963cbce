/**
 * The change events' contract: a JSON Schema of each event as EventBridge delivers it to a
 * consumer's rule (`source`, `detail-type`, `detail`), published as the OpenAPI document's
 * `webhooks` (beside `/openapi.json`, linted with it). Representations refer to the document's own
 * `Magazine` and `Article` schemas, so an event shows a magazine exactly as `GET` does.
 */
import { type ChangeEventName, changeEventNames, EVENT_SOURCE } from './names';

type JsonObject = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What every event's `detail` holds besides its change: each a schema of its own, referred to by all six. */
const envelopeSchemas: Record<string, JsonObject> = {
  EventId: {
    type: 'string',
    format: 'uuid',
    description: 'The same on every delivery of the same change: deduplicate on it.',
  },
  EventOccurredAt: {
    type: 'string',
    format: 'date-time',
    description: 'When the table recorded the change (RFC 3339).',
  },
  EventRequestId: {
    type: 'string',
    description: 'The request that made the change: the `x-amzn-RequestId` its client was answered with.',
  },
  EventSequence: {
    type: 'string',
    pattern: '^[0-9]+$',
    description:
      "The change's place in the table's stream: increasing along one magazine's changes, for a consumer that must put them back in order.",
  },
};
const envelope = {
  eventId: ref('EventId'),
  occurredAt: ref('EventOccurredAt'),
  requestId: ref('EventRequestId'),
  sequence: ref('EventSequence'),
};
const magazineId = { type: 'string', description: 'The magazine the change is about.' };

const details: Record<ChangeEventName, { readonly summary: string; readonly properties: JsonObject }> = {
  MagazineCreated: {
    summary: 'A magazine was created (POST /magazines, or PUT /magazines/{id} of a new id).',
    properties: {
      magazineId,
      revision: { type: 'string', description: 'Its ETag, unquoted.' },
      magazine: ref('Magazine'),
    },
  },
  MagazineReplaced: {
    summary: 'A magazine was replaced (PUT /magazines/{id} that changed it).',
    properties: {
      magazineId,
      revision: { type: 'string', description: 'Its new ETag, unquoted.' },
      magazine: ref('Magazine'),
    },
  },
  MagazineDeleted: {
    summary: 'A magazine was deleted, with its articles (DELETE /magazines/{id}).',
    properties: {
      magazineId,
      deleted: {
        type: 'object',
        required: ['id', 'revision'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, revision: { type: 'string', description: 'Its last ETag, unquoted.' } },
      },
    },
  },
  ArticleAdded: {
    summary: 'An article was added to a magazine (POST /magazines/{id}/articles).',
    properties: { magazineId, article: ref('Article') },
  },
  CollectionReplaced: {
    summary:
      'The whole collection was replaced (PUT /magazines): one event, not one per magazine. Read the new set from `collection.href` (a list with its cursor).',
    properties: {
      collection: {
        type: 'object',
        required: ['count', 'href', 'generation'],
        additionalProperties: false,
        properties: {
          count: { type: 'integer', minimum: 1, description: 'How many magazines the new collection holds.' },
          href: {
            type: 'string',
            format: 'uri-reference',
            description: 'Where to read it: `GET {base_url}/v1/magazines`.',
          },
          generation: { type: 'string', description: 'The new collection generation (opaque).' },
        },
      },
    },
  },
  CollectionDeleted: {
    summary: 'Every magazine was deleted (DELETE /magazines, or PUT /magazines with an empty array).',
    properties: {},
  },
};

/** The JSON Schema of one event's `detail`. */
export const detailSchema = (name: ChangeEventName): JsonObject => {
  const { properties } = details[name];
  const all = { ...envelope, ...properties };
  return {
    type: 'object',
    required: Object.keys(all),
    additionalProperties: false,
    properties: all,
  };
};

/** The JSON Schema of one event as a consumer's rule target receives it from EventBridge. */
export const eventSchema = (name: ChangeEventName): JsonObject => ({
  type: 'object',
  required: ['source', 'detail-type', 'detail'],
  properties: {
    source: { const: EVENT_SOURCE },
    'detail-type': { const: name },
    detail: ref(`${name}Detail`),
    time: { type: 'string', format: 'date-time' },
    account: { type: 'string' },
    region: { type: 'string' },
    id: { type: 'string', description: "EventBridge's own id: new on each delivery; use `detail.eventId` instead." },
  },
});

/** The document's `webhooks`: one per event, as the bus would POST it to a consumer's API destination. */
export const eventWebhooks = (): JsonObject =>
  Object.fromEntries(
    changeEventNames.map((name) => [
      name,
      {
        post: {
          operationId: `on${name}`,
          summary: details[name].summary,
          description: `Put on the stack's EventBridge bus with \`source\` \`${EVENT_SOURCE}\` and \`detail-type\` \`${name}\` once the change is committed; delivered by a rule of the consumer's.`,
          tags: ['Events'],
          // Delivered by the consumer's own rule and target, which set its authentication.
          security: [],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref(`${name}Event`) } },
          },
          responses: { '200': { description: 'The consumer took the event.' } },
        },
      },
    ]),
  );

/** The schemas the webhooks refer to: each event, its `detail`, and what every `detail` holds. */
export const eventComponentSchemas = (): Record<string, JsonObject> => ({
  ...envelopeSchemas,
  ...Object.fromEntries(
    changeEventNames.flatMap((name) => [
      [`${name}Event`, { ...eventSchema(name), description: details[name].summary }],
      [`${name}Detail`, detailSchema(name)],
    ]),
  ),
});

/** The `Events` tag's description: what a consumer needs to subscribe and to catch up. */
export const eventsDescription = [
  "Every committed change is put once on the stack's EventBridge bus (`magazine-api-<stage>`), from the table's own stream, so a crash between a write and its event loses nothing.",
  `A consumer subscribes with a rule of its own on that bus, for example the pattern \`{"source": ["${EVENT_SOURCE}"], "detail-type": ["MagazineCreated", "MagazineReplaced", "MagazineDeleted"]}\`.`,
  '`detail.eventId` is the same on every delivery of one change: deduplicate on it (EventBridge delivers at least once).',
  "A magazine's events are put in commit order; `detail.sequence` increases along them, for a consumer whose target may reorder.",
  'Refused, mock and replayed requests publish nothing; a bulk replace publishes one `CollectionReplaced`, not one event per magazine.',
  'The table keeps 24 hours of changes: a consumer away for longer reads the list again (`GET /v1/magazines`, following its cursor) and then takes events from then on.',
].join(' ');
