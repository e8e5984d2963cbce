import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openApiDocument } from '../../shared/openapi/document';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * The reference page in a real browser: Debian's `chromium` driven by playwright-core. Without
 * the browser the test fails (it does not skip): install it with `apt-get install -y chromium`.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const screenshot = new URL('../../test-results/reference-page.png', import.meta.url).pathname;

let api: LocalApi | undefined;
let browser: BrowserContext | undefined;
let profile: string | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: run \`apt-get update && apt-get install -y chromium\` (or set CHROMIUM_PATH). The reference page test needs a real browser.`,
    );
  }
  api = await startLocalApi();
  profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  // A fresh profile directory per run (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

it('shows every operation of the OpenAPI document, loading nothing from elsewhere', async () => {
  const page = await browser!.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));

  const response = await page.goto(`${api!.baseUrl}/v1/documentation`);
  expect(response?.status()).toBe(200);
  await expect(page.title()).resolves.toBe('Magazine API reference');

  const shown = await page.$$eval('[data-operation-id]', (rows) =>
    rows.map(
      (row) =>
        `${row.getAttribute('data-method')} ${row.getAttribute('data-path')} ${row.getAttribute('data-operation-id')}`,
    ),
  );
  const documented = Object.entries(openApiDocument().paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`),
  );
  expect(shown.sort()).toEqual(documented.sort());

  // Each operation section is visible and named by its summary.
  const sections = await page.locator('section.operation h3').allTextContents();
  expect(sections).toEqual(
    expect.arrayContaining([
      'List magazines',
      'Create a magazine',
      'Add an article to a magazine',
      'Documentation of one error code (HTML)',
    ]),
  );
  await expect(page.locator('#op-listMagazines').isVisible()).resolves.toBe(true);

  expect(requested.every((url) => url.startsWith(api!.baseUrl))).toBe(true);

  mkdirSync(new URL('../../test-results/', import.meta.url).pathname, { recursive: true });
  await page.screenshot({ path: screenshot });
  await page.locator('#op-getMagazine').screenshot({ path: screenshot.replace('.png', '-operation.png') });
  await page.close();
}, 60_000);
