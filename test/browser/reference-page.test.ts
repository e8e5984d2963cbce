/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentOperations, openApiDocument } from '../../shared/openapi/document';
import { operations } from '../../shared/routes/table';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * The reference page in a real browser: Debian's `chromium` driven by playwright-core. Without
 * the browser the test fails (it does not skip): install it with `apt-get install -y chromium`.
 * Screenshots go to test/browser/screenshots/ (ignored by git).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const screenshots = new URL('./screenshots/', import.meta.url).pathname;

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
  mkdirSync(screenshots, { recursive: true });
  // A fresh profile directory per run (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1366, height: 900 },
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

const open = async (width: number, height: number) => {
  const page = await browser!.newPage();
  await page.setViewportSize({ width, height });
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  const response = await page.goto(`${api!.baseUrl}/v1/documentation`);
  expect(response?.status()).toBe(200);
  return { page, requested };
};

/** Ids of the operation sections a reader can see. */
const visibleSections = (page: Page) =>
  page.$$eval('section.operation', (sections) =>
    sections.filter((s) => (s as HTMLElement).offsetParent !== null).map((s) => s.id),
  );

/**
 * What sticks out: the page wider than the window, or a block of an operation section wider than
 * the section (every example opened first). Text inside a scrolling `pre` may run on; the `pre` may not.
 */
const overflows = (page: Page) =>
  page.evaluate(() => {
    for (const details of document.querySelectorAll('details')) details.open = true;
    const found: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth)
      found.push(`page: ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
    for (const section of document.querySelectorAll('main section')) {
      const edge = section.getBoundingClientRect().right + 0.5;
      for (const block of section.querySelectorAll('pre, table, ul, li, p, header, h3, h4, div, details, code')) {
        if (block.closest('pre') && block.tagName !== 'PRE') continue;
        const right = block.getBoundingClientRect().right;
        if (right > edge)
          found.push(`${section.id} ${block.tagName.toLowerCase()}.${block.className}: ${right} > ${edge}`);
      }
    }
    return found.slice(0, 10);
  });

type Box = NonNullable<Awaited<ReturnType<Locator['boundingBox']>>>;

/**
 * The page at one viewport: where an operation's prose and its examples sit (checked by `layout`),
 * a screenshot of the operation, and no element wider than the page.
 */
const atWidth = async (width: number, height: number, layout: (doc: Box, samples: Box) => void) => {
  const { page } = await open(width, height);
  const doc = await page.locator('#op-getMagazine > .doc').boundingBox();
  const samples = await page.locator('#op-getMagazine > .samples').boundingBox();
  expect(doc).not.toBeNull();
  expect(samples).not.toBeNull();
  layout(doc!, samples!);
  await page.locator('#op-getMagazine').evaluate((section) => section.scrollIntoView());
  await page.screenshot({ path: join(screenshots, `reference-${width}.png`) });
  expect(await overflows(page)).toEqual([]);
  await page.close();
};

describe('the reference page', () => {
  it('shows every operation of the OpenAPI document, loading nothing from elsewhere', async () => {
    const { page, requested } = await open(1366, 900);
    await expect(page.title()).resolves.toBe('Magazine API reference');
    const shown = await page.$$eval('[data-operation-id]', (rows) =>
      rows.map(
        (row) =>
          `${row.getAttribute('data-method')} ${row.getAttribute('data-path')} ${row.getAttribute('data-operation-id')}`,
      ),
    );
    const documented = documentOperations(openApiDocument()).map(
      ({ path, method, operation }) => `${method.toUpperCase()} ${path} ${operation.operationId}`,
    );
    expect(shown.sort()).toEqual(documented.sort());
    const sections = await page.locator('section.operation h3').allTextContents();
    expect(sections).toEqual(
      expect.arrayContaining([
        'List magazines',
        'Create a magazine',
        'Add an article to a magazine',
        'Documentation of one error code (HTML)',
      ]),
    );
    expect(requested.every((url) => url.startsWith(api!.baseUrl))).toBe(true);
    await page.close();
  });

  it('filters the operations as the reader types in the search box', async () => {
    const { page } = await open(1366, 900);
    const all = await visibleSections(page);
    expect(all.length).toBe(operations.length);

    await page.fill('#search', 'tags/{tagId}');
    expect((await visibleSections(page)).sort()).toEqual(['op-getTag', 'op-listTagMagazines']);
    expect(await page.locator('nav.toc li[data-op]:visible').count()).toBe(2);

    await page.fill('#search', 'deleteMagazine');
    expect(await visibleSections(page)).toEqual(['op-deleteMagazine']);

    // Parameter names are searched too.
    await page.fill('#search', 'idempotency-key');
    expect((await visibleSections(page)).sort()).toEqual(['op-createArticle', 'op-createMagazine']);
    await page.fill('#search', 'If-Match');
    expect((await visibleSections(page)).sort()).toEqual([
      'op-deleteAllMagazines',
      'op-deleteMagazine',
      'op-replaceAllMagazines',
      'op-replaceMagazine',
    ]);

    await page.fill('#search', 'no such operation');
    expect(await visibleSections(page)).toEqual([]);
    await expect(page.locator('#no-match').isVisible()).resolves.toBe(true);

    await page.fill('#search', '');
    expect(await visibleSections(page)).toEqual(all);
    await expect(page.locator('#no-match').isVisible()).resolves.toBe(false);

    await page.fill('#search', 'article');
    await page.screenshot({ path: join(screenshots, 'reference-1366-search.png') });
    await page.close();
  });

  it('copies an operation’s curl line', async () => {
    await browser!.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api!.baseUrl });
    const { page } = await open(1366, 900);
    const form = page.locator('li[data-operation-id="getMagazine"]');
    await form.locator('button.copy').click();
    await form.locator('button.copy', { hasText: 'Copied' }).waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(
      `curl -i ${api!.baseUrl}/v1/magazines/national-geographic`,
    );
    await page.close();
  });

  it('puts each operation’s examples beside it at 1366 px, without overflow', async () => {
    await atWidth(1366, 900, (doc, samples) => {
      expect(samples.x).toBeGreaterThanOrEqual(doc.x + doc.width - 1);
      expect(Math.abs(samples.y - doc.y)).toBeLessThan(2);
    });
  });

  it('stacks them at 390 px, without overflow', async () => {
    await atWidth(390, 844, (doc, samples) => {
      expect(samples.y).toBeGreaterThanOrEqual(doc.y + doc.height - 1);
    });
  });
});
