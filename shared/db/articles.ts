import { randomUUID } from 'node:crypto';
import type { Article, ArticleInput } from '../domain/article';
import { articleId, parseArticleId } from '../domain/article-id';
import { InvalidInput, NotFound } from '../domain/errors';
import { isIdentifier, nowInSeconds } from '../domain/fields';
import type { Page, PageQuery } from '../domain/paging';
import type { Created, WriteOptions } from '../domain/store';
import { CLOSING_MS } from '../timing';
import { cancelled, guardCheck, isMine, readInGeneration, takeTurn, writeLoop, writerOf } from './generation';
import { reserve } from './idempotency';
import { decodeArticle, decodeMagazine } from './items';
import { articleKey, articlePartition, articleSeq, attr, magazineKey } from './keys';
import { isClosing } from './magazine-item';
import { readMagazine } from './magazines';
import { currentRequestId } from './request';
import type { TableAccess } from './table-access';
import { ConditionsFailed, lookAgain, type Transaction } from './table-writes';

/**
 * Articles live under their magazine's incarnation, numbered 1, 2, 3… in the order they are
 * added (they are never deleted one by one, only with their magazine). So an article's id names
 * where it is (`<magazine>~<incarnation>~<number>`), the article at any offset is a key away, and
 * a read checks in the same call that its magazine still has that incarnation: the articles of a
 * deleted magazine are unreadable the moment the deletion commits.
 */

/**
 * One transaction: the magazine's next article number taken (only while it is the same
 * magazine, not being deleted, and no other article took that number), the article, and the
 * idempotency key if there is one. Articles do not change the collection: no ticket.
 */
export const createArticle = async (
  access: TableAccess,
  magazineId: string,
  input: ArticleInput,
  options: WriteOptions = {},
): Promise<Created> => {
  if (!isIdentifier(magazineId)) throw new NotFound('magazine', magazineId);
  const reservation = options.idempotency ? await reserve(access, 'createArticle', options.idempotency) : undefined;
  if (reservation && 'replay' in reservation) return { id: reservation.replay, replayed: true };
  const token = randomUUID();
  try {
    return await writeLoop(
      access,
      async () => {
        const { generation, record } = await readMagazine(access, magazineId);
        if (!record || isClosing(record)) throw new NotFound('magazine', magazineId);
        const seq = record.articles + 1;
        const created = Math.max(nowInSeconds(), record.lastArticleCreated);
        const id = articleId(magazineId, record.incarnation, seq);
        const article: Article = { ...input, id, magazineId, created };
        const items: Transaction = {
          guard: guardCheck(access.tableName, generation),
          magazine: {
            Update: {
              TableName: access.tableName,
              Key: magazineKey(generation, magazineId),
              UpdateExpression:
                'SET #articles = :seq, #lastCreated = :created, #modified = :created, #request = :request',
              ConditionExpression:
                '#incarnation = :incarnation AND #articles = :previous AND (attribute_not_exists(#closing) OR #closing < :stale)',
              ExpressionAttributeNames: {
                '#articles': attr.articles,
                '#lastCreated': attr.lastArticleCreated,
                '#modified': attr.articlesModified,
                '#incarnation': attr.incarnation,
                '#closing': attr.closing,
                '#request': attr.requestId,
              },
              ExpressionAttributeValues: {
                ':seq': seq,
                ':created': created,
                ':incarnation': record.incarnation,
                ':previous': record.articles,
                ':stale': Date.now() - CLOSING_MS,
                ':request': currentRequestId(),
              },
            },
          },
          article: {
            Put: {
              TableName: access.tableName,
              Item: {
                ...articleKey(record.incarnation, seq),
                ...article,
                [attr.writeToken]: token,
                [attr.requestId]: currentRequestId(),
              },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': 'PK' },
            },
          },
          idempotency: reservation?.commit(id),
        };
        return {
          items,
          result: { id, replayed: false },
          // No article at its number: not added, if its magazine still has the incarnation (the articles
          // of one go only with it); gone with the magazine since, it may have been, unless the failure
          // was a transaction sent once and cancelled.
          made: async (error) => {
            const writer = await writerOf(access, articleKey(record.incarnation, seq), token);
            if (writer !== 'none' || cancelled(error)) return isMine(writer);
            const magazine = await lookAgain(access, magazineKey(generation, magazineId));
            return magazine !== 'unknown' && magazine?.[attr.incarnation] === record.incarnation ? false : 'unknown';
          },
        };
      },
      // Another article took the number, or the magazine changed: read it again, after its turn.
      // Every writer of a magazine's articles takes its next number, so dozens at once are a case
      // to serve, not a race to lose: they take turns till the request's deadline (on DynamoDB
      // Local, 60 at once ended with 7 of them 201 when turns stopped at ten, the rest 503).
      {
        retry: async (error, attempt) => {
          if (!(error instanceof ConditionsFailed)) return false;
          await takeTurn(access, error, attempt, Number.POSITIVE_INFINITY);
          return true;
        },
      },
    );
  } catch (error) {
    await reservation?.release().catch(() => undefined);
    throw error;
  }
};

/** One call: the head, the magazine and the article, read together. */
export const getArticle = async (access: TableAccess, id: string): Promise<Article> => {
  const parsed = parseArticleId(id);
  if (!parsed) throw new NotFound('article', id);
  const { magazineId, incarnation, seq } = parsed;
  const { generation, items } = await readInGeneration(access, (g) => [
    magazineKey(g, magazineId),
    articleKey(incarnation, seq),
  ]);
  const magazine = items.get(magazineKey(generation, magazineId));
  const article = items.get(articleKey(incarnation, seq));
  const record = magazine && decodeMagazine(magazine);
  if (!record || !article || record.incarnation !== incarnation || seq > record.articles)
    throw new NotFound('article', id);
  const { writeToken: _, ...found } = decodeArticle(article);
  return found;
};

/** A cursor's incarnation (undefined in one made before it carried one) and article number. */
const cursorPosition = (position: string): [string | undefined, number] => {
  const [incarnation, seq] = position.includes('~') ? position.split('~') : [undefined, position];
  return [incarnation, Number(seq)];
};

/** The magazine (with the head), then one Query from the article number the page starts at: two calls at any depth. */
export const listArticles = async (
  access: TableAccess,
  magazineId: string,
  page: PageQuery,
): Promise<Page<Article>> => {
  if (!isIdentifier(magazineId)) throw new NotFound('magazine', magazineId);
  const { record } = await readMagazine(access, magazineId);
  if (!record) throw new NotFound('magazine', magazineId);
  const count = record.articles;
  const { start, limit, sort } = page;
  // A cursor names the magazine's incarnation with the number (`<incarnation>~<number>`; a bare
  // number is one made before), so that it does not go on in the articles of a magazine made anew.
  const [incarnation, after] = 'after' in start ? cursorPosition(start.after) : [];
  if (incarnation !== undefined && incarnation !== record.incarnation)
    throw new InvalidInput(
      'foreign-cursor',
      'Query parameter `cursor` belongs to the articles of a magazine deleted since: list its articles again from the first page.',
    );
  // A cursor's page stands where its numbers are now: articles are never taken out one by one.
  const offset = after === undefined ? start.offset : sort === 'asc' ? after : count - after + 1;
  const version = {
    lastModified: record.articlesModified ?? record.magazine.updated,
    revision: `${record.incarnation}.${count}`,
  };
  if (offset >= count) return { items: [], count, offset, ...version };
  // The first article of the page: by its number for an offset, right after the cursor's for a cursor.
  const first = after !== undefined ? after + (sort === 'asc' ? 1 : -1) : sort === 'asc' ? offset + 1 : count - offset;
  const { items } = await access.query({
    KeyConditionExpression: sort === 'asc' ? '#pk = :pk AND #sk >= :first' : '#pk = :pk AND #sk <= :first',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: { ':pk': articlePartition(record.incarnation), ':first': articleSeq(first) },
    ScanIndexForward: sort === 'asc',
    Limit: limit,
  });
  // Numbers past the magazine's count belong to an article still being added: not there yet.
  const articles = items.map(decodeArticle).filter((article) => Number(article.id.split('~').pop()) <= count);
  const last = articles.at(-1);
  const lastSeq = last ? Number(last.id.split('~').pop()) : first;
  return {
    items: articles.map(({ writeToken: _, ...article }) => article),
    count,
    offset,
    ...(last && offset + articles.length < count && { next: `${record.incarnation}~${lastSeq}` }),
    ...version,
  };
};
