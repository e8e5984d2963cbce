import { createHash } from 'node:crypto';
import type { RecordedCall } from '../dynamodb-faults';
import { describePlan, type FaultPlan, faultOf, type KeyPick, operationsOf, type TAG_POOL } from './arbitraries';
import { describe, expectError, fail, type Harness, nowSeconds, type Sent, same, send } from './harness';
import type { ApiModel, ArticleBody, TagRef } from './model';
import { enc, learnCreated } from './views';
import type { WireResponse } from './wire';

/** What every write step of a sequence shares (sequences.ts): carrying a write out under faults, and working out what it left when its answer did not say. */

type Outcome =
  /** The answer the model predicts, and what to change in it. */
  | {
      readonly kind: 'expect';
      readonly check: (response: WireResponse) => void;
      readonly apply?: (response: WireResponse) => void;
    }
  | { readonly kind: 'none' };

/** What a write may leave behind when its answer did not say (a 503): the model as it was, or as the write makes it. */
interface WriteSpec {
  readonly describe: string;
  readonly sent: Sent;
  /** The answer the model predicts when the write goes through (or is refused), and its effect. */
  readonly predict: () => Outcome;
  /** Whether sending it again finishes it (bulk writes, POSTs with a key). */
  readonly resendable: boolean;
  /** The write's effect on `harness.model`, where it can be known without its answer. */
  readonly effect?: () => void;
  /**
   * How to tell, once healed, whether a write answered with 503 took effect: `applied` (the
   * probe completes `after` with what only the API knew, such as a new id) or `untouched`.
   */
  readonly probe?: (harness: Harness, before: ApiModel, after: ApiModel) => Promise<'applied' | 'untouched'>;
  /** Before a bulk write is sent again: readers see the old collection whole, or the new one. */
  readonly between?: (harness: Harness) => Promise<void>;
}

export const MAX_RESENDS = 6;

/** The calls that met a fault after a lost reply: then the API could not have learnt its write was done. */
export const detectionImpaired = (calls: readonly RecordedCall[]) => {
  const lost = calls.findIndex((c) => c.outcome === 'lostReply');
  if (calls.some((c) => c.outcome === 'timeout')) return true;
  return lost >= 0 && calls.slice(lost + 1).some((c) => c.outcome !== 'passed');
};

/**
 * Carries out one write: injects the step's fault, sends, clears the faults, then holds the
 * answer against the model. A 503 is followed, faults cleared, by the check that nothing
 * happened (or, for bulk writes and keyed POSTs, by sending the same request again until it is
 * done, which must then show exactly one effect).
 */
export const carryOut = async (harness: Harness, spec: WriteSpec, plan: FaultPlan | undefined) => {
  const { faults } = harness;
  harness.log.push(`${spec.describe}${faults ? ` [${describePlan(plan)}]` : ''}`);
  faults?.resetCalls();
  if (faults && plan) {
    faults.inject({
      fault: faultOf(plan),
      after: plan.after,
      ...(plan.times !== Infinity && { times: plan.times }),
      ...(operationsOf(plan) && { operations: operationsOf(plan) }),
    });
  }
  let response: WireResponse;
  try {
    response = await send(harness, spec.sent);
  } finally {
    faults?.clearFaults();
  }
  const calls = faults?.takeCalls() ?? [];
  harness.log.push(`  → ${response.status}${response.status >= 400 ? ` ${response.text.slice(0, 160)}` : ''}`);
  if (response.status !== 503) {
    const outcome = spec.predict();
    if (outcome.kind === 'expect') {
      outcome.check(response);
      outcome.apply?.(response);
    }
    return;
  }
  // A 503: once healed, the write left nothing behind, or is finished by sending it again.
  if (spec.resendable) {
    await spec.between?.(harness);
    for (let attempt = 1; ; attempt++) {
      if (attempt > MAX_RESENDS)
        fail(harness, ['fault handling'], `${spec.describe}: still 503 after ${MAX_RESENDS} resends with no faults`);
      const again = await send(harness, spec.sent);
      harness.log.push(`  sent again → ${again.status}${again.status >= 400 ? ` ${again.text.slice(0, 160)}` : ''}`);
      if (again.status === 503 || again.status === 409) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(again.headers['retry-after'] ?? 1)));
        continue;
      }
      const outcome = spec.predict();
      if (outcome.kind === 'expect') {
        outcome.check(again);
        outcome.apply?.(again);
      }
      return;
    }
  }
  if (!spec.probe) return;
  const before = harness.model.clone();
  const after = harness.model.clone();
  // The effect the write would have had, on a copy.
  if (spec.effect) {
    const model = harness.model;
    harness.model = after;
    try {
      spec.effect();
    } finally {
      harness.model = model;
    }
  }
  const found = await spec.probe(harness, before, after);
  if (found === 'applied') {
    if (!detectionImpaired(calls))
      fail(
        harness,
        ['fault handling'],
        `${spec.describe}: answered 503, yet it was carried out, though nothing kept the API from learning it was (${calls.map((c) => `${c.operation}:${c.outcome}`).join(', ')})`,
      );
    harness.model = after;
    harness.log.push('  (it was carried out: its reply was lost where the API could not check)');
  } else {
    harness.model = before;
  }
};

/** A title told apart by its number, still within the 256 characters a title may have (cut between code points). */
export const numbered = (title: string, index: number) => {
  const suffix = ` #${index}`;
  const points = Array.from(title);
  while (points.join('').length + suffix.length > 256) points.pop();
  return `${points.join('')}${suffix}`;
};

export const bodyOfMagazine = (fields: {
  id?: string;
  title: string;
  tags: readonly (typeof TAG_POOL)[number][];
  created?: number;
  type?: boolean;
}) =>
  JSON.stringify({
    ...(fields.id !== undefined && { id: fields.id }),
    ...(fields.type && { type: 'magazine' }),
    title: fields.title,
    tags: fields.tags.map((t) => t.sent),
    ...(fields.created !== undefined && { created: fields.created }),
  });

/**
 * `created` as a PUT leaves it in the model: the one sent, else the replaced magazine's, else a
 * time within the request.
 */
export const createdAfterPut = (
  sent: number | undefined,
  previous: { readonly created?: unknown } | undefined,
  started: number,
) =>
  sent !== undefined
    ? { created: sent }
    : previous
      ? { created: previous.created as number }
      : { createdWithin: [started, nowSeconds()] as const };

export const tagRefs = (tags: readonly (typeof TAG_POOL)[number][]): TagRef[] =>
  tags.map((t) => ({ id: t.id, name: t.sent.name }));

const fingerprint = (method: string, path: string, body: string) =>
  createHash('sha256').update(`${method} ${path}\n${body}`).digest('base64url');

/** The key a POST carries: a new one of this run, or one sent before (with its request or another). */
export const chooseKey = (
  harness: Harness,
  operation: string,
  pick: KeyPick | undefined,
  path: string,
  body: string,
) => {
  if (!pick) return { key: undefined, path, body };
  const earlier = harness.model.keyLog.filter((entry) => entry.operation === operation);
  if (pick.reuse && earlier.length > 0) {
    const entry = earlier[pick.n % earlier.length] as (typeof earlier)[number];
    return pick.sameBody ? { key: entry.key, path: entry.path, body: entry.body } : { key: entry.key, path, body };
  }
  harness.keyCounter += 1;
  return { key: `${harness.nonce}-${harness.keyCounter} ✓`.replace(/[^\x20-\x7e]/g, '*'), path, body };
};

export const expectCreated = (
  harness: Harness,
  response: WireResponse,
  id: string | undefined,
  location: (id: string) => string,
  what: string,
) => {
  if (response.status !== 201) fail(harness, ['model'], `${what}: expected 201, got\n${describe(response)}`);
  const body = JSON.parse(response.text) as { id?: unknown };
  if (typeof body.id !== 'string' || (id !== undefined && body.id !== id))
    fail(harness, ['model'], `${what}: expected {"id": ${id ?? 'a new id'}}, got\n${describe(response)}`);
  if (response.headers.location !== location(String(body.id)))
    fail(harness, ['model'], `${what}: Location ${response.headers.location}, expected ${location(String(body.id))}`);
  return String(body.id);
};

/** POST /magazines and POST /magazines/{id}/articles with a key: the model's answer for a key seen before. */
export const keyedOutcome = (
  harness: Harness,
  operation: string,
  key: string | undefined,
  path: string,
  body: string,
): Outcome | undefined => {
  if (key === undefined) return undefined;
  const record = harness.model.keys.get(`${operation}\n${key}`);
  if (!record) return undefined;
  if (record.fingerprint !== fingerprint('POST', path, body))
    return {
      kind: 'expect',
      check: (r) => expectError(harness, r, 422, '42201', `${operation} with a key used for another request`),
    };
  return {
    kind: 'expect',
    check: (r) => {
      if (r.status !== record.status || JSON.parse(r.text).id !== record.id || r.headers.location !== record.location)
        fail(
          harness,
          ['model'],
          `a replay of ${operation} must give the first answer (${record.status} ${record.id} ${record.location}), got\n${describe(r)}`,
        );
    },
  };
};

export const remember = (
  harness: Harness,
  operation: string,
  key: string | undefined,
  path: string,
  body: string,
  response: WireResponse,
) => {
  if (key === undefined) return;
  harness.model.keyLog.push({ operation, key, path, body });
  if (response.status === 201)
    harness.model.keys.set(`${operation}\n${key}`, {
      fingerprint: fingerprint('POST', path, body),
      status: 201,
      id: String(JSON.parse(response.text).id),
      location: String(response.headers.location),
    });
};

/** Whether a magazine is there as the model after the write has it, or as before: by reading it. */
export const probeMagazine =
  (id: string | undefined, title?: string, tags?: readonly TagRef[], started?: number) =>
  async (harness: Harness, before: ApiModel, after: ApiModel): Promise<'applied' | 'untouched'> => {
    await learnCreatedOf(harness, before);
    if (id === undefined) {
      // A create without an id: a new id in the list is the write.
      const list = await send(harness, { method: 'GET', path: '/magazines?limit=100' });
      const shown = (JSON.parse(list.text) as { results: { id: string; title: string; created: string }[] }).results;
      const added = shown.filter((m) => !before.magazines.has(m.id));
      if (added.length === 0) return 'untouched';
      const [made] = added;
      if (added.length > 1 || made?.title !== title)
        fail(
          harness,
          ['fault handling'],
          `a create without id answered 503, and then the list has ${JSON.stringify(added)}`,
        );
      after.put({
        id: made?.id ?? '',
        title: title ?? '',
        tags: tags ?? [],
        createdWithin: [started ?? 0, nowSeconds()],
        articles: [],
      });
      return 'applied';
    }
    const response = await send(harness, { method: 'GET', path: `/magazines/${enc(id ?? '')}` });
    const shown =
      response.status === 200
        ? (JSON.parse(response.text) as { title: string; tags: { id: string; name: string }[]; created: string })
        : undefined;
    const matches = (model: ApiModel) => {
      const magazine = model.magazines.get(id ?? '');
      if (!magazine || !shown) return !magazine && !shown;
      return (
        magazine.title === shown.title &&
        same(
          magazine.tags,
          shown.tags.map((t) => ({ id: t.id, name: t.name })),
        ) &&
        (magazine.created === undefined || String(magazine.created) === shown.created)
      );
    };
    if (matches(before)) return 'untouched';
    if (matches(after)) return 'applied';
    return fail(
      harness,
      ['fault handling'],
      `after a 503 and with faults cleared, magazine ${id} is neither as before nor as after the write:\n${describe(response)}`,
    );
  };

const learnCreatedOf = async (harness: Harness, model: ApiModel) => {
  const current = harness.model;
  harness.model = model;
  try {
    await learnCreated(harness);
  } finally {
    harness.model = current;
  }
};

/** Whether an article was added after all: by the count of its magazine's articles (the new one joins the model if so). */
export const probeArticles =
  (magazineId: string, body: string, started: number) =>
  async (harness: Harness, before: ApiModel, after: ApiModel): Promise<'applied' | 'untouched'> => {
    const response = await send(harness, { method: 'GET', path: `/magazines/${enc(magazineId)}/articles?limit=100` });
    const shown = response.status === 200 ? (JSON.parse(response.text) as { results: { id: string }[] }).results : [];
    const had = before.magazines.get(magazineId)?.articles ?? [];
    if (shown.length === had.length) return 'untouched';
    const added = shown.filter((a) => !had.some((known) => known.id === a.id));
    const magazine = after.magazines.get(magazineId);
    if (added.length !== 1 || !magazine)
      return fail(
        harness,
        ['fault handling'],
        `magazine ${magazineId} has ${shown.length} articles after a 503, the model ${had.length}`,
      );
    magazine.articles.push({
      id: added[0]?.id ?? '',
      body: JSON.parse(body) as ArticleBody,
      createdWithin: [started, nowSeconds()],
    });
    return 'applied';
  };
