import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ArticleInput, Article as StoredArticle } from '../domain/article';
import { isIdentifier, newId, nowInSeconds } from '../domain/fields';
import { yearBounds } from '../domain/paging';
import type { PageQuery } from './table-access';

interface Page<T> {
  readonly items: readonly T[];
  readonly count: number;
  readonly lastModified?: number;
  readonly revision?: string;
}

import { AlreadyExists, NotFound, PreconditionFailed, StoreUnavailable } from '../domain/errors';
import type { MagazineDraft, Magazine as StoredMagazine } from '../domain/magazine';
import { type Precondition as IfMatch, satisfies as matches } from '../domain/store';
import type { TagSummary } from '../domain/tag';
import { logger } from '../logger';
import { ATTRIBUTES_PER_ITEM, CatalogueChange, newRevision, type TransactItem } from './catalogue';
import type { DocumentClient } from './client';
import { type MagazineItem, magazineData, toMagazineItem, toStoredArticle, toStoredMagazine } from './items';
import {
  articleKey,
  articleListKey,
  articleListPartition,
  CATALOGUE_PARTITION,
  catalogueKey,
  counter,
  createdRange,
  EMPTY_REVISION,
  ENTITY,
  GSI1,
  MAGAZINE_LIST,
  magazineKey,
  magazineListKey,
  membershipKey,
  membershipPartition,
  TAG_NAME_PREFIX,
  TAG_SHARD_PREFIX,
  TOMBSTONE,
  TOMBSTONE_LIST,
  tagShardKey,
} from './keys';
import { backoff, cancellationReasons, type Item, isConditionFailure, MAX_ATTEMPTS, tableAccess } from './table-access';

/** DynamoDB's limit of items in one TransactWriteItems call. */
const TRANSACTION_LIMIT = 100;
/** Magazines whose articles are deleted at once by a bulk operation. */
const CLEANUP_CONCURRENCY = 8;
/** How long to wait for GSI1 to show articles written just before a deletion began. */
const INDEX_SETTLE_ATTEMPTS = 6;
/** Tags whose zero counters one update removes: a few attributes each, far under 4 KB. */
const PRUNE_TAGS_PER_UPDATE = 25;

export interface MagazineListFilter extends PageQuery {
  readonly year?: number | undefined;
  readonly tag?: string | undefined;
}

/** A collection never written to has not changed since the epoch. */
const versionOf = (item: Item | undefined) => ({
  lastModified: (item?.[counter.lastModified] as number | undefined) ?? 0,
  revision: (item?.[counter.revision] as string | undefined) ?? EMPTY_REVISION,
});

const countOf = (item: Item | undefined, attribute: string) => (item?.[attribute] as number | undefined) ?? 0;

/** Runs `work` on every item, at most `limit` at a time. */
const inParallel = async <T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
};

/**
 * The store of the API: one function per access pattern. Every write that can race is
 * conditional, and counters change in the same transaction as the items they count.
 *
 * Deleting a magazine with articles is two steps. First one transaction turns it into a tombstone
 * (conditioned on the revision and article count read, and on `If-Match`), removes its tag
 * memberships and uncounts it: from then on it is gone for every reader and no article can be
 * added to it. Then its articles are deleted in batches and the tombstone last. A refused delete
 * therefore changes nothing, and a deletion cut short is finished by the next write to that id.
 * A magazine without articles goes in the first transaction.
 */
export const createRepository = (client: DocumentClient, tableName: string) => {
  const { transact, getItem, getAll, queryAll, pageWithCount, deleteAll } = tableAccess(client, tableName);

  const readMagazineItem = async (id: string, consistent = false): Promise<MagazineItem | undefined> => {
    if (!isIdentifier(id)) return undefined;
    const item = await getItem(magazineKey(id), { consistent });
    return item ? toMagazineItem(item) : undefined;
  };

  /** The magazine as readers see it: a tombstone is no magazine. */
  const readMagazine = async (id: string, consistent = false) => {
    const item = await readMagazineItem(id, consistent);
    return item && !item.tombstone ? item : undefined;
  };

  const membershipItems = (magazine: StoredMagazine) =>
    magazine.tags.map((tag) => ({
      ...membershipKey(tag.id, magazine.created, magazine.id),
      entity: ENTITY.membership,
      ...magazineData(magazine),
    }));

  const membershipDeletes = (magazine: StoredMagazine): TransactItem[] =>
    membershipItems(magazine).map((m) => ({ Delete: { TableName: tableName, Key: { PK: m.PK, SK: m.SK } } }));

  /** The items that write `next` over `previous` (absent when new), as one transaction's worth. */
  const magazineWrite = (
    next: StoredMagazine,
    previous: MagazineItem | undefined,
    catalogue: CatalogueChange,
  ): TransactItem[] => {
    const items: TransactItem[] = [];
    if (previous) {
      items.push({
        Update: {
          TableName: tableName,
          Key: magazineKey(next.id),
          // Update, not Put: the article counter on the item belongs to the articles.
          UpdateExpression:
            'SET #title = :title, #tags = :tags, #created = :created, #updated = :updated, #revision = :revision, #gsi1sk = :gsi1sk',
          ConditionExpression: '#revision = :previous AND attribute_not_exists(#tombstone)',
          ExpressionAttributeNames: {
            '#title': 'title',
            '#tags': 'tags',
            '#created': 'created',
            '#updated': 'updated',
            '#revision': 'revision',
            '#gsi1sk': 'GSI1SK',
            '#tombstone': TOMBSTONE,
          },
          ExpressionAttributeValues: {
            ':title': next.title,
            ':tags': next.tags,
            ':created': next.created,
            ':updated': next.updated,
            ':revision': next.revision,
            ':gsi1sk': magazineListKey(next.created, next.id).GSI1SK,
            ':previous': previous.revision,
          },
        },
      });
      const kept = new Set(membershipItems(next).map((m) => `${m.PK}|${m.SK}`));
      for (const old of membershipItems(previous)) {
        if (!kept.has(`${old.PK}|${old.SK}`))
          items.push({ Delete: { TableName: tableName, Key: { PK: old.PK, SK: old.SK } } });
      }
      catalogue.count(previous, -1);
    } else {
      items.push({
        Put: {
          TableName: tableName,
          Item: {
            ...magazineKey(next.id),
            ...magazineListKey(next.created, next.id),
            entity: ENTITY.magazine,
            ...magazineData(next),
            articleCount: 0,
            generation: newRevision(),
          },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': 'PK' },
        },
      });
    }
    for (const membership of membershipItems(next)) items.push({ Put: { TableName: tableName, Item: membership } });
    catalogue.count(next, 1);
    return items;
  };

  /**
   * The items that remove a magazine, conditioned on the revision and article count read: with no
   * articles it is deleted outright; with some it becomes a tombstone, its deletion's point of no
   * return, and its articles (their number now fixed) go afterwards.
   */
  const removalWrite = (magazine: MagazineItem, now: number, catalogue: CatalogueChange): TransactItem[] => {
    catalogue.count(magazine, -1);
    const guard = {
      TableName: tableName,
      Key: magazineKey(magazine.id),
      ConditionExpression:
        '#revision = :revision AND #articleCount = :articleCount AND attribute_not_exists(#tombstone)',
    };
    const names = { '#revision': 'revision', '#articleCount': 'articleCount', '#tombstone': TOMBSTONE };
    const values = { ':revision': magazine.revision, ':articleCount': magazine.articleCount };
    const first: TransactItem =
      magazine.articleCount === 0
        ? { Delete: { ...guard, ExpressionAttributeNames: names, ExpressionAttributeValues: values } }
        : {
            Update: {
              ...guard,
              // Out of the magazine list, into the tombstone list that bulk operations finish.
              UpdateExpression: 'SET #tombstone = :now, #gsi1pk = :tombstones, #gsi1sk = :id',
              ExpressionAttributeNames: { ...names, '#gsi1pk': 'GSI1PK', '#gsi1sk': 'GSI1SK' },
              ExpressionAttributeValues: { ...values, ':now': now, ':tombstones': TOMBSTONE_LIST, ':id': magazine.id },
            },
          };
    return [first, ...membershipDeletes(magazine)];
  };

  /**
   * Zero counters of tags no magazine carries any more are removed, so that the shards hold only
   * tags in use. Best effort: a concurrent write that uses the tag again makes the condition fail,
   * and the next write that uncounts it tries again.
   */
  const pruneEmptyTags = async (catalogue: CatalogueChange) => {
    for (const { key, tagIds } of catalogue.decrementedTags) {
      try {
        const shard = await getItem(key, { consistent: true });
        if (!shard) continue;
        const empty = Object.keys(shard).filter(
          (attribute) =>
            tagIds.some(
              (tagId) => attribute === counter.tag(tagId) || attribute.startsWith(`${counter.tag(tagId)}#Y`),
            ) && shard[attribute] === 0,
        );
        const gone = tagIds.filter((tagId) => shard[counter.tag(tagId)] === 0).map((tagId) => counter.tagName(tagId));
        // A tag's name goes with its count; per chunk, so that each expression stays under 4 KB.
        const chunks = tagIds
          .map((tagId) => [
            ...empty.filter((a) => a === counter.tag(tagId) || a.startsWith(`${counter.tag(tagId)}#Y`)),
            ...(gone.includes(counter.tagName(tagId)) && counter.tagName(tagId) in shard
              ? [counter.tagName(tagId)]
              : []),
          ])
          .filter((attributes) => attributes.length > 0);
        for (let start = 0; start < chunks.length; start += PRUNE_TAGS_PER_UPDATE) {
          const removed = chunks.slice(start, start + PRUNE_TAGS_PER_UPDATE).flat();
          const names = Object.fromEntries(removed.map((attribute, i) => [`#r${i}`, attribute]));
          const zeros = removed.flatMap((attribute, i) => (empty.includes(attribute) ? [`#r${i} = :zero`] : []));
          await transact([
            {
              Update: {
                TableName: tableName,
                Key: key,
                UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
                ...(zeros.length > 0 && { ConditionExpression: zeros.join(' AND ') }),
                ExpressionAttributeNames: names,
                ...(zeros.length > 0 && { ExpressionAttributeValues: { ':zero': 0 } }),
              },
            },
          ]).catch((error: unknown) => {
            if (!isConditionFailure(error)) throw error;
          });
        }
      } catch (error) {
        if (!isConditionFailure(error)) logger.warn('Pruning empty tag counters failed', { error, shard: key.SK });
      }
    }
  };

  /** One transaction of `items` and the counters they change; then the counters left at zero go. */
  const commit = async (items: TransactItem[], catalogue: CatalogueChange, now: number, expectedRevision?: string) => {
    await transact([...items, ...catalogue.updates(tableName, now, expectedRevision)]);
    await pruneEmptyTags(catalogue);
  };

  /**
   * The keys of a tombstone's articles. Their count is exact (nothing is added to a tombstone), so
   * GSI1, which may lag behind the table, is read until it shows them all; undefined if it never does.
   */
  const articleKeysOf = async (tombstone: MagazineItem): Promise<Item[] | undefined> => {
    for (let attempt = 1; attempt <= INDEX_SETTLE_ATTEMPTS; attempt++) {
      const keys = await queryAll({
        IndexName: GSI1,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'GSI1PK', '#tablePk': 'PK', '#tableSk': 'SK' },
        ExpressionAttributeValues: { ':pk': articleListPartition(tombstone.id, tombstone.generation) },
        ProjectionExpression: '#tablePk, #tableSk',
      });
      if (keys.length >= tombstone.articleCount) return keys;
      await backoff(attempt);
    }
    logger.warn('Articles of a deleted magazine not yet visible in GSI1', {
      magazineId: tombstone.id,
      expected: tombstone.articleCount,
    });
    return undefined;
  };

  /**
   * Deletes the articles of tombstones in batches, then the tombstones (each only while it still
   * is one), packed into transactions. A tombstone whose articles could not all be found stays,
   * for the next write to its id to finish. Returns the ids that are free again.
   */
  const clearTombstones = async (tombstones: readonly MagazineItem[]): Promise<Set<string>> => {
    const cleared: MagazineItem[] = [];
    await inParallel(tombstones, CLEANUP_CONCURRENCY, async (tombstone) => {
      const keys = await articleKeysOf(tombstone);
      if (!keys) return;
      await deleteAll(keys);
      cleared.push(tombstone);
    });
    const deletion = (tombstone: MagazineItem): TransactItem => ({
      Delete: {
        TableName: tableName,
        Key: magazineKey(tombstone.id),
        ConditionExpression: 'attribute_exists(#tombstone)',
        ExpressionAttributeNames: { '#tombstone': TOMBSTONE },
      },
    });
    const deleteOne = (tombstone: MagazineItem) =>
      transact([deletion(tombstone)]).catch((error: unknown) => {
        // Finished meanwhile by another request: the id is free all the same.
        if (!isConditionFailure(error)) throw error;
      });
    for (let start = 0; start < cleared.length; start += TRANSACTION_LIMIT) {
      const chunk = cleared.slice(start, start + TRANSACTION_LIMIT);
      await transact(chunk.map(deletion)).catch(async (error: unknown) => {
        if (!cancellationReasons(error)?.includes('ConditionalCheckFailed')) throw error;
        for (const tombstone of chunk) await deleteOne(tombstone);
      });
    }
    return new Set(cleared.map((tombstone) => tombstone.id));
  };

  /** Finishes a deletion cut short; returns whether the id is free. */
  const finishDeletion = async (id: string): Promise<boolean> => {
    const magazine = await readMagazineItem(id, true);
    if (!magazine) return true;
    if (!magazine.tombstone) return false;
    return (await clearTombstones([magazine])).has(id);
  };

  /**
   * Every magazine as stored now, for a bulk operation to decide on: GSI1 (which may lag) finds
   * the ids, the table is then read consistently for them and for the ids about to be written,
   * and GSI1 is asked again until it shows as many magazines as the collection counts.
   */
  const readCollection = async (
    listed: (partition: string) => Promise<Item[]>,
    draftIds: readonly string[],
  ): Promise<MagazineItem[]> => {
    for (let attempt = 1; ; attempt++) {
      const [collection, index] = await Promise.all([
        getItem(catalogueKey, { consistent: true }),
        listed(MAGAZINE_LIST),
      ]);
      const ids = [...new Set([...index.map((item) => item.id as string), ...draftIds])];
      const magazines = (await getAll(ids.map(magazineKey)))
        .map(toMagazineItem)
        .filter((magazine) => !magazine.tombstone);
      if (magazines.length >= countOf(collection, counter.all) || attempt >= INDEX_SETTLE_ATTEMPTS) return magazines;
      await backoff(attempt);
    }
  };

  /** Before an id is written anew, a deletion of it that was cut short is finished. */
  const freeId = async (id: string) => {
    if (!(await finishDeletion(id))) throw new StoreUnavailable('throttled');
  };

  const toStored = (
    draft: MagazineDraft & { id: string },
    previous: MagazineItem | undefined,
    now: number,
  ): StoredMagazine => ({
    id: draft.id,
    title: draft.title,
    tags: draft.tags,
    created: draft.created ?? previous?.created ?? now,
    updated: now,
    revision: newRevision(),
  });

  /** A replace that would change nothing is not written, so the revision (and the ETag) stays. */
  const isUnchanged = (previous: MagazineItem | undefined, draft: MagazineDraft) =>
    previous !== undefined &&
    previous.title === draft.title &&
    (draft.created === undefined || draft.created === previous.created) &&
    JSON.stringify(previous.tags.map((t) => [t.id, t.name])) === JSON.stringify(draft.tags.map((t) => [t.id, t.name]));

  /** The magazine list of one tag (memberships) or of all magazines (GSI1), in a year or not. */
  const magazineRange = (
    filter: MagazineListFilter,
    range: [number, number] | undefined,
  ): { query: QueryCommandInput; keys: string[] } => {
    const between = range ? '#pk = :pk AND #sk BETWEEN :from AND :to' : undefined;
    if (filter.tag) {
      const [from, to] = range ? createdRange('MAG#', range) : ['MAG#', undefined];
      return {
        query: {
          TableName: tableName,
          KeyConditionExpression: between ?? '#pk = :pk AND begins_with(#sk, :from)',
          ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
          ExpressionAttributeValues: {
            ':pk': membershipPartition(filter.tag),
            ':from': from,
            ...(to && { ':to': to }),
          },
          ScanIndexForward: filter.sort === 'asc',
        },
        keys: ['PK', 'SK'],
      };
    }
    const [from, to] = range ? createdRange('', range) : [undefined, undefined];
    return {
      query: {
        TableName: tableName,
        IndexName: GSI1,
        KeyConditionExpression: between ?? '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'GSI1PK', ...(range && { '#sk': 'GSI1SK' }) },
        ExpressionAttributeValues: { ':pk': MAGAZINE_LIST, ...(from && { ':from': from, ':to': to }) },
        ScanIndexForward: filter.sort === 'asc',
      },
      keys: ['PK', 'SK', 'GSI1PK', 'GSI1SK'],
    };
  };

  return {
    /** One strongly consistent GetItem, so that the `Location` of a magazine just written resolves. */
    getMagazine: (id: string): Promise<StoredMagazine | undefined> =>
      readMagazine(id, true).then((m) => m && toStoredMagazine(m)),

    /**
     * The counter (collection item, or the tag's shard) and one page, read side by side. A tag's
     * shard changes with every write to a magazine carrying the tag, so its revision is the ETag
     * of the tag's list as the collection's is of the whole list.
     */
    async listMagazines(filter: MagazineListFilter): Promise<Page<StoredMagazine>> {
      const { year, tag } = filter;
      const counterItem = tag ? tagShardKey(tag) : catalogueKey;
      const countAttribute = tag
        ? year !== undefined
          ? counter.tagYear(tag, year)
          : counter.tag(tag)
        : year !== undefined
          ? counter.year(year)
          : counter.all;
      const attributes = [countAttribute, counter.lastModified, counter.revision];
      const range = year !== undefined ? yearBounds(year) : undefined;
      // No magazine is created before 1970.
      if (range && range[1] < 0)
        return { items: [], count: 0, ...versionOf(await getItem(counterItem, { attributes })) };
      const { query, keys } = magazineRange(filter, range);
      // Consistent: the count and the ETag (for If-Match on the collection) are the latest.
      const [counted, items] = await pageWithCount(
        query,
        keys,
        filter,
        getItem(counterItem, { attributes, consistent: true }),
        (item) => countOf(item, countAttribute),
      );
      return {
        items: items.map((item) => toStoredMagazine(toMagazineItem(item))),
        count: countOf(counted, countAttribute),
        ...versionOf(counted),
      };
    },

    /** One transaction: the magazine (only if its id is free), its tag memberships, the counters. */
    async createMagazine(draft: MagazineDraft): Promise<StoredMagazine> {
      for (let attempt = 1; ; attempt++) {
        const now = nowInSeconds();
        const magazine = toStored({ ...draft, id: draft.id ?? newId() }, undefined, now);
        const catalogue = new CatalogueChange();
        try {
          await commit(magazineWrite(magazine, undefined, catalogue), catalogue, now);
          return magazine;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          const existing = await readMagazineItem(magazine.id, true);
          if (!existing?.tombstone || attempt >= MAX_ATTEMPTS) throw new AlreadyExists('magazine', magazine.id);
          await freeId(magazine.id);
        }
      }
    },

    /** Creates or replaces; the revision read first is the condition of the write. */
    async putMagazine(
      draft: MagazineDraft & { id: string },
      ifMatch: IfMatch | undefined,
    ): Promise<'created' | 'replaced'> {
      for (let attempt = 1; ; attempt++) {
        const stored = await readMagazineItem(draft.id, true);
        if (stored?.tombstone) {
          await freeId(draft.id);
          continue;
        }
        if (!matches(ifMatch, stored?.revision)) throw new PreconditionFailed();
        if (isUnchanged(stored, draft)) return 'replaced';
        const now = nowInSeconds();
        const catalogue = new CatalogueChange();
        try {
          await commit(magazineWrite(toStored(draft, stored, now), stored, catalogue), catalogue, now);
          return stored ? 'replaced' : 'created';
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          // Someone else wrote (or began deleting) the magazine between our read and write.
          if (ifMatch || attempt >= MAX_ATTEMPTS)
            throw ifMatch ? new PreconditionFailed() : new StoreUnavailable('conflict');
        }
      }
    },

    /** One transaction (conditioned on the revision and article count read); with articles, then their deletion. */
    async deleteMagazine(id: string, ifMatch: IfMatch | undefined): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        const magazine = await readMagazineItem(id, true);
        if (magazine?.tombstone) await finishDeletion(id);
        if (!magazine || magazine.tombstone) throw new NotFound('magazine', id);
        if (!matches(ifMatch, magazine.revision)) throw new PreconditionFailed();
        const now = nowInSeconds();
        const catalogue = new CatalogueChange();
        try {
          await commit(removalWrite(magazine, now, catalogue), catalogue, now);
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          // Changed, given an article, or being deleted by someone else since our read.
          if (ifMatch || attempt >= MAX_ATTEMPTS)
            throw ifMatch ? new PreconditionFailed() : new StoreUnavailable('conflict');
          continue;
        }
        // Past the point of no return the magazine is deleted; a cleanup cut short is finished later.
        if (magazine.articleCount > 0)
          await clearTombstones([{ ...magazine, tombstone: true }]).catch((error: unknown) =>
            logger.warn('Cleanup of a deleted magazine cut short', { error, magazineId: id }),
          );
        return;
      }
    },

    /**
     * PUT /magazines and DELETE /magazines. Each magazine's change is atomic and counted in the
     * same transaction; changes are packed into transactions of up to 100 items, so the whole
     * collection is not replaced atomically (see README). With `If-Match`, the collection's
     * revision must be the one the client saw, and the first transaction is conditioned on it.
     */
    async replaceAllMagazines(
      drafts: readonly (MagazineDraft & { id: string })[],
      ifMatch: IfMatch | undefined,
    ): Promise<void> {
      let expectedRevision = ifMatch
        ? versionOf(await getItem(catalogueKey, { consistent: true })).revision
        : undefined;
      if (!matches(ifMatch, expectedRevision)) throw new PreconditionFailed();
      const listed = (partition: string) =>
        queryAll({
          IndexName: GSI1,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'GSI1PK' },
          ExpressionAttributeValues: { ':pk': partition },
        });
      // Deletions cut short earlier are finished first, so that their ids are free to be written.
      await clearTombstones((await listed(TOMBSTONE_LIST)).map(toMagazineItem));
      const current = await readCollection(
        listed,
        drafts.map((draft) => draft.id),
      );
      const wanted = new Set(drafts.map((d) => d.id));
      const removed = current.filter((m) => !wanted.has(m.id));
      const byId = new Map(current.map((m) => [m.id, m]));
      const now = nowInSeconds();
      interface Change {
        readonly items: (catalogue: CatalogueChange) => TransactItem[];
        /** A magazine this change leaves as a tombstone, whose articles are to go once it commits. */
        readonly tombstone?: MagazineItem;
      }
      const changes: Change[] = [
        ...removed.map((m) => ({
          items: (catalogue: CatalogueChange) => removalWrite(m, now, catalogue),
          ...(m.articleCount > 0 && { tombstone: { ...m, tombstone: true } }),
        })),
        ...drafts
          .filter((draft) => !isUnchanged(byId.get(draft.id), draft))
          .map((draft) => ({
            items: (catalogue: CatalogueChange) => {
              const previous = byId.get(draft.id);
              return magazineWrite(toStored(draft, previous, now), previous, catalogue);
            },
          })),
      ];

      const committedTombstones: MagazineItem[] = [];
      let batch: TransactItem[] = [];
      let batchTombstones: MagazineItem[] = [];
      let catalogue = new CatalogueChange();
      const flush = async () => {
        if (batch.length === 0) return;
        try {
          await commit(batch, catalogue, now, expectedRevision);
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (expectedRevision !== undefined && reasons?.at(-1) === 'ConditionalCheckFailed')
            throw new PreconditionFailed();
          if (reasons?.includes('ConditionalCheckFailed')) throw new StoreUnavailable('conflict');
          throw error;
        }
        committedTombstones.push(...batchTombstones);
        expectedRevision = undefined;
        batch = [];
        batchTombstones = [];
        catalogue = new CatalogueChange();
      };
      try {
        for (const change of changes) {
          const counted = new CatalogueChange();
          const items = change.items(counted);
          const merged = new CatalogueChange().merge(catalogue).merge(counted);
          if (batch.length + items.length + merged.itemCount > TRANSACTION_LIMIT || merged.widest > ATTRIBUTES_PER_ITEM)
            await flush();
          batch.push(...items);
          if (change.tombstone) batchTombstones.push(change.tombstone);
          catalogue.merge(counted);
        }
        await flush();
      } finally {
        // Whatever stopped the request, the magazines it did delete lose their articles too.
        await clearTombstones(committedTombstones);
      }
    },

    /** The magazine (existence, article count, generation), then one page of its articles. */
    async listArticles(magazineId: string, page: PageQuery): Promise<Page<StoredArticle>> {
      const magazine = await readMagazine(magazineId, true);
      if (!magazine) throw new NotFound('magazine', magazineId);
      const query: QueryCommandInput = {
        TableName: tableName,
        IndexName: GSI1,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'GSI1PK' },
        ExpressionAttributeValues: { ':pk': articleListPartition(magazineId, magazine.generation) },
        ScanIndexForward: page.sort === 'asc',
      };
      const [, items] = await pageWithCount(
        query,
        ['PK', 'SK', 'GSI1PK', 'GSI1SK'],
        page,
        Promise.resolve(magazine),
        (m) => m.articleCount,
      );
      return {
        items: items.map(toStoredArticle),
        count: magazine.articleCount,
        lastModified: magazine.articlesModified ?? magazine.updated,
      };
    },

    /**
     * The magazine's generation, then one transaction: the article, listed under that generation,
     * and the magazine's article counter, only while it is that same magazine and not being deleted.
     */
    async createArticle(magazineId: string, input: ArticleInput): Promise<StoredArticle> {
      for (let attempt = 1; ; attempt++) {
        const magazine = await readMagazine(magazineId, true);
        if (!magazine) throw new NotFound('magazine', magazineId);
        const article: StoredArticle = { ...input, id: newId(), magazineId, created: nowInSeconds() };
        try {
          await transact([
            {
              Put: {
                TableName: tableName,
                Item: {
                  ...articleKey(article.id),
                  ...articleListKey(magazineId, magazine.generation, article.created, article.id),
                  entity: ENTITY.article,
                  ...article,
                },
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': 'PK' },
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: magazineKey(magazineId),
                UpdateExpression: 'ADD #articleCount :one SET #articlesModified = :now',
                ConditionExpression: '#generation = :generation AND attribute_not_exists(#tombstone)',
                ExpressionAttributeNames: {
                  '#generation': 'generation',
                  '#articleCount': 'articleCount',
                  '#articlesModified': 'articlesModified',
                  '#tombstone': TOMBSTONE,
                },
                ExpressionAttributeValues: { ':one': 1, ':now': article.created, ':generation': magazine.generation },
              },
            },
          ]);
          return article;
        } catch (error) {
          // Deleted (or deleted and created again) since our read: read again.
          if (!isConditionFailure(error, 1) || attempt >= MAX_ATTEMPTS)
            throw isConditionFailure(error, 1) ? new NotFound('magazine', magazineId) : error;
        }
      }
    },

    /** One strongly consistent GetItem, so that the `Location` of an article just added resolves. */
    async getArticle(id: string): Promise<StoredArticle | undefined> {
      if (!isIdentifier(id)) return undefined;
      const item = await getItem(articleKey(id), { consistent: true });
      return item ? toStoredArticle(item) : undefined;
    },

    /** One Query of the catalogue partition: the collection item and the 16 tag shards. */
    async listTags(page: PageQuery): Promise<Page<TagSummary>> {
      const items = await queryAll({
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'PK' },
        ExpressionAttributeValues: { ':pk': CATALOGUE_PARTITION },
      });
      const shards = items.filter((item) => String(item.SK).startsWith(TAG_SHARD_PREFIX));
      const tags = shards
        .flatMap((shard) =>
          Object.entries(shard)
            .filter(([attribute]) => attribute.startsWith(TAG_NAME_PREFIX))
            .map(([attribute, name]) => {
              const id = attribute.slice(TAG_NAME_PREFIX.length);
              return { id, name: name as string, magazineCount: countOf(shard, counter.tag(id)) };
            }),
        )
        .filter((tag) => tag.magazineCount > 0)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (page.sort === 'desc') tags.reverse();
      // Every tag change is a magazine write, which moves the collection's revision too.
      const collection = items.find((item) => item.SK === catalogueKey.SK);
      return { items: tags.slice(page.offset, page.offset + page.limit), count: tags.length, ...versionOf(collection) };
    },

    /** One GetItem of the tag's shard. */
    async getTag(id: string): Promise<TagSummary | undefined> {
      if (!isIdentifier(id)) return undefined;
      const shard = await getItem(tagShardKey(id), {
        attributes: [counter.tagName(id), counter.tag(id), counter.lastModified, counter.revision],
      });
      const magazineCount = countOf(shard, counter.tag(id));
      const name = shard?.[counter.tagName(id)] as string | undefined;
      return name !== undefined && magazineCount > 0 ? { id, name, magazineCount, ...versionOf(shard) } : undefined;
    },
  };
};

export type Repository = ReturnType<typeof createRepository>;
