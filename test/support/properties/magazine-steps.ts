import type fc from 'fast-check';
import {
  describePlan,
  type FaultPlan,
  type IdPick,
  type IfMatchPick,
  type KeyPick,
  type Look,
  pickId,
  TAG_POOL,
} from './arbitraries';
import { describe, expectError, fail, type Harness, nowSeconds, type Sent, same, send } from './harness';
import type { ApiModel } from './model';
import { checkViews, enc } from './views';
import {
  bodyOfMagazine,
  carryOut,
  chooseKey,
  createdAfterPut,
  expectCreated,
  keyedOutcome,
  probeMagazine,
  remember,
  tagRefs,
} from './writes';

/** The steps of a sequence on one magazine (sequences.ts): create, replace, delete; and the base of every step. */

export abstract class Step implements fc.AsyncCommand<ApiModel, Harness> {
  constructor(
    readonly look: Look,
    readonly plan: FaultPlan | undefined,
  ) {}
  check = () => true;
  abstract act(harness: Harness): Promise<void>;
  async run(_model: ApiModel, harness: Harness) {
    if (harness.counting) harness.figures.cases += 1;
    await this.act(harness);
    await checkViews(harness, this.look);
  }
  abstract describe(): string;
  toString() {
    return `${this.describe()}${this.plan ? ` [${describePlan(this.plan)}]` : ''}`;
  }
}

export class CreateMagazine extends Step {
  constructor(
    readonly id: IdPick | undefined,
    readonly title: string,
    readonly tags: readonly (typeof TAG_POOL)[number][],
    readonly created: number | undefined,
    readonly key: KeyPick | undefined,
    readonly prefix: Look['prefix'],
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `POST ${this.prefix}/magazines ${JSON.stringify({ id: this.id, title: this.title, tags: this.tags.map((t) => t.sent), created: this.created, key: this.key })}`;
  }
  async act(harness: Harness) {
    const id = this.id === undefined ? undefined : pickId(harness.model, this.id);
    const fresh = bodyOfMagazine({
      ...(id !== undefined && { id }),
      title: this.title,
      tags: this.tags,
      ...(this.created !== undefined && { created: this.created }),
    });
    const { key, body } = chooseKey(harness, 'createMagazine', this.key, '/magazines', fresh);
    const sentBody = body;
    const parsed = JSON.parse(sentBody) as {
      id?: string;
      title: string;
      tags: { id?: string; name: string }[];
      created?: number;
    };
    const bodyId = parsed.id;
    const bodyTags = parsed.tags.map((sent) => TAG_POOL.find((t) => same(t.sent, sent)) as (typeof TAG_POOL)[number]);
    const started = nowSeconds();
    const sent: Sent = {
      method: 'POST',
      path: `${this.prefix}/magazines`,
      body: sentBody,
      ...(key !== undefined && { headers: [['Idempotency-Key', key]] }),
    };
    const location = (made: string) => `${harness.baseUrl}/v1/magazines/${made}`;
    await carryOut(
      harness,
      {
        describe: `POST ${sent.path} ${sentBody}${key ? ` (key ${key})` : ''}`,
        sent,
        resendable: key !== undefined,
        predict: () =>
          keyedOutcome(harness, 'createMagazine', key, '/magazines', sentBody) ??
          (bodyId !== undefined && harness.model.magazines.has(bodyId)
            ? {
                kind: 'expect',
                check: (r) => {
                  expectError(harness, r, 405, '40502', `POST of an id that exists`);
                  if (key !== undefined)
                    harness.model.keyLog.push({ operation: 'createMagazine', key, path: '/magazines', body: sentBody });
                },
              }
            : {
                kind: 'expect',
                check: (r) => {
                  expectCreated(harness, r, bodyId, location, 'POST /magazines');
                },
                apply: (r) => {
                  const made = String(JSON.parse(r.text).id);
                  harness.model.put({
                    id: made,
                    title: parsed.title,
                    tags: tagRefs(bodyTags),
                    ...(parsed.created !== undefined
                      ? { created: parsed.created }
                      : { createdWithin: [started, nowSeconds()] }),
                    articles: [],
                  });
                  remember(harness, 'createMagazine', key, '/magazines', sentBody, r);
                },
              }),
        effect: () => {
          if (bodyId === undefined || harness.model.magazines.has(bodyId)) return;
          harness.model.put({
            id: bodyId,
            title: parsed.title,
            tags: tagRefs(bodyTags),
            ...(parsed.created !== undefined
              ? { created: parsed.created }
              : { createdWithin: [started, nowSeconds()] }),
            articles: [],
          });
        },
        probe: probeMagazine(bodyId, parsed.title, tagRefs(bodyTags), started),
      },
      this.plan,
    );
  }
}

export const ifMatchHeader = async (
  harness: Harness,
  id: string | undefined,
  pick: IfMatchPick,
): Promise<string | undefined> => {
  if (pick === 'none') return undefined;
  if (pick === 'star') return '*';
  if (pick === 'bogus') return '"nope-json"';
  const seen = id === undefined ? harness.model.collectionEtag : harness.model.etags.get(id);
  if (pick === 'stale') return seen?.stale.at(-1) ?? '"stale-json"';
  if (seen?.current) return seen.current;
  // Read it as a client would before a conditional write.
  const response = await send(harness, {
    method: 'GET',
    path: id === undefined ? '/magazines?limit=1' : `/magazines/${enc(id)}`,
  });
  const etag = response.status === 200 ? response.headers.etag : undefined;
  if (etag === undefined) return undefined;
  const model =
    id === undefined
      ? harness.model.collectionEtag
      : (harness.model.etags.get(id) ?? harness.model.etags.set(id, { stale: [] }).get(id));
  if (model?.stale.includes(etag))
    fail(harness, ['model'], `the ETag of ${id ?? 'the collection'} (${etag}) is one it had before a change`);
  if (model) model.current = etag;
  return etag;
};

/** Whether an If-Match sent holds for the model: `*` for anything there, or the current ETag. */
export const holds = (harness: Harness, id: string | undefined, header: string | undefined, exists: boolean) => {
  if (header === undefined) return true;
  if (!exists) return false;
  if (header === '*') return true;
  const seen = id === undefined ? harness.model.collectionEtag : harness.model.etags.get(id);
  return seen?.current !== undefined && header === seen.current;
};

export class ReplaceMagazine extends Step {
  constructor(
    readonly id: IdPick,
    readonly title: string,
    readonly tags: readonly (typeof TAG_POOL)[number][],
    readonly created: number | undefined,
    readonly includeId: boolean,
    readonly ifMatch: IfMatchPick,
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `PUT /magazines/{${this.id.kind} ${this.id.n}} ${JSON.stringify({ title: this.title, tags: this.tags.map((t) => t.sent), created: this.created, includeId: this.includeId, ifMatch: this.ifMatch })}`;
  }
  async act(harness: Harness) {
    const id = pickId(harness.model, this.id);
    const header = await ifMatchHeader(harness, id, this.ifMatch);
    const body = bodyOfMagazine({
      ...(this.includeId && { id }),
      title: this.title,
      tags: this.tags,
      ...(this.created !== undefined && { created: this.created }),
      type: this.includeId,
    });
    const started = nowSeconds();
    /** The magazine as this PUT leaves it: `created` kept from the one it replaces unless the body gives one. */
    const putInModel = (previous: ReturnType<typeof harness.model.magazines.get>) =>
      harness.model.put({
        id,
        title: this.title,
        tags: tagRefs(this.tags),
        ...createdAfterPut(this.created, previous, started),
        articles: previous?.articles ?? [],
      });
    const sent: Sent = {
      method: 'PUT',
      path: `/magazines/${enc(id)}`,
      body,
      ...(header !== undefined && { headers: [['If-Match', header]] }),
    };
    await carryOut(
      harness,
      {
        describe: `PUT ${sent.path} ${body}${header ? ` (If-Match ${header})` : ''}`,
        sent,
        resendable: false,
        predict: () => {
          const previous = harness.model.magazines.get(id);
          if (!holds(harness, id, header, previous !== undefined))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 412, '41201', 'PUT with an If-Match that does not hold'),
            };
          return {
            kind: 'expect',
            check: (r) => {
              if (previous) {
                if (r.status !== 200 || !same(JSON.parse(r.text), { id }))
                  fail(harness, ['model'], `PUT of an existing magazine: expected 200 {"id"}, got\n${describe(r)}`);
              } else
                expectCreated(
                  harness,
                  r,
                  id,
                  (made) => `${harness.baseUrl}/v1/magazines/${made}`,
                  'PUT of a new magazine',
                );
            },
            apply: () => putInModel(previous),
          };
        },
        effect: () => {
          const previous = harness.model.magazines.get(id);
          if (holds(harness, id, header, previous !== undefined)) putInModel(previous);
        },
        probe: probeMagazine(id),
      },
      this.plan,
    );
  }
}

export class DeleteMagazine extends Step {
  constructor(
    readonly id: IdPick,
    readonly ifMatch: IfMatchPick,
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `DELETE /magazines/{${this.id.kind} ${this.id.n}} (If-Match ${this.ifMatch})`;
  }
  async act(harness: Harness) {
    const id = pickId(harness.model, this.id);
    const header = await ifMatchHeader(harness, id, this.ifMatch);
    const sent: Sent = {
      method: 'DELETE',
      path: `/magazines/${enc(id)}`,
      ...(header !== undefined && { headers: [['If-Match', header]] }),
    };
    await carryOut(
      harness,
      {
        describe: `DELETE ${sent.path}${header ? ` (If-Match ${header})` : ''}`,
        sent,
        resendable: false,
        predict: () => {
          if (!harness.model.magazines.has(id))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 404, '40402', 'DELETE of a magazine that is not there'),
            };
          if (!holds(harness, id, header, true))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 412, '41201', 'DELETE with an If-Match that does not hold'),
            };
          return {
            kind: 'expect',
            check: (r) => {
              if (r.status !== 200 || !same(JSON.parse(r.text), { id }))
                fail(harness, ['model'], `DELETE: expected 200 {"id"}, got\n${describe(r)}`);
            },
            apply: () => harness.model.remove(id),
          };
        },
        effect: () => {
          if (holds(harness, id, header, harness.model.magazines.has(id))) harness.model.remove(id);
        },
        probe: probeMagazine(id),
      },
      this.plan,
    );
  }
}
