import {
  describePlan,
  type FaultPlan,
  faultOf,
  type IdPick,
  type Look,
  operationsOf,
  pickId,
  type TAG_POOL,
} from './arbitraries';
import { describe, expectError, fail, type Harness, nowSeconds, send } from './harness';
import { Step } from './magazine-steps';
import type { ArticleBody, ModelArticle } from './model';
import { enc } from './views';
import type { WireResponse } from './wire';
import { bodyOfMagazine, detectionImpaired, expectCreated, tagRefs } from './writes';

/** A step of a sequence (sequences.ts) that sends writes at once: they commute, so the model adds them all. */

/** Writes sent at once: new magazines of distinct ids, and articles to one magazine. They commute, so the model adds them all. */
export class Burst extends Step {
  constructor(
    readonly creates: number,
    readonly articles: number,
    readonly magazine: IdPick,
    readonly tags: readonly (typeof TAG_POOL)[number][],
    look: Look,
    plan: FaultPlan | undefined,
  ) {
    super(look, plan);
  }
  describe() {
    return `burst of ${this.creates} creates and ${this.articles} articles to {${this.magazine.kind} ${this.magazine.n}} with tags ${this.tags.map((t) => t.id).join(',')}`;
  }
  async act(harness: Harness) {
    const target = pickId(harness.model, this.magazine);
    const started = nowSeconds();
    harness.keyCounter += 1;
    const burstId = `${harness.nonce.slice(0, 6)}-${harness.keyCounter}`;
    const creates = Array.from({ length: this.creates }, (_, i) => ({
      id: `b${burstId}-${i}`,
      body: bodyOfMagazine({
        id: `b${burstId}-${i}`,
        title: `Burst ${i}`,
        tags: this.tags,
        created: 1_650_000_000 + i,
      }),
    }));
    const { faults, plan } = { faults: harness.faults, plan: this.plan };
    harness.log.push(`${this.describe()}${faults ? ` [${describePlan(plan)}]` : ''}`);
    faults?.resetCalls();
    if (faults && plan) {
      faults.inject({
        fault: faultOf(plan),
        after: plan.after,
        ...(plan.times !== Infinity && { times: plan.times }),
        ...(operationsOf(plan) && { operations: operationsOf(plan) }),
      });
    }
    let results: WireResponse[];
    try {
      results = await Promise.all([
        ...creates.map((c) => send(harness, { method: 'POST', path: '/magazines', body: c.body })),
        ...Array.from({ length: this.articles }, (_, i) =>
          send(harness, {
            method: 'POST',
            path: `/magazines/${enc(target)}/articles`,
            body: JSON.stringify({
              title: `Burst article ${i}`,
              author_first_name: 'A',
              author_last_name: 'B',
              author_email: 'a@b.cd',
              date: '2024-01-01',
              text: 'x',
            }),
          }),
        ),
      ]);
    } finally {
      faults?.clearFaults();
    }
    const calls = faults?.takeCalls() ?? [];
    harness.log.push(`  → ${results.map((r) => r.status).join(' ')}`);
    const impaired = detectionImpaired(calls);
    for (const [i, c] of creates.entries()) {
      const r = results[i] as WireResponse;
      if (r.status === 201) {
        expectCreated(harness, r, c.id, (made) => `${harness.baseUrl}/v1/magazines/${made}`, 'a create of a burst');
        harness.model.put({
          id: c.id,
          title: `Burst ${i}`,
          tags: tagRefs(this.tags),
          created: 1_650_000_000 + i,
          articles: [],
        });
        continue;
      }
      if (r.status !== 503) fail(harness, ['model'], `a create of a burst: expected 201 or 503, got\n${describe(r)}`);
      const found = await send(harness, { method: 'GET', path: `/magazines/${enc(c.id)}` });
      if (found.status === 200) {
        if (!impaired)
          fail(harness, ['fault handling'], `a create of a burst answered 503 yet was carried out:\n${describe(r)}`);
        harness.model.put({
          id: c.id,
          title: `Burst ${i}`,
          tags: tagRefs(this.tags),
          created: 1_650_000_000 + i,
          articles: [],
        });
      }
    }
    const articleResults = results.slice(creates.length);
    const magazine = harness.model.magazines.get(target);
    let failed = 0;
    for (const r of articleResults) {
      if (!magazine) {
        // A store failing as it is asked whether the magazine exists can only answer 503.
        if (r.status !== 503 || !harness.faults)
          expectError(harness, r, 404, '40402', 'an article of a burst for a magazine that is not there');
        continue;
      }
      if (r.status === 503) {
        failed += 1;
        continue;
      }
      const made = expectCreated(
        harness,
        r,
        undefined,
        (id) => `${harness.baseUrl}/v1/articles/${id}`,
        'an article of a burst',
      );
      const index = Number(
        JSON.parse(r.request.body?.toString() ?? '{}')
          .title.split(' ')
          .pop(),
      );
      magazine.articles.push({
        id: made,
        body: {
          title: `Burst article ${index}`,
          author_first_name: 'A',
          author_last_name: 'B',
          author_email: 'a@b.cd',
          date: '2024-01-01',
          text: 'x',
        },
        createdWithin: [started, nowSeconds()],
      });
    }
    if (magazine && articleResults.length > 0) {
      // Articles of one magazine are shown in the order they were numbered: sort the model's by the list's order.
      const response = await send(harness, { method: 'GET', path: `/magazines/${enc(target)}/articles?limit=100` });
      const shown = (JSON.parse(response.text) as { results: (ArticleBody & { id: string })[] }).results;
      const extra = shown.filter((a) => !magazine.articles.some((known) => known.id === a.id));
      if (extra.length > 0 && (failed < extra.length || !impaired))
        fail(
          harness,
          ['fault handling'],
          `articles of a burst that answered 503 were carried out: ${extra.map((a) => a.id).join(', ')}`,
        );
      const known = new Map(magazine.articles.map((a) => [a.id, a]));
      for (const a of extra) {
        const { id, title, author_first_name, author_last_name, author_email, date, text } = a;
        known.set(id, {
          id,
          body: { title, author_first_name, author_last_name, author_email, date, text },
          createdWithin: [started, nowSeconds()],
        });
      }
      const modelled = magazine.articles.length + extra.length;
      magazine.articles.splice(0);
      magazine.articles.push(...shown.flatMap((a) => (known.has(a.id) ? [known.get(a.id) as ModelArticle] : [])));
      if (magazine.articles.length !== modelled)
        fail(
          harness,
          ['model'],
          `the articles of ${target} are ${shown.map((a) => a.id).join(', ')}; the model has ${[...known.keys()].join(', ')}`,
        );
    }
  }
}
