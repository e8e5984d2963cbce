import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_BUDGET, bundleFunctions, projectRoot } from '../../local/bundle-functions';

/**
 * The bundle budget: every function, bundled as the stack deploys it, is at most BUNDLE_BUDGET
 * times the size of the reference handler. Size is measured, not timed: the same sources always
 * give the same bytes.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'bundle-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundle budget', () => {
  it(`every function is at most ${BUNDLE_BUDGET}× the reference handler`, async () => {
    const bundles = await bundleFunctions(dir, {
      extra: { reference: path.join(projectRoot, 'bench', 'reference-handler.ts') },
    });
    const size = (name: string) => statSync(bundles.file(name)).size;
    const reference = size('reference');
    const ratios = Object.fromEntries(
      bundles.names.filter((name) => name !== 'reference').map((name) => [name, +(size(name) / reference).toFixed(3)]),
    );
    const over = Object.entries(ratios).filter(([, ratio]) => ratio > BUNDLE_BUDGET);
    expect(over, `reference ${reference} bytes; ratios ${JSON.stringify(ratios)}`).toEqual([]);
    // The table's functions carry the SDK as the reference does: a ratio far below 1 means the bundle lost it.
    expect(ratios['get-magazine']).toBeGreaterThan(1);
  });
});
