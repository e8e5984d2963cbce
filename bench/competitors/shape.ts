import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The work every competitor of the benchmarks does, whatever routes it: the same three
 * operations as the API's (one magazine, a page of magazines in JSON or XML, a create), each one
 * DynamoDB call on a document client made as the reference handler makes it, a representation
 * with links, and a body checked by hand. Only the routing and the framework differ.
 */

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const tableName = () => process.env.TABLE_NAME ?? 'bench';
const base = 'https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1';

export interface MagazineItem {
  readonly id: string;
  readonly title: string;
  readonly tags: readonly { readonly id: string; readonly name: string }[];
  readonly created: number;
}

export class BadInput extends Error {}

const representation = (item: MagazineItem) => ({
  id: item.id,
  type: 'magazine',
  title: item.title,
  tags: item.tags.map((tag) => ({ id: tag.id, name: tag.name, url: `${base}/tags/${tag.id}` })),
  created: String(item.created),
});

export const getMagazine = async (id: string) => {
  const { Item } = await client.send(new GetCommand({ TableName: tableName(), Key: { PK: `MAG#${id}`, SK: 'MAG' } }));
  return Item ? representation(Item as MagazineItem) : undefined;
};

export const listMagazines = async (limit: number) => {
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'PK' },
      ExpressionAttributeValues: { ':pk': 'MAGAZINES' },
      Limit: limit,
    }),
  );
  return {
    metadata: { resultset: { count: Items.length, offset: 0, limit } },
    results: Items.map((item) => representation(item as MagazineItem)),
  };
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const createMagazine = async (body: unknown) => {
  if (!isObject(body) || typeof body.title !== 'string' || body.title.length < 1 || body.title.length > 256)
    throw new BadInput('`title` must be a string of 1 to 256 characters.');
  const tags = body.tags ?? [];
  if (!Array.isArray(tags) || tags.length > 32) throw new BadInput('`tags` must be an array of at most 32 tags.');
  const tagRefs = tags.map((tag: unknown) => {
    if (!isObject(tag) || typeof tag.name !== 'string') throw new BadInput('A tag must be `{"name"}`.');
    return { id: tag.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), name: tag.name };
  });
  const id = randomUUID();
  await client.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        PK: `MAG#${id}`,
        SK: 'MAG',
        id,
        title: body.title,
        tags: tagRefs,
        created: Math.floor(Date.now() / 1000),
      },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'PK' },
    }),
  );
  return { id, location: `${base}/magazines/${id}` };
};

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

const element = (name: string, value: unknown): string => {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value)) {
    const child = name === 'results' ? 'magazine' : name.endsWith('s') ? name.slice(0, -1) : 'item';
    return `<${name}>${value.map((item) => element(child, item)).join('')}</${name}>`;
  }
  if (typeof value === 'object')
    return `<${name}>${Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => element(key, v))
      .join('')}</${name}>`;
  return `<${name}>${escapeXml(String(value))}</${name}>`;
};

export const toXml = (root: string, value: unknown) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, value)}`;

export const wantsXml = (accept: string | undefined) => accept?.includes('application/xml') ?? false;

/** The limit of a list request, as the API reads it (default 25, at most 100). */
export const limitOf = (value: string | undefined) => {
  const limit = value === undefined ? 25 : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new BadInput('`limit` must be from 1 to 100.');
  return limit;
};
