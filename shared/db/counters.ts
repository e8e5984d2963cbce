import { randomUUID } from 'node:crypto';
import { StoreUnavailable } from '../domain/errors';
import type { TagRef } from '../domain/tag';
import { type Aggregate, type CountChange, countersOf, decodeAggregate, decodeTicket, type Ticket } from './items';
import {
  aggregateKey,
  attr,
  countsPartition,
  daysKey,
  type ListName,
  TICKET_PREFIX,
  tagIndexKey,
  tagKey,
  tagList,
  ticketKey,
} from './keys';
import { ConditionsFailed, type Item, type TableAccess, TRANSACTION_LIMIT, type TransactItem } from './table-access';

/**
 * Exact counts without an item every write touches. A write counts what it changed on a ticket
 * of its own (a new item, so concurrent writes never meet on it), in the same transaction as the
 * items it counts. A list's counts are its aggregate plus the tickets not yet folded into it:
 * readers add them up, so counts are exact at every moment. Folding moves tickets into the
 * aggregates in batches, now and then (after some writes), so that the tickets stay few and no
 * aggregate is written by every write.
 */

const date = (seconds: number) => new Date(seconds * 1000);
export const yearOf = (seconds: number) => String(date(seconds).getUTCFullYear()).padStart(4, '0');
export const monthOf = (seconds: number) =>
  `${yearOf(seconds)}${String(date(seconds).getUTCMonth() + 1).padStart(2, '0')}`;
export const dayOf = (seconds: number) => String(date(seconds).getUTCDate()).padStart(2, '0');

/** The ticket of a write, in its transaction: the magazines it counted out and in. */
export const ticketPut = (
  tableName: string,
  generation: string,
  changes: readonly CountChange[],
  at: number,
): TransactItem => ({
  Put: {
    TableName: tableName,
    Item: {
      ...ticketKey(generation, `${String(at).padStart(12, '0')}#${randomUUID()}`),
      [attr.changes]: changes,
      [attr.at]: at,
    },
  },
});

export const counted = (
  magazine: { readonly created: number; readonly tags: readonly TagRef[] },
  sign: 1 | -1,
): CountChange => ({
  created: magazine.created,
  tags: magazine.tags.map((tag) => ({ id: tag.id, name: tag.name })),
  sign,
});

const inList = (change: CountChange, list: ListName) =>
  list === 'ALL' || change.tags.some((tag) => tagList(tag.id) === list);

/** The counts of the collection: its aggregate and its pending tickets, in one Query of one partition. */
export const readCounts = async (access: TableAccess, generation: string) => {
  const items = await access.partition(countsPartition(generation));
  const aggregate = items.find((item) => item.SK === aggregateKey(generation).SK);
  return {
    aggregate: decodeAggregate(aggregate),
    tickets: items.filter((item) => String(item.SK).startsWith(TICKET_PREFIX)).map(decodeTicket),
  };
};

/** A list's counts as readers see them: its aggregate with the pending tickets added. */
export interface ListCounts {
  readonly total: number;
  readonly years: Map<string, number>;
  readonly months: Map<string, number>;
  /** Writes that changed the list: with the generation, its version. */
  readonly writes: number;
  readonly lastModified: number;
  readonly names: Map<string, number>;
}

const add = (counters: Map<string, number>, key: string, delta: number) =>
  counters.set(key, (counters.get(key) ?? 0) + delta);

export const listCounts = (aggregate: Aggregate, tickets: readonly Ticket[], list: ListName): ListCounts => {
  const counts = {
    total: aggregate.total,
    years: new Map(aggregate.years),
    months: new Map(aggregate.months),
    writes: aggregate.writes,
    lastModified: aggregate.lastModified,
    names: new Map(aggregate.names),
  };
  for (const ticket of tickets) {
    // Every write changes the collection (a title too); a tag's list only the writes that touch its magazines.
    const touched = ticket.changes.filter((change) => inList(change, list));
    if (list !== 'ALL' && touched.length === 0) continue;
    counts.writes += 1;
    counts.lastModified = Math.max(counts.lastModified, ticket.at);
    for (const change of touched) {
      counts.total += change.sign;
      add(counts.years, yearOf(change.created), change.sign);
      add(counts.months, monthOf(change.created), change.sign);
      const name = change.tags.find((tag) => tagList(tag.id) === list)?.name;
      if (name !== undefined) add(counts.names, name, change.sign);
    }
  }
  return counts;
};

/** How many magazines of a list were created on each day of a month, pending tickets included. */
export const readDays = async (
  access: TableAccess,
  generation: string,
  list: ListName,
  month: string,
  tickets: readonly Ticket[],
): Promise<Map<string, number>> => {
  const days = countersOf(await access.get(daysKey(generation, list, month)), attr.dayPrefix);
  for (const change of tickets.flatMap((ticket) => ticket.changes)) {
    if (inList(change, list) && monthOf(change.created) === month) add(days, dayOf(change.created), change.sign);
  }
  return days;
};

/** The name `/tags` shows for a tag: the spelling most of its magazines carry; on a tie, the first in alphabetical order. */
export const shownName = (names: ReadonlyMap<string, number>): string | undefined =>
  [...names].filter(([, count]) => count > 0).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))[0]?.[0];

// ---------------------------------------------------------------------------------------------
// Folding

/** Tickets one fold takes at most; the transaction's 100 items bound it further. */
const FOLD_TICKETS = 40;

interface ListDelta {
  total: number;
  writes: number;
  lastModified: number;
  years: Map<string, number>;
  months: Map<string, number>;
  names: Map<string, number>;
  /** Per month, per day. */
  days: Map<string, Map<string, number>>;
}

const emptyDelta = (): ListDelta => ({
  total: 0,
  writes: 0,
  lastModified: 0,
  years: new Map(),
  months: new Map(),
  names: new Map(),
  days: new Map(),
});

const deltasOf = (tickets: readonly Ticket[]): Map<ListName, ListDelta> => {
  const deltas = new Map<ListName, ListDelta>([['ALL', emptyDelta()]]);
  const deltaOf = (list: ListName) => deltas.get(list) ?? deltas.set(list, emptyDelta()).get(list) ?? emptyDelta();
  for (const ticket of tickets) {
    const lists = new Set<ListName>([
      'ALL',
      ...ticket.changes.flatMap((change) => change.tags.map((tag) => tagList(tag.id))),
    ]);
    for (const list of lists) {
      const delta = deltaOf(list);
      delta.writes += 1;
      delta.lastModified = Math.max(delta.lastModified, ticket.at);
    }
    for (const change of ticket.changes) {
      for (const list of ['ALL' as ListName, ...change.tags.map((tag) => tagList(tag.id))]) {
        const delta = deltaOf(list);
        delta.total += change.sign;
        add(delta.years, yearOf(change.created), change.sign);
        add(delta.months, monthOf(change.created), change.sign);
        const month = monthOf(change.created);
        add(
          delta.days.get(month) ?? delta.days.set(month, new Map()).get(month) ?? new Map(),
          dayOf(change.created),
          change.sign,
        );
        const name = change.tags.find((tag) => tagList(tag.id) === list)?.name;
        if (name !== undefined) add(delta.names, name, change.sign);
      }
    }
  }
  return deltas;
};

/** Counter attributes set to their new values (zeros removed), on an item whose version the fold read. */
const versionedUpdate = (
  tableName: string,
  key: Item,
  before: Item | undefined,
  delta: ListDelta,
  extra: Record<string, number> = {},
): TransactItem => {
  const values = new Map<string, number>();
  const prior = (name: string) => (typeof before?.[name] === 'number' ? (before[name] as number) : 0);
  const put = (name: string, change: number) => values.set(name, prior(name) + change);
  put(attr.total, delta.total);
  put(attr.writes, delta.writes);
  for (const [year, change] of delta.years) put(`${attr.yearPrefix}${year}`, change);
  for (const [month, change] of delta.months) put(`${attr.monthPrefix}${month}`, change);
  for (const [name, change] of delta.names) put(`${attr.namePrefix}${name}`, change);
  for (const [name, change] of Object.entries(extra)) put(name, change);
  const names: Record<string, string> = { '#writes': attr.writes, '#modified': attr.lastModified };
  const expressionValues: Record<string, unknown> = {
    ':modified': Math.max(prior(attr.lastModified), delta.lastModified),
  };
  const sets = ['#modified = :modified'];
  const removes: string[] = [];
  let i = 0;
  for (const [name, value] of values) {
    names[`#a${i}`] = name;
    if (value === 0 && name !== attr.total && name !== attr.writes) removes.push(`#a${i}`);
    else {
      sets.push(`#a${i} = :v${i}`);
      expressionValues[`:v${i}`] = value;
    }
    i++;
  }
  const version = prior(attr.writes);
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: before ? '#writes = :version' : 'attribute_not_exists(#writes)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: before ? { ...expressionValues, ':version': version } : expressionValues,
    },
  };
};

const daysUpdates = (tableName: string, generation: string, list: ListName, delta: ListDelta): TransactItem[] =>
  [...delta.days].flatMap(([month, days]) => {
    const entries = [...days].filter(([, change]) => change !== 0);
    if (entries.length === 0) return [];
    return [
      {
        Update: {
          TableName: tableName,
          Key: daysKey(generation, list, month),
          UpdateExpression: `ADD ${entries.map((_, i) => `#d${i} :d${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(
            entries.map(([day], i) => [`#d${i}`, `${attr.dayPrefix}${day}`]),
          ),
          ExpressionAttributeValues: Object.fromEntries(entries.map(([, change], i) => [`:d${i}`, change])),
        },
      },
    ];
  });

/** The items of one fold of `tickets`, given the aggregates they change as read; undefined if they pass 100. */
const foldItems = (
  access: TableAccess,
  generation: string,
  tickets: readonly Ticket[],
  before: { readonly aggregate: Item | undefined; readonly tags: Map<string, Item> },
): TransactItem[] | undefined => {
  const { tableName } = access;
  const deltas = deltasOf(tickets);
  const items: TransactItem[] = [];
  let tagsInUse = 0;
  for (const [list, delta] of deltas) {
    items.push(...daysUpdates(tableName, generation, list, delta));
    if (list === 'ALL') continue;
    const tagId = list.slice(4);
    const prior = before.tags.get(tagId);
    const priorTotal = typeof prior?.[attr.total] === 'number' ? (prior[attr.total] as number) : 0;
    const after = priorTotal + delta.total;
    if (after <= 0 && prior) {
      tagsInUse -= 1;
      items.push(
        {
          Delete: {
            TableName: tableName,
            Key: tagKey(generation, tagId),
            ConditionExpression: '#writes = :version',
            ExpressionAttributeNames: { '#writes': attr.writes },
            ExpressionAttributeValues: { ':version': prior[attr.writes] ?? 0 },
          },
        },
        { Delete: { TableName: tableName, Key: tagIndexKey(generation, tagId) } },
      );
    } else if (after > 0) {
      if (!prior) {
        tagsInUse += 1;
        items.push({ Put: { TableName: tableName, Item: tagIndexKey(generation, tagId) } });
      }
      items.push(versionedUpdate(tableName, tagKey(generation, tagId), prior, delta));
    }
  }
  const all = deltas.get('ALL') ?? emptyDelta();
  items.push(
    versionedUpdate(tableName, aggregateKey(generation), before.aggregate, all, { [attr.tagsInUse]: tagsInUse }),
  );
  for (const ticket of tickets) {
    items.push({
      Delete: {
        TableName: tableName,
        Key: { PK: countsPartition(generation), SK: ticket.sk },
        ConditionExpression: 'attribute_exists(#sk)',
        ExpressionAttributeNames: { '#sk': 'SK' },
      },
    });
  }
  return items.length <= TRANSACTION_LIMIT ? items : undefined;
};

/**
 * Folds the oldest pending tickets into the aggregates, in one transaction conditioned on the
 * versions it read: a fold that meets another (or a ticket folded meanwhile) changes nothing
 * and is left to the next one. Returns how many tickets it folded.
 */
export const fold = async (access: TableAccess, generation: string): Promise<number> => {
  const { items } = await access.query({
    KeyConditionExpression: '#pk = :pk AND #sk <= :last',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: { ':pk': countsPartition(generation), ':last': `${TICKET_PREFIX}~` },
    Limit: FOLD_TICKETS + 1,
  });
  const aggregate = items.find((item) => item.SK === aggregateKey(generation).SK);
  let tickets = items.filter((item) => String(item.SK).startsWith(TICKET_PREFIX)).map(decodeTicket);
  if (tickets.length === 0) return 0;
  const tagIds = [
    ...new Set(tickets.flatMap((ticket) => ticket.changes.flatMap((change) => change.tags.map((tag) => tag.id)))),
  ];
  const read = await access.getMany(tagIds.map((tagId) => tagKey(generation, tagId)));
  const tags = new Map<string, Item>();
  for (const tagId of tagIds) {
    const item = read.get(tagKey(generation, tagId));
    if (item) tags.set(tagId, item);
  }
  for (;;) {
    const transactItems = foldItems(access, generation, tickets, { aggregate, tags });
    if (transactItems) {
      try {
        await access.transact(transactItems, { retryConflicts: false });
        return tickets.length;
      } catch (error) {
        // Another fold was at it: the tickets are its, or the next one's.
        if (error instanceof ConditionsFailed || (error instanceof StoreUnavailable && error.reason === 'conflict'))
          return 0;
        throw error;
      }
    }
    if (tickets.length === 1) return 0;
    tickets = tickets.slice(0, Math.ceil(tickets.length / 2));
  }
};
