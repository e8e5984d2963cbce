import type { ProxiedCall } from './fault-types';

/**
 * The first client's transactions, as a fault proxy sees them: those of the operation `caller`
 * that name `title` (or all of `caller`'s, without one), so that a fault meets that client's write
 * and not the other client's that overtakes it.
 */
export const firstClients = (caller: string, title?: string) => (call: ProxiedCall) => {
  if (call.operation !== 'TransactWriteItems' || call.caller !== caller) return false;
  if (title === undefined) return true;
  const items = (call.request.TransactItems ?? []) as {
    Put?: { Item?: { title?: { S?: string } } };
    Update?: { ExpressionAttributeValues?: Record<string, { S?: string }> };
  }[];
  return items.some(
    (item) => item.Put?.Item?.title?.S === title || item.Update?.ExpressionAttributeValues?.[':title']?.S === title,
  );
};
