import { randomBytes } from 'node:crypto';
import {
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import type { ArticleInput, StoredArticle } from '../domain/article';
import { isIdentifier, newId, nowInSeconds } from '../domain/fields';
import { yearBounds, type Page, type PageQuery } from '../domain/list-query';
import type { MagazineDraft, StoredMagazine } from '../domain/magazine';
import type { TagSummary } from '../domain/representation';
import type { TagRef } from '../domain/tag';
import { matches, type IfMatch } from '../http/conditional';
import { concurrentChange, magazineExists, magazineNotFound, preconditionFailed, storeBusy } from '../http/errors';
import { createDocumentClient, type DocumentClient } from './client';
import {
  articleKey,
  articleListKey,
  articleListPartition,
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
} from './keys';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Key = Record<string, unknown>;

/** DynamoDB's limit of items in one TransactWriteItems call. */
const TRANSACTION_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;
/** Counter attributes changed in one transaction, keeping its update expression well under 4 KB. */
const CATALOGUE_ATTRIBUTE_LIMIT = 200;
const MAX_ATTEMPTS = 5;

export interface MagazineListFilter extends PageQuery {
  readonly year?: number | undefined;
  readonly tag?: string | undefined;
}

const newRevision = () => randomBytes(9).toString('base64url');
const yearOf = (seconds: number) => new Date(seconds * 1000).getUTCFullYear();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const backoff = (attempt: number) => sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));

const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** Why each item of a cancelled transaction failed, in the order the items were sent. */
const cancellationReasons = (error: unknown): string[] | undefined => {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
};

/**
 * Counter changes for the catalogue item, gathered over one transaction. Adding a magazine
 * counts it in all, its year, each tag and each tag-year; removing it uncounts the same.
 */
class CatalogueChange {
  private readonly deltas = new Map<string, number>();
  private readonly names = new Map<string, string>();

  count(magazine: Pick<StoredMagazine, 'tags' | 'created'>, sign: 1 | -1): this {
    const year = yearOf(magazine.created);
    this.add(counter.all, sign).add(counter.year(year), sign);
    for (const tag of magazine.tags) {
      this.add(counter.tag(tag.id), sign).add(counter.tagYear(tag.id, year), sign);
      if (sign === 1) this.names.set(counter.tagName(tag.id), tag.name);
    }
    return this;
  }

  /** Distinct attributes touched: bounds the size of the update expression (4 KB). */
  get size(): number {
    return this.deltas.size + this.names.size;
  }

  merge(other: CatalogueChange): this {
    for (const [attribute, delta] of other.deltas) this.add(attribute, delta);
    for (const [attribute, name] of other.names) this.names.set(attribute, name);
    return this;
  }

  private add(attribute: string, delta: number): this {
    this.deltas.set(attribute, (this.deltas.get(attribute) ?? 0) + delta);
    return this;
  }

  /** The catalogue's update; with `expectedRevision`, only if nobody changed the collection since it was read. */
  update(tableName: string, now: number, expectedRevision?: string): TransactItem {
    const names: Record<string, string> = { '#lastModified': counter.lastModified, '#revision': counter.revision };
    const values: Record<string, unknown> = { ':now': now, ':revision': newRevision() };
    const adds: string[] = [];
    const sets: string[] = ['#lastModified = :now', '#revision = :revision'];
    let i = 0;
    for (const [attribute, delta] of this.deltas) {
      if (delta === 0) continue;
      names[`#c${i}`] = attribute;
      values[`:c${i}`] = delta;
      adds.push(`#c${i} :c${i}`);
      i++;
    }
    for (const [attribute, name] of this.names) {
      names[`#n${i}`] = attribute;
      values[`:n${i}`] = name;
      sets.push(`#n${i} = :n${i}`);
      i++;
    }
    return {
      Update: {
        TableName: tableName,
        Key: catalogueKey,
        UpdateExpression: `SET ${sets.join(', ')}${adds.length ? ` ADD ${adds.join(', ')}` : ''}`,
        ...(expectedRevision !== undefined && {
          ConditionExpression: expectedRevision === EMPTY_REVISION ? 'attribute_not_exists(#revision)' : '#revision = :expected',
        }),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: expectedRevision !== undefined && expectedRevision !== EMPTY_REVISION ? { ...values, ':expected': expectedRevision } : values,
      },
    };
  }
}

interface MagazineItem extends StoredMagazine {
  readonly articleCount?: number;
  readonly articlesModified?: number;
}

const toStoredMagazine = (item: Record<string, unknown>): MagazineItem => ({
  id: item.id as string,
  title: item.title as string,
  tags: (item.tags as TagRef[] | undefined) ?? [],
  created: item.created as number,
  updated: item.updated as number,
  revision: item.revision as string,
  articleCount: (item.articleCount as number | undefined) ?? 0,
  articlesModified: item.articlesModified as number | undefined,
});

const toStoredArticle = (item: Record<string, unknown>): StoredArticle => ({
  id: item.id as string,
  magazineId: item.magazineId as string,
  title: item.title as string,
  author_first_name: item.author_first_name as string,
  author_last_name: item.author_last_name as string,
  author_email: item.author_email as string,
  date: item.date as string,
  text: item.text as string,
  created: item.created as number,
});

/** The magazine attributes every copy (the magazine item, its tag memberships) carries. */
const magazineData = (m: StoredMagazine) => ({ id: m.id, title: m.title, tags: m.tags, created: m.created, updated: m.updated, revision: m.revision });

/**
 * The store of the API: one function per access pattern. Every write that can race is
 * conditional, and counters change in the same transaction as the items they count.
 */
export const createRepository = (client: DocumentClient, tableName: string) => {
  const send = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof Error && THROTTLING.has(error.name)) throw storeBusy();
      throw error;
    }
  };

  /** Retries transactions that lost a race with another transaction on the same item. */
  const transact = async (items: TransactItem[]): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await send(() => client.send(new TransactWriteCommand({ TransactItems: items })));
        return;
      } catch (error) {
        const reasons = cancellationReasons(error);
        const retryable = reasons?.some((code) => code === 'TransactionConflict' || code === 'ThrottlingError') && !reasons.includes('ConditionalCheckFailed');
        if (!retryable) throw error;
        if (attempt >= MAX_ATTEMPTS) throw reasons?.includes('ThrottlingError') ? storeBusy() : concurrentChange();
        await backoff(attempt);
      }
    }
  };

  const getItem = async (key: Key, consistent = false) =>
    (await send(() => client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: consistent })))).Item;

  const readMagazine = async (id: string, consistent = false): Promise<MagazineItem | undefined> => {
    if (!isIdentifier(id)) return undefined;
    const item = await getItem(magazineKey(id), consistent);
    return item ? toStoredMagazine(item) : undefined;
  };

  /**
   * `take` items of a key range after the first `skip`. DynamoDB has no offset: the skipped items
   * are stepped over reading keys only (ProjectionExpression), page by page, then the items are
   * read from the one after them.
   */
  const skipAndRead = async (input: QueryCommandInput, keyAttributes: readonly string[], skip: number, take: number) => {
    let startKey: Key | undefined;
    let skipped = 0;
    while (skipped < skip) {
      const names = Object.fromEntries(keyAttributes.map((a, i) => [`#k${i}`, a]));
      const result = await send(() =>
        client.send(
          new QueryCommand({
            ...input,
            ProjectionExpression: Object.keys(names).join(', '),
            ExpressionAttributeNames: { ...input.ExpressionAttributeNames, ...names },
            Limit: skip - skipped,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      skipped += result.Count ?? 0;
      startKey = result.LastEvaluatedKey;
      if (!startKey) return [];
    }
    const items: Record<string, unknown>[] = [];
    do {
      const result = await send(() => client.send(new QueryCommand({ ...input, Limit: take - items.length, ExclusiveStartKey: startKey })));
      items.push(...(result.Items ?? []));
      startKey = result.LastEvaluatedKey;
    } while (startKey && items.length < take);
    return items;
  };

  /**
   * A page past the first of a range holding `total` items: an offset beyond the end reads
   * nothing, and the items before the page are stepped over from whichever end is nearer, so a
   * deep offset costs at most half the list in key reads.
   */
  const laterPage = async (input: QueryCommandInput, keyAttributes: readonly string[], { offset, limit }: PageQuery, total: number) => {
    if (offset >= total) return [];
    const end = Math.min(offset + limit, total);
    const afterPage = total - end;
    if (afterPage >= offset) return skipAndRead(input, keyAttributes, offset, limit);
    const backwards = await skipAndRead({ ...input, ScanIndexForward: input.ScanIndexForward === false }, keyAttributes, afterPage, end - offset);
    return backwards.reverse();
  };

  /** The first page is read beside its count; a later one needs the count to choose its way in. */
  const pageWithCount = async <T>(
    input: QueryCommandInput,
    keyAttributes: readonly string[],
    page: PageQuery,
    counted: Promise<T>,
    totalOf: (counted: T) => number,
  ): Promise<[T, Record<string, unknown>[]]> => {
    if (page.offset === 0) return Promise.all([counted, skipAndRead(input, keyAttributes, 0, page.limit)]);
    const result = await counted;
    return [result, await laterPage(input, keyAttributes, page, totalOf(result))];
  };

  /** Every item of a key range (for bulk operations), following LastEvaluatedKey. */
  const queryAll = async (input: QueryCommandInput) => {
    const items: Record<string, unknown>[] = [];
    let startKey: Key | undefined;
    do {
      const result = await send(() => client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey })));
      items.push(...(result.Items ?? []));
      startKey = result.LastEvaluatedKey;
    } while (startKey);
    return items;
  };

  /** BatchWriteItem in chunks of 25, retrying UnprocessedItems with exponential backoff. */
  const deleteAll = async (keys: readonly Key[]) => {
    for (let start = 0; start < keys.length; start += BATCH_WRITE_LIMIT) {
      let pending = keys.slice(start, start + BATCH_WRITE_LIMIT).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > MAX_ATTEMPTS + 3) throw storeBusy();
        if (attempt > 1) await backoff(attempt);
        const result = await send(() => client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } })));
        pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }
  };

  const readCatalogue = async (attributes: readonly string[]) => {
    const names = Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a]));
    const result = await send(() =>
      client.send(new GetCommand({ TableName: tableName, Key: catalogueKey, ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names })),
    );
    return result.Item ?? {};
  };

  /** A collection never written to has not changed since the epoch. */
  const lastModifiedOf = (catalogue: Record<string, unknown>) => (catalogue[counter.lastModified] as number | undefined) ?? 0;
  const revisionOf = (catalogue: Record<string, unknown>) => (catalogue[counter.revision] as string | undefined) ?? EMPTY_REVISION;
  const versionOf = (catalogue: Record<string, unknown>) => ({ lastModified: lastModifiedOf(catalogue), revision: revisionOf(catalogue) });
  const readVersion = async (consistent = false) =>
    versionOf(consistent ? ((await getItem(catalogueKey, true)) ?? {}) : await readCatalogue([counter.lastModified, counter.revision]));

  const membershipItems = (magazine: StoredMagazine) =>
    magazine.tags.map((tag) => ({ ...membershipKey(tag.id, magazine.created, magazine.id), entity: ENTITY.membership, ...magazineData(magazine) }));

  /** The items that write `next` over `previous` (absent when new), as one transaction's worth. */
  const magazineWrite = (next: StoredMagazine, previous: MagazineItem | undefined, catalogue: CatalogueChange): TransactItem[] => {
    const items: TransactItem[] = [];
    if (previous) {
      items.push({
        Update: {
          TableName: tableName,
          Key: magazineKey(next.id),
          // Update, not Put: the article counter on the item belongs to the articles.
          UpdateExpression: 'SET #title = :title, #tags = :tags, #created = :created, #updated = :updated, #revision = :revision, #gsi1sk = :gsi1sk',
          ConditionExpression: '#revision = :previous',
          ExpressionAttributeNames: { '#title': 'title', '#tags': 'tags', '#created': 'created', '#updated': 'updated', '#revision': 'revision', '#gsi1sk': 'GSI1SK' },
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
        if (!kept.has(`${old.PK}|${old.SK}`)) items.push({ Delete: { TableName: tableName, Key: { PK: old.PK, SK: old.SK } } });
      }
      catalogue.count(previous, -1);
    } else {
      items.push({
        Put: {
          TableName: tableName,
          Item: { ...magazineKey(next.id), ...magazineListKey(next.created, next.id), entity: ENTITY.magazine, ...magazineData(next), articleCount: 0 },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': 'PK' },
        },
      });
    }
    for (const membership of membershipItems(next)) items.push({ Put: { TableName: tableName, Item: membership } });
    catalogue.count(next, 1);
    return items;
  };

  /** The items that delete a magazine whose articles are already gone. */
  const magazineDelete = (magazine: MagazineItem, catalogue: CatalogueChange): TransactItem[] => {
    catalogue.count(magazine, -1);
    return [
      {
        Delete: {
          TableName: tableName,
          Key: magazineKey(magazine.id),
          // Fails if the magazine changed or gained an article since it was read.
          ConditionExpression: '#revision = :revision AND #articleCount = :articleCount',
          ExpressionAttributeNames: { '#revision': 'revision', '#articleCount': 'articleCount' },
          ExpressionAttributeValues: { ':revision': magazine.revision, ':articleCount': magazine.articleCount ?? 0 },
        },
      },
      ...membershipItems(magazine).map((m): TransactItem => ({ Delete: { TableName: tableName, Key: { PK: m.PK, SK: m.SK } } })),
    ];
  };

  const deleteArticlesOf = async (magazine: MagazineItem) => {
    if (!magazine.articleCount) return;
    const keys = await queryAll({
      TableName: tableName,
      IndexName: GSI1,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'GSI1PK', '#tablePk': 'PK', '#tableSk': 'SK' },
      ExpressionAttributeValues: { ':pk': articleListPartition(magazine.id) },
      ProjectionExpression: '#tablePk, #tableSk',
    });
    await deleteAll(keys);
  };

  const toStored = (draft: MagazineDraft & { id: string }, previous: MagazineItem | undefined, now: number): StoredMagazine => ({
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

  const isConditionFailure = (error: unknown, index = 0) => cancellationReasons(error)?.[index] === 'ConditionalCheckFailed';

  return {
    /** One GetItem. */
    getMagazine: (id: string): Promise<StoredMagazine | undefined> => readMagazine(id),

    /** The catalogue item (exact count, last change) and one page, read side by side. */
    async listMagazines(filter: MagazineListFilter): Promise<Page<StoredMagazine>> {
      const { year, tag } = filter;
      const countAttribute = tag ? (year !== undefined ? counter.tagYear(tag, year) : counter.tag(tag)) : year !== undefined ? counter.year(year) : counter.all;
      const range = year !== undefined ? yearBounds(year) : undefined;
      // No magazine is created before 1970.
      if (range && range[1] < 0) return { items: [], count: 0, ...(await readVersion()) };
      const query: QueryCommandInput = tag
        ? {
            TableName: tableName,
            KeyConditionExpression: range ? '#pk = :pk AND #sk BETWEEN :from AND :to' : '#pk = :pk AND begins_with(#sk, :from)',
            ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
            ExpressionAttributeValues: range
              ? { ':pk': membershipPartition(tag), ':from': createdRange('MAG#', range)[0], ':to': createdRange('MAG#', range)[1] }
              : { ':pk': membershipPartition(tag), ':from': 'MAG#' },
            ScanIndexForward: filter.sort === 'asc',
          }
        : {
            TableName: tableName,
            IndexName: GSI1,
            KeyConditionExpression: range ? '#pk = :pk AND #sk BETWEEN :from AND :to' : '#pk = :pk',
            ExpressionAttributeNames: { '#pk': 'GSI1PK', ...(range && { '#sk': 'GSI1SK' }) },
            ExpressionAttributeValues: range
              ? { ':pk': MAGAZINE_LIST, ':from': createdRange('', range)[0], ':to': createdRange('', range)[1] }
              : { ':pk': MAGAZINE_LIST },
            ScanIndexForward: filter.sort === 'asc',
          };
      const keyAttributes = tag ? ['PK', 'SK'] : ['PK', 'SK', 'GSI1PK', 'GSI1SK'];
      const countOf = (catalogue: Record<string, unknown>) => (catalogue[countAttribute] as number | undefined) ?? 0;
      const [catalogue, items] = await pageWithCount(query, keyAttributes, filter, readCatalogue([countAttribute, counter.lastModified, counter.revision]), countOf);
      return { items: items.map(toStoredMagazine), count: countOf(catalogue), ...versionOf(catalogue) };
    },

    /** One transaction: the magazine (only if its id is free), its tag memberships, the counters. */
    async createMagazine(draft: MagazineDraft): Promise<StoredMagazine> {
      const now = nowInSeconds();
      const magazine = toStored({ ...draft, id: draft.id ?? newId() }, undefined, now);
      const catalogue = new CatalogueChange();
      const items = magazineWrite(magazine, undefined, catalogue);
      try {
        await transact([...items, catalogue.update(tableName, now)]);
      } catch (error) {
        if (isConditionFailure(error)) throw magazineExists(magazine.id);
        throw error;
      }
      return magazine;
    },

    /** Creates or replaces; the revision read first is the condition of the write. */
    async putMagazine(draft: MagazineDraft & { id: string }, ifMatch: IfMatch | undefined): Promise<'created' | 'replaced'> {
      for (let attempt = 1; ; attempt++) {
        const previous = await readMagazine(draft.id, true);
        if (!matches(ifMatch, previous?.revision)) throw preconditionFailed();
        if (isUnchanged(previous, draft)) return 'replaced';
        const now = nowInSeconds();
        const catalogue = new CatalogueChange();
        const items = magazineWrite(toStored(draft, previous, now), previous, catalogue);
        try {
          await transact([...items, catalogue.update(tableName, now)]);
          return previous ? 'replaced' : 'created';
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          // Someone else wrote the magazine between our read and write.
          if (ifMatch || attempt >= MAX_ATTEMPTS) throw ifMatch ? preconditionFailed() : concurrentChange();
        }
      }
    },

    /** Its articles (batched), then the magazine with its memberships and counters (one transaction). */
    async deleteMagazine(id: string, ifMatch: IfMatch | undefined): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        const magazine = await readMagazine(id, true);
        if (!magazine) throw magazineNotFound(id);
        if (!matches(ifMatch, magazine.revision)) throw preconditionFailed();
        await deleteArticlesOf(magazine);
        const now = nowInSeconds();
        const catalogue = new CatalogueChange();
        const items = magazineDelete(magazine, catalogue);
        try {
          await transact([...items, catalogue.update(tableName, now)]);
          return;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          if (ifMatch || attempt >= MAX_ATTEMPTS) throw ifMatch ? preconditionFailed() : concurrentChange();
        }
      }
    },

    /**
     * PUT /magazines and DELETE /magazines. Each magazine's change is atomic and counted in the
     * same transaction; changes are packed into transactions of up to 100 items, so the whole
     * collection is not replaced atomically (see README).
     */
    async replaceAllMagazines(drafts: readonly (MagazineDraft & { id: string })[], ifMatch: IfMatch | undefined): Promise<void> {
      // `If-Match` names the collection's revision; the first transaction is conditioned on it.
      let expectedRevision = ifMatch ? (await readVersion(true)).revision : undefined;
      if (!matches(ifMatch, expectedRevision)) throw preconditionFailed();
      const current = (
        await queryAll({
          TableName: tableName,
          IndexName: GSI1,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'GSI1PK' },
          ExpressionAttributeValues: { ':pk': MAGAZINE_LIST },
        })
      ).map(toStoredMagazine);
      const wanted = new Set(drafts.map((d) => d.id));
      const removed = current.filter((m) => !wanted.has(m.id));
      for (const magazine of removed) await deleteArticlesOf(magazine);

      const byId = new Map(current.map((m) => [m.id, m]));
      const now = nowInSeconds();
      const changes: ((catalogue: CatalogueChange) => TransactItem[])[] = [
        ...removed.map((m) => (catalogue: CatalogueChange) => magazineDelete(m, catalogue)),
        ...drafts.filter((draft) => !isUnchanged(byId.get(draft.id), draft)).map((draft) => (catalogue: CatalogueChange) => {
          const previous = byId.get(draft.id);
          return magazineWrite(toStored(draft, previous, now), previous, catalogue);
        }),
      ];

      let batch: TransactItem[] = [];
      let catalogue = new CatalogueChange();
      const flush = async () => {
        if (batch.length === 0) return;
        try {
          await transact([...batch, catalogue.update(tableName, now, expectedRevision)]);
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (expectedRevision !== undefined && reasons?.at(-1) === 'ConditionalCheckFailed') throw preconditionFailed();
          if (reasons?.includes('ConditionalCheckFailed')) throw concurrentChange();
          throw error;
        }
        expectedRevision = undefined;
        batch = [];
        catalogue = new CatalogueChange();
      };
      for (const change of changes) {
        const counted = new CatalogueChange();
        const items = change(counted);
        if (batch.length + items.length + 1 > TRANSACTION_LIMIT || catalogue.size + counted.size > CATALOGUE_ATTRIBUTE_LIMIT) await flush();
        batch.push(...items);
        catalogue.merge(counted);
      }
      await flush();
    },

    /** The magazine (existence, article count) and one page of its articles, read side by side. */
    async listArticles(magazineId: string, page: PageQuery): Promise<Page<StoredArticle>> {
      const query: QueryCommandInput = {
        TableName: tableName,
        IndexName: GSI1,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'GSI1PK' },
        ExpressionAttributeValues: { ':pk': articleListPartition(magazineId) },
        ScanIndexForward: page.sort === 'asc',
      };
      if (!isIdentifier(magazineId)) throw magazineNotFound(magazineId);
      const [magazine, items] = await pageWithCount(query, ['PK', 'SK', 'GSI1PK', 'GSI1SK'], page, readMagazine(magazineId), (m) => m?.articleCount ?? 0);
      if (!magazine) throw magazineNotFound(magazineId);
      return { items: items.map(toStoredArticle), count: magazine.articleCount ?? 0, lastModified: magazine.articlesModified ?? magazine.updated };
    },

    /** One transaction: the article, and the magazine's article counter (which must exist). */
    async createArticle(magazineId: string, input: ArticleInput): Promise<StoredArticle> {
      if (!isIdentifier(magazineId)) throw magazineNotFound(magazineId);
      const article: StoredArticle = { ...input, id: newId(), magazineId, created: nowInSeconds() };
      try {
        await transact([
          {
            Put: {
              TableName: tableName,
              Item: { ...articleKey(article.id), ...articleListKey(magazineId, article.created, article.id), entity: ENTITY.article, ...article },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': 'PK' },
            },
          },
          {
            Update: {
              TableName: tableName,
              Key: magazineKey(magazineId),
              UpdateExpression: 'ADD #articleCount :one SET #articlesModified = :now',
              ConditionExpression: 'attribute_exists(#pk)',
              ExpressionAttributeNames: { '#pk': 'PK', '#articleCount': 'articleCount', '#articlesModified': 'articlesModified' },
              ExpressionAttributeValues: { ':one': 1, ':now': article.created },
            },
          },
        ]);
      } catch (error) {
        if (isConditionFailure(error, 1)) throw magazineNotFound(magazineId);
        throw error;
      }
      return article;
    },

    /** One GetItem. */
    async getArticle(id: string): Promise<StoredArticle | undefined> {
      if (!isIdentifier(id)) return undefined;
      const item = await getItem(articleKey(id));
      return item ? toStoredArticle(item) : undefined;
    },

    /** One GetItem of the catalogue item, which names and counts every tag in use. */
    async listTags(page: PageQuery): Promise<Page<TagSummary>> {
      const catalogue = await getItem(catalogueKey);
      const tags = Object.entries(catalogue ?? {})
        .filter(([attribute]) => attribute.startsWith(TAG_NAME_PREFIX))
        .map(([attribute, name]) => {
          const id = attribute.slice(TAG_NAME_PREFIX.length);
          return { id, name: name as string, magazineCount: (catalogue?.[counter.tag(id)] as number | undefined) ?? 0 };
        })
        .filter((tag) => tag.magazineCount > 0)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (page.sort === 'desc') tags.reverse();
      return { items: tags.slice(page.offset, page.offset + page.limit), count: tags.length, ...versionOf(catalogue ?? {}) };
    },

    /** One GetItem (three attributes of the catalogue item). */
    async getTag(id: string): Promise<TagSummary | undefined> {
      if (!isIdentifier(id)) return undefined;
      const catalogue = await readCatalogue([counter.tagName(id), counter.tag(id), counter.lastModified, counter.revision]);
      const magazineCount = (catalogue[counter.tag(id)] as number | undefined) ?? 0;
      const name = catalogue[counter.tagName(id)] as string | undefined;
      // A tag changes only with the magazines that carry it: the collection's last change bounds it.
      return name !== undefined && magazineCount > 0 ? { id, name, magazineCount, ...versionOf(catalogue) } : undefined;
    },
  };
};

export type Repository = ReturnType<typeof createRepository>;

/** The repository every function uses, on the client made once at module load. */
export const repository: Repository = createRepository(createDocumentClient(), config.tableName);
