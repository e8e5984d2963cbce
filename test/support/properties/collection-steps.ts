import { type FaultPlan, type IdPick, type KeyPick, type Look, pickId, type TAG_POOL } from './arbitraries';
import { describe, expectError, fail, type Harness, nowSeconds, type Sent, same, send } from './harness';
import { holds, ifMatchHeader, Step } from './magazine-steps';
import type { ArticleBody, ModelArticle, ModelMagazine } from './model';
import { checkViews, enc } from './views';
import {
  carryOut,
  chooseKey,
  createdAfterPut,
  expectCreated,
  keyedOutcome,
  numbered,
  probeArticles,
  remember,
  tagRefs,
} from './writes';

/** The steps of a sequence on the whole collection and on articles (sequences.ts): PUT or DELETE /magazines, POST an article. */

export interface BulkElement {
  readonly id: IdPick | undefined;
  readonly title: string;
  readonly tags: readonly (typeof TAG_POOL)[number][];
  readonly created: number | undefined;
}

/** PUT /magazines (or DELETE /magazines, with no elements). */
export class ReplaceAll extends Step {
  constructor(
    readonly elements: readonly BulkElement[] | undefined,
    readonly ifMatch: 'none' | 'current' | 'stale' | 'star',
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return this.elements === undefined
      ? `DELETE /magazines (If-Match ${this.ifMatch})`
      : `PUT /magazines ${JSON.stringify(this.elements.map((e) => ({ id: e.id, title: e.title, tags: e.tags.map((t) => t.sent), created: e.created })))} (If-Match ${this.ifMatch})`;
  }
  async act(harness: Harness) {
    const header = await ifMatchHeader(harness, undefined, this.ifMatch);
    const seen = new Set<string>();
    const started = nowSeconds();
    // Elements without an id get one from the server: their titles tell them apart in the list afterwards.
    const elements = (this.elements ?? []).flatMap((element, index) => {
      const id = element.id === undefined ? undefined : pickId(harness.model, element.id);
      if (id !== undefined && seen.has(id)) return [];
      if (id !== undefined) seen.add(id);
      return [{ ...element, id, title: id === undefined ? numbered(element.title, index) : element.title }];
    });
    const body = JSON.stringify(
      elements.map((e) => ({
        ...(e.id !== undefined && { id: e.id }),
        title: e.title,
        tags: e.tags.map((t) => t.sent),
        ...(e.created !== undefined && { created: e.created }),
      })),
    );
    const sent: Sent =
      this.elements === undefined
        ? { method: 'DELETE', path: '/magazines', ...(header !== undefined && { headers: [['If-Match', header]] }) }
        : { method: 'PUT', path: '/magazines', body, ...(header !== undefined && { headers: [['If-Match', header]] }) };
    const apply = async () => {
      const next: ModelMagazine[] = [];
      const unnamed = elements.filter((e) => e.id === undefined);
      let made: { id: string; title: string }[] = [];
      if (unnamed.length > 0) {
        const list = await send(harness, { method: 'GET', path: '/magazines?limit=100' });
        made = (JSON.parse(list.text) as { results: { id: string; title: string }[] }).results.filter(
          (m) => !seen.has(m.id),
        );
      }
      for (const e of elements) {
        const id = e.id ?? made.find((m) => m.title === e.title)?.id;
        if (id === undefined)
          fail(harness, ['model'], `PUT /magazines: the element "${e.title}" sent without id is not in the list`);
        const previous = harness.model.magazines.get(id as string);
        next.push({
          id: id as string,
          title: e.title,
          tags: tagRefs(e.tags),
          ...createdAfterPut(e.created, previous, started),
          articles: [],
        });
      }
      harness.model.replaceAll(next);
    };
    let applied: Promise<void> | undefined;
    await carryOut(
      harness,
      {
        describe: `${sent.method} /magazines ${sent.body ?? ''}${header ? ` (If-Match ${header})` : ''}`,
        sent,
        resendable: true,
        between: async () => {
          // Cut short: readers see the old collection whole, or (the switch made) the new one.
          const list = await send(harness, { method: 'GET', path: '/magazines?limit=100' });
          const shown = (JSON.parse(list.text) as { results: { id: string; title: string }[] }).results;
          const old = harness.model
            .ordered()
            .map((m) => `${m.id} ${m.title}`)
            .sort();
          const now = shown.map((m) => `${m.id} ${m.title}`).sort();
          const planned = elements.map((e) => e.title).sort();
          if (same(now, old)) {
            await checkViews(harness, this.look);
            harness.log.push('  (readers see the old collection whole)');
          } else if (
            same(shown.map((m) => m.title).sort(), planned) &&
            elements.every((e) => e.id === undefined || shown.some((m) => m.id === e.id))
          ) {
            harness.log.push('  (readers see the new collection whole)');
          } else {
            fail(
              harness,
              ['fault handling'],
              `a bulk write cut short (503) left readers a mix:\n${JSON.stringify(shown).slice(0, 1500)}\nold: ${JSON.stringify(old)}\nnew: ${JSON.stringify(planned)}`,
            );
          }
        },
        predict: () => {
          if (!holds(harness, undefined, header, true))
            return {
              kind: 'expect',
              check: (r) => expectError(harness, r, 412, '41201', 'a bulk write with an If-Match that does not hold'),
            };
          return {
            kind: 'expect',
            check: (r) => {
              if (r.status !== 200 || !same(JSON.parse(r.text), { id: 'magazines' }))
                fail(
                  harness,
                  ['model'],
                  `${sent.method} /magazines: expected 200 {"id":"magazines"}, got\n${describe(r)}`,
                );
            },
            apply: () => {
              applied = apply();
            },
          };
        },
      },
      this.plan,
    );
    await applied;
  }
}

export class AddArticle extends Step {
  constructor(
    readonly magazine: IdPick,
    readonly body: ArticleBody,
    readonly key: KeyPick | undefined,
    readonly label: boolean,
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `POST /magazines/{${this.magazine.kind} ${this.magazine.n}}/articles${this.label ? '.json' : ''} ${JSON.stringify({ title: this.body.title, key: this.key })}`;
  }
  async act(harness: Harness) {
    const id = pickId(harness.model, this.magazine);
    const path = `/magazines/${enc(id)}/articles`;
    const { key, path: keyPath, body } = chooseKey(harness, 'createArticle', this.key, path, JSON.stringify(this.body));
    // A replay goes to the path of the request it repeats.
    const target = keyPath;
    const magazineId = decodeURIComponent(target.split('/')[2] ?? '');
    const started = nowSeconds();
    const sent: Sent = {
      method: 'POST',
      path: `${target}${this.label ? '.json' : ''}`,
      body,
      ...(key !== undefined && { headers: [['Idempotency-Key', key]] }),
    };
    await carryOut(
      harness,
      {
        describe: `POST ${sent.path} ${body.slice(0, 80)}…${key ? ` (key ${key})` : ''}`,
        sent,
        resendable: key !== undefined,
        predict: () =>
          keyedOutcome(harness, 'createArticle', key, target, body) ??
          (harness.model.magazines.has(magazineId)
            ? {
                kind: 'expect',
                check: (r) => {
                  expectCreated(
                    harness,
                    r,
                    undefined,
                    (made) => `${harness.baseUrl}/v1/articles/${made}`,
                    'POST an article',
                  );
                },
                apply: (r) => {
                  const made = String(JSON.parse(r.text).id);
                  const magazine = harness.model.magazines.get(magazineId) as ModelMagazine;
                  const article: ModelArticle = {
                    id: made,
                    body: JSON.parse(body) as ArticleBody,
                    createdWithin: [started, nowSeconds()],
                  };
                  magazine.articles.push(article);
                  remember(harness, 'createArticle', key, target, body, r);
                },
              }
            : {
                kind: 'expect',
                check: (r) => {
                  expectError(harness, r, 404, '40402', 'an article for a magazine that is not there');
                  if (key !== undefined)
                    harness.model.keyLog.push({ operation: 'createArticle', key, path: target, body });
                },
              }),
        probe: probeArticles(magazineId, body, started),
      },
      this.plan,
    );
  }
}
