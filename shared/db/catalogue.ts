import { randomBytes } from 'node:crypto';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Magazine as StoredMagazine } from '../domain/magazine';
import { catalogueKey, counter, EMPTY_REVISION, tagShardKey } from './keys';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const newRevision = () => randomBytes(9).toString('base64url');
export const yearOf = (seconds: number) => new Date(seconds * 1000).getUTCFullYear();

/** Counter attributes changed on one item in one transaction: keeps its update expression well under 4 KB. */
export const ATTRIBUTES_PER_ITEM = 200;

interface ItemChange {
  readonly key: { readonly PK: string; readonly SK: string };
  readonly deltas: Map<string, number>;
  readonly names: Map<string, string>;
  /** Tags whose counters went down here: candidates for pruning once they reach zero. */
  readonly decremented: Set<string>;
}

/**
 * Counter changes gathered over one transaction, item by item. Adding a magazine counts it in all
 * and its year (the collection item), and in each tag and tag-year (the tag's shard), and names
 * the tag; removing it uncounts the same.
 */
export class CatalogueChange {
  private readonly items = new Map<string, ItemChange>();

  count(magazine: Pick<StoredMagazine, 'tags' | 'created'>, sign: 1 | -1): this {
    const year = yearOf(magazine.created);
    this.add(catalogueKey, counter.all, sign).add(catalogueKey, counter.year(year), sign);
    for (const tag of magazine.tags) {
      const shard = tagShardKey(tag.id);
      this.add(shard, counter.tag(tag.id), sign).add(shard, counter.tagYear(tag.id, year), sign);
      if (sign === 1) this.item(shard).names.set(counter.tagName(tag.id), tag.name);
      else this.item(shard).decremented.add(tag.id);
    }
    return this;
  }

  merge(other: CatalogueChange): this {
    for (const change of other.items.values()) {
      const mine = this.item(change.key);
      for (const [attribute, delta] of change.deltas) this.add(change.key, attribute, delta);
      for (const [attribute, name] of change.names) mine.names.set(attribute, name);
      for (const tagId of change.decremented) mine.decremented.add(tagId);
    }
    return this;
  }

  /** How many items `updates()` writes: the collection item and each shard touched. */
  get itemCount(): number {
    return (
      1 + [...this.items.values()].filter((change) => change.key.SK !== catalogueKey.SK && this.touches(change)).length
    );
  }

  /** The most attributes one update changes. */
  get widest(): number {
    return Math.max(0, ...[...this.items.values()].map((change) => change.deltas.size + change.names.size));
  }

  /** Per shard, the tags some counter of which went down in the end (a tag kept as it was is not one). */
  get decrementedTags(): { readonly key: ItemChange['key']; readonly tagIds: readonly string[] }[] {
    const wentDown = (change: ItemChange, tagId: string) =>
      [...change.deltas].some(
        ([attribute, delta]) =>
          delta < 0 && (attribute === counter.tag(tagId) || attribute.startsWith(`${counter.tag(tagId)}#Y`)),
      );
    return [...this.items.values()]
      .map((change) => ({
        key: change.key,
        tagIds: [...change.decremented].filter((tagId) => wentDown(change, tagId)),
      }))
      .filter(({ tagIds }) => tagIds.length > 0);
  }

  /**
   * One update per item touched, the collection item last (it always changes: `lastModified`
   * and `revision`). With `expectedRevision`, the collection must not have changed since read.
   */
  updates(tableName: string, now: number, expectedRevision?: string): TransactItem[] {
    const shards = [...this.items.values()].filter(
      (change) => change.key.SK !== catalogueKey.SK && this.touches(change),
    );
    const collection = this.item(catalogueKey);
    return [
      ...shards.map((change) => update(tableName, change, now)),
      update(tableName, collection, now, expectedRevision),
    ];
  }

  private touches(change: ItemChange) {
    return change.names.size > 0 || [...change.deltas.values()].some((delta) => delta !== 0);
  }

  private add(key: ItemChange['key'], attribute: string, delta: number): this {
    const change = this.item(key);
    change.deltas.set(attribute, (change.deltas.get(attribute) ?? 0) + delta);
    return this;
  }

  private item(key: ItemChange['key']): ItemChange {
    let change = this.items.get(key.SK);
    if (!change) {
      change = { key, deltas: new Map(), names: new Map(), decremented: new Set() };
      this.items.set(key.SK, change);
    }
    return change;
  }
}

const update = (tableName: string, change: ItemChange, now: number, expectedRevision?: string): TransactItem => {
  const names: Record<string, string> = { '#lastModified': counter.lastModified, '#revision': counter.revision };
  const values: Record<string, unknown> = { ':now': now, ':revision': newRevision() };
  const adds: string[] = [];
  const sets: string[] = ['#lastModified = :now', '#revision = :revision'];
  let i = 0;
  for (const [attribute, delta] of change.deltas) {
    if (delta === 0) continue;
    names[`#c${i}`] = attribute;
    values[`:c${i}`] = delta;
    adds.push(`#c${i} :c${i}`);
    i++;
  }
  for (const [attribute, name] of change.names) {
    names[`#n${i}`] = attribute;
    values[`:n${i}`] = name;
    sets.push(`#n${i} = :n${i}`);
    i++;
  }
  const conditioned = expectedRevision !== undefined;
  return {
    Update: {
      TableName: tableName,
      Key: change.key,
      UpdateExpression: `SET ${sets.join(', ')}${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
      ...(conditioned && {
        ConditionExpression:
          expectedRevision === EMPTY_REVISION ? 'attribute_not_exists(#revision)' : '#revision = :expected',
      }),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues:
        conditioned && expectedRevision !== EMPTY_REVISION ? { ...values, ':expected': expectedRevision } : values,
    },
  };
};
