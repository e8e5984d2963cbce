import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { JsonObject, JsonValue, RecordedCall } from '../../test/support/dynamodb-faults';

/** DynamoDB's size of an item in its wire form: names and values (numbers approximated). */
export const itemSize = (item: JsonObject): number => {
  const valueSize = (value: JsonValue): number => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 0;
    const [type, inner] = Object.entries(value)[0] ?? [];
    switch (type) {
      case 'S':
        return Buffer.byteLength(String(inner));
      case 'N':
        return Math.ceil(String(inner).replace(/^-|\./g, '').length / 2) + 1;
      case 'B':
        return Buffer.from(String(inner), 'base64').length;
      case 'BOOL':
      case 'NULL':
        return 1;
      case 'SS':
        return (inner as string[]).reduce((total, s) => total + Buffer.byteLength(s), 0);
      case 'NS':
        return (inner as string[]).reduce((total, s) => total + Math.ceil(s.length / 2) + 1, 0);
      case 'L':
        return 3 + (inner as JsonValue[]).reduce((total: number, v) => total + 1 + valueSize(v), 0);
      case 'M':
        return (
          3 +
          Object.entries(inner as JsonObject).reduce(
            (total, [name, v]) => total + 1 + Buffer.byteLength(name) + valueSize(v),
            0,
          )
        );
      default:
        return 0;
    }
  };
  return Object.entries(item).reduce((total, [name, value]) => total + Buffer.byteLength(name) + valueSize(value), 0);
};

/** An item a write call writes, deletes or checks (a transaction's condition check is billed as a write). */
export interface WriteTarget {
  readonly table: string;
  readonly key: JsonObject;
  /** The item a Put writes, if it is one. */
  readonly put?: JsonObject;
  readonly transactional: boolean;
}

const keyOf = (item: JsonObject) => ({ PK: item.PK!, SK: item.SK! }) as JsonObject;

/** The items a write call (its request in DynamoDB's wire form) writes, deletes or checks. */
export const writeTargets = (operation: string, request: JsonObject): WriteTarget[] => {
  const targets: WriteTarget[] = [];
  if (operation === 'TransactWriteItems')
    for (const entry of (request.TransactItems as JsonObject[]) ?? []) {
      const [kind, body] = Object.entries(entry)[0] as [string, JsonObject];
      const put = kind === 'Put' ? (body.Item as JsonObject) : undefined;
      targets.push({
        table: String(body.TableName),
        key: put ? keyOf(put) : (body.Key as JsonObject),
        ...(put && { put }),
        transactional: true,
      });
    }
  else if (operation === 'PutItem') {
    const put = request.Item as JsonObject;
    targets.push({ table: String(request.TableName), key: keyOf(put), put, transactional: false });
  } else if (operation === 'UpdateItem' || operation === 'DeleteItem')
    targets.push({ table: String(request.TableName), key: request.Key as JsonObject, transactional: false });
  else if (operation === 'BatchWriteItem')
    for (const [table, writes] of Object.entries((request.RequestItems as JsonObject) ?? {}))
      for (const write of writes as JsonObject[]) {
        const put = (write.PutRequest as JsonObject | undefined)?.Item as JsonObject | undefined;
        const removed = write.DeleteRequest as JsonObject | undefined;
        targets.push({
          table,
          key: put ? keyOf(put) : (removed!.Key as JsonObject),
          ...(put && { put }),
          transactional: false,
        });
      }
  return targets;
};

/** DynamoDB's bill for writing an item of `bytes` (the larger of its sizes before and after): 1 unit per KB, twice in a transaction. */
export const writeUnits = (bytes: number, transactional: boolean) =>
  Math.max(1, Math.ceil(bytes / 1024)) * (transactional ? 2 : 1);

export interface WriteCost {
  readonly operations: string;
  /** As DynamoDB Local reports it: 2 units per TransactWriteItems whatever its items, so a floor. */
  readonly reportedWriteUnits: number;
  /** What DynamoDB bills: 1 unit per KB (rounded up) of each item written, as it is after the write, twice in a transaction. */
  readonly modelWriteUnits: number;
  readonly largestItemBytes: number;
}

/** The write cost of `calls`, each written item read back (straight from DynamoDB, not counted) for its size. */
export const writeCost = async (
  direct: DynamoDBClient,
  calls: readonly RecordedCall[],
  operations: string,
): Promise<WriteCost> => {
  let model = 0;
  let largest = 0;
  const written = calls
    .filter((call) => call.outcome === 'passed')
    .flatMap((call) => writeTargets(call.operation, call.request));
  for (const write of written) {
    const got = await direct.send(
      new GetItemCommand({ TableName: write.table, Key: write.key as never, ConsistentRead: true }),
    );
    const bytes = got.Item ? itemSize(got.Item as unknown as JsonObject) : 0;
    largest = Math.max(largest, bytes);
    model += writeUnits(bytes, write.transactional);
  }
  return {
    operations,
    reportedWriteUnits: calls.reduce((total, call) => total + call.writeCapacityUnits, 0),
    modelWriteUnits: model,
    largestItemBytes: largest,
  };
};
