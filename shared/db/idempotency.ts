import { createHash, randomUUID } from 'node:crypto';
import { KeyReused, RequestInProgress } from '../domain/errors';
import type { WriteOptions } from '../domain/store';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, KEY_RELEASE_MS, LONGEST_REQUEST_MS } from '../timing';
import { decodeIdempotency } from './items';
import { attr, idempotencyKey } from './keys';
import type { TableAccess } from './table-access';
import { remove, type TransactItem, update } from './table-writes';

/**
 * `Idempotency-Key` on POST. A request first reserves its key (a lease, so that a duplicate sent
 * while it runs gets 409); the write then marks the key done, with what it created, in the same
 * transaction as the items it writes, so a lost reply can never turn into a second write: the
 * retry finds the key done and gets the first answer. Keys expire through the table's TTL.
 */

/** Keys are kept at least 24 hours (DynamoDB deletes expired items some time later; expired ones are treated as gone). */
const RETENTION_SECONDS = IDEMPOTENCY_RETENTION_MS / 1000;

type Key = NonNullable<WriteOptions['idempotency']>;

/** A key is the client's, for one operation: hashed, so any key the client chose fits DynamoDB's key. */
const keyOf = (operation: string, key: Key) =>
  idempotencyKey(createHash('sha256').update(`${operation}\n${key.key}`).digest('base64url'));

type Reservation =
  | { readonly replay: string }
  | { readonly token: string; readonly commit: (id: string) => TransactItem; readonly release: () => Promise<void> };

/** Seconds till a reservation's key may be taken again, once the request that holds it has surely ended; 1 before. */
const retryAfterLease = (leaseUntil: number, now = Date.now()) =>
  now < leaseUntil - IDEMPOTENCY_LEASE_MS + LONGEST_REQUEST_MS ? 1 : Math.max(1, Math.ceil((leaseUntil - now) / 1000));

export const reserve = async (access: TableAccess, operation: string, key: Key): Promise<Reservation> => {
  const itemKey = keyOf(operation, key);
  const token = randomUUID();
  const now = Date.now();
  const reserved = await update(access, {
    Key: itemKey,
    UpdateExpression:
      'SET #fingerprint = :fingerprint, #state = :running, #lease = :lease, #expires = :expires, #token = :token REMOVE #result',
    ConditionExpression:
      'attribute_not_exists(#state) OR #expires < :nowSeconds OR (#state = :running AND #lease < :now)',
    ExpressionAttributeNames: {
      '#fingerprint': attr.fingerprint,
      '#state': attr.state,
      '#lease': attr.leaseUntil,
      '#expires': attr.expiresAt,
      '#token': attr.writeToken,
      '#result': attr.result,
    },
    ExpressionAttributeValues: {
      ':fingerprint': key.fingerprint,
      ':running': 'running',
      ':lease': now + IDEMPOTENCY_LEASE_MS,
      ':expires': Math.floor(now / 1000) + RETENTION_SECONDS,
      ':token': token,
      ':now': now,
      ':nowSeconds': Math.floor(now / 1000),
    },
  });
  const record = reserved ? undefined : decodeIdempotency(await access.get(itemKey));
  // An attempt whose answer was lost and that the SDK sent again finds its own reservation: it holds the key.
  if (!reserved && record?.writeToken !== token) {
    if (record && record.fingerprint !== key.fingerprint) throw new KeyReused();
    if (record?.state === 'done' && record.result !== undefined) return { replay: record.result };
    // Still running elsewhere (or released a moment ago): sent again in a second, it most likely
    // finds it done. A request that can no longer be running (its function stopped short of
    // freeing the key) holds it till its lease lapses.
    throw new RequestInProgress(record?.state === 'running' ? retryAfterLease(record.leaseUntil) : 1);
  }
  return {
    token,
    commit: (id) => ({
      Update: {
        TableName: access.tableName,
        Key: itemKey,
        UpdateExpression: 'SET #state = :done, #result = :id',
        ConditionExpression: '#token = :token AND #state = :running',
        ExpressionAttributeNames: { '#state': attr.state, '#result': attr.result, '#token': attr.writeToken },
        ExpressionAttributeValues: { ':done': 'done', ':id': id, ':token': token, ':running': 'running' },
      },
    }),
    // A request refused (404, 405) writes nothing: its reservation goes, and the key is free for it to be sent again.
    release: async () => {
      await remove(access.extended(KEY_RELEASE_MS), {
        Key: itemKey,
        ConditionExpression: '#token = :token AND #state = :running',
        ExpressionAttributeNames: { '#token': attr.writeToken, '#state': attr.state },
        ExpressionAttributeValues: { ':token': token, ':running': 'running' },
      });
    },
  };
};
