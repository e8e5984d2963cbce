/**
 * The producer: a batch of the table's stream in, its change events on the bus, in order. The
 * stream function and `npm start` both run it.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { config, storeConfig } from '../config';
import { createDocumentClient } from '../db/client';
import { tableAccess } from '../db/table-access';
import { linksAt } from '../http/links';
import { CALL_ATTEMPT_MS } from '../timing';
import { articleKeysOf, articleLookupKey, type ChangeEvent, eventsOf } from './change-events';
import { type BusEntry, eventBus, type PutEvents } from './event-bus';
import { EVENT_SOURCE } from './names';

/** PutEvents takes at most 10 entries (and 256 KB) a call. */
export const ENTRIES_PER_CALL = 10;
const MAX_BYTES = 240 * 1024;
const ATTEMPTS = 5;

const delay = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export const entryOf = (event: ChangeEvent): BusEntry => ({
  Source: EVENT_SOURCE,
  DetailType: event.type,
  Detail: JSON.stringify(event.detail),
  Time: new Date(event.detail.occurredAt),
});

/** Calls of at most 10 entries and 240 KB, in order. */
const callsOf = (entries: readonly BusEntry[]) => {
  const calls: BusEntry[][] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = entry.Detail.length + entry.DetailType.length + entry.Source.length;
    const last = calls.at(-1);
    if (!last || last.length >= ENTRIES_PER_CALL || bytes + size > MAX_BYTES) {
      calls.push([entry]);
      bytes = size;
    } else {
      last.push(entry);
      bytes += size;
    }
  }
  return calls;
};

/** One call, ended after `ms` if it has not answered: a hung connection must not hold the shard until Lambda's timeout. */
const putWithin = async (put: PutEvents, entries: readonly BusEntry[], ms: number) => {
  try {
    return await put(entries, AbortSignal.timeout(ms));
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError')
      throw new Error(`PutEvents did not answer within ${ms} ms.`, { cause: error });
    throw error;
  }
};

/**
 * Puts the entries in order, by `deadline` (epoch ms). A refused entry is sent again with every
 * entry after it in its call, so that no event overtakes an earlier one of its magazine (the ones
 * sent twice carry the same `eventId`, which consumers deduplicate on). Still refused after a few
 * tries, or not done by the deadline, it throws: the stream gives the batch again, and in the end
 * to the failure queue.
 */
export const putInOrder = async (
  put: PutEvents,
  entries: readonly BusEntry[],
  deadline: number,
  pause = delay,
): Promise<number> => {
  const pastDeadline = (pending: readonly BusEntry[]) =>
    new Error(`PutEvents: ${pending.length} entries not put by the deadline; the stream gives the batch again.`);
  for (const call of callsOf(entries)) {
    let pending = call;
    for (let attempt = 1; ; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) throw pastDeadline(pending);
      const { failed } = await putWithin(put, pending, Math.min(CALL_ATTEMPT_MS, left));
      if (failed.length === 0) break;
      if (attempt >= ATTEMPTS) throw new Error(`PutEvents refused ${failed.length} entries ${ATTEMPTS} times.`);
      pending = pending.slice(Math.min(...failed));
      const wait = 50 * 2 ** attempt;
      if (Date.now() + wait >= deadline) throw pastDeadline(pending);
      await pause(wait);
    }
  }
  return entries.length;
};

/** The producer bound to the table and the bus, made once per function instance. */
export const eventPublisher = (put: PutEvents = eventBus()) => {
  const { tableName } = storeConfig();
  const client = createDocumentClient({ operation: 'publishEvents' });
  // The API's own address (the publisher serves no request to learn it from): set by the stack and by `npm start`.
  const links = linksAt((process.env.EVENTS_BASE_URL || config().baseUrl || '').replace(/\/+$/, ''));
  return async (records: readonly DynamoDBRecord[], deadline: number): Promise<ChangeEvent[]> => {
    const keys = articleKeysOf(records);
    const articles = new Map<string, Record<string, unknown>>();
    if (keys.length > 0) {
      const found = await tableAccess(client, tableName, deadline).getMany(keys);
      for (const key of keys) {
        const item = found.get(key);
        if (item) articles.set(articleLookupKey(key), item);
      }
    }
    const events = eventsOf(records, { links, articles });
    await putInOrder(put, events.map(entryOf), deadline);
    return events;
  };
};
