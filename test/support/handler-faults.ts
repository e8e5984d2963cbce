/**
 * DynamoDB's answers for handler tests that mock the document client (aws-sdk-client-mock): the
 * errors it throws, a magazine item as stored, and BatchGetItem answered from a set of items.
 */

export const awsError = (name: string, extra: object = {}) =>
  Object.assign(new Error(name), { name, $metadata: {} }, extra);
export const serverFault = () =>
  awsError('InternalServerError', { $fault: 'server', $metadata: { httpStatusCode: 500 } });
export const cancelled = (...codes: string[]) =>
  awsError('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

export const magazineItem = (revision: string, extra: object = {}) => ({
  PK: 'G#0#MAG#m1',
  SK: 'MAGAZINE',
  id: 'm1',
  title: 'Old',
  tags: [{ id: 'science', name: 'Science' }],
  created: 1_700_000_000,
  updated: 1_700_000_000,
  revision,
  incarnation: 'inc1',
  articles: 0,
  ...extra,
});

/** BatchGetItem answers: the head (first generation: no item) and whatever of `items` was asked. */
export const batchGetFrom =
  (items: Record<string, unknown>[]) =>
  (input: { RequestItems?: Record<string, { Keys?: { PK: string; SK: string }[] }> }) => {
    const [table, request] = Object.entries(input.RequestItems ?? {})[0] ?? ['t', { Keys: [] }];
    const keys = request.Keys ?? [];
    return {
      Responses: { [table]: items.filter((item) => keys.some((key) => key.PK === item.PK && key.SK === item.SK)) },
    };
  };

export const json = { 'Content-Type': 'application/json' };

/** A valid body of `POST /magazines/{id}/articles`. */
export const article = {
  title: 'T',
  author_first_name: 'A',
  author_last_name: 'L',
  author_email: 'a@example.com',
  date: '2024-01-31',
  text: 'x',
};
