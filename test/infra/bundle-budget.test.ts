import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_BUDGET, bundleFunctions, projectRoot } from '../../local/bundle-functions';
import { errorCatalogue, functionErrors } from '../../shared/http/error-catalogue';

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
  });

  it('no function carries the text of an error only API Gateway answers with, but those that document every error', async () => {
    const bundles = await bundleFunctions(dir);
    const gatewayTexts = Object.entries(errorCatalogue)
      .filter(([code]) => !(code in functionErrors))
      .map(([, { developerMessage }]) => developerMessage);
    expect(gatewayTexts.length).toBeGreaterThan(0);
    const documenting = /documentation|openapi|error-page/;
    const carrying = bundles.names
      .filter((name) => !documenting.test(name))
      .filter((name) => gatewayTexts.some((text) => readFileSync(bundles.file(name), 'utf8').includes(text)));
    expect(carrying).toEqual([]);
  });

  it('every function that calls AWS carries the SDK and reads its credentials from the environment only', async () => {
    const bundles = await bundleFunctions(dir, {
      extra: { reference: path.join(projectRoot, 'bench', 'reference-handler.ts') },
    });
    const text = (name: string) => readFileSync(bundles.file(name), 'utf8');
    // Strings of the default chain's last link and of the module put in its place.
    const defaultChain = 'Could not load credentials from any providers';
    const environmentOnly = 'No AWS credentials: a bundled function reads them';
    expect(text('reference')).toContain(defaultChain);
    const functions = bundles.names.filter((name) => name !== 'reference');
    const callingAws = functions.filter((name) => text(name).includes('DynamoDB_20120810'));
    expect(callingAws).toEqual(expect.arrayContaining(['get-magazine', 'list-magazines', 'fold-counts']));
    for (const name of functions) expect(text(name), name).not.toContain(defaultChain);
    for (const name of callingAws) expect(text(name), name).toContain(environmentOnly);
  });
});
