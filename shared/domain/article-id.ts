/**
 * An article's id names where it is: `<magazine id>~<incarnation>~<number>`, the magazine's
 * incarnation and the article's number in it (shared/db/articles.ts says why). An id of another
 * form names no article, real or simulated: it is a 404 without a look at any store. Apart from
 * the article's schema, so that what imports the id's form does not carry the schema too.
 */
export const articleId = (magazineId: string, incarnation: string, seq: number) =>
  `${magazineId}~${incarnation}~${seq}`;

export const parseArticleId = (id: string) => {
  const match = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63})~([A-Za-z0-9]{1,16})~([1-9][0-9]{0,9})$/.exec(id);
  return match ? { magazineId: match[1] ?? '', incarnation: match[2] ?? '', seq: Number(match[3]) } : undefined;
};
