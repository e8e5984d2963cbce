import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../shared/domain/paging';
import { MAX_BODY_BYTES } from '../../shared/http/request-body';
import { openApiJson } from '../../shared/openapi/document';
import { IDEMPOTENCY_RETENTION_MS } from '../../shared/timing';

/**
 * The figures the docs state, held to the constants they describe: the README, the guides under
 * docs/, the contributing guide and every text of the OpenAPI document (from which the reference
 * and error pages are written). A figure that drifts from the code fails here, wherever it is;
 * so does a cost the operations guide states that the last `npm run bench` no longer measured.
 */

const root = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : typeof value === 'object' && value !== null
        ? Object.values(value).flatMap(strings)
        : [];

const texts: Record<string, string> = Object.fromEntries(
  [
    'README.md',
    'CONTRIBUTING.md',
    ...readdirSync(new URL('docs/', root))
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/${file}`),
  ].map((file) => [file, read(file)]),
);
texts['openapi.json'] = strings(JSON.parse(read('openapi.json'))).join('\n');

/** Every number the pattern's first group captures, in every text, by file (white space folded: prose wraps). */
const stated = (pattern: RegExp) =>
  Object.entries(texts).flatMap(([file, text]) =>
    [...text.replace(/\s+/g, ' ').matchAll(pattern)].map((match) => ({ file, figure: Number(match[1]) })),
  );

const expectEvery = (pattern: RegExp, truth: number) => {
  const found = stated(pattern);
  expect(found.length, `no text states ${pattern}`).toBeGreaterThan(0);
  for (const { file, figure } of found) expect(figure, `${file}: ${pattern}`).toBe(truth);
};

describe('the figures the docs state', () => {
  it('keep idempotency keys as long as the table does', () => {
    expectEvery(/[Kk]eys are kept (\d+) hours/g, IDEMPOTENCY_RETENTION_MS / 3_600_000);
    expectEvery(/within the last (\d+) hours/g, IDEMPOTENCY_RETENTION_MS / 3_600_000);
  });

  it('give a page the limits of the list parameters', () => {
    expectEvery(/`limit` \(1–(\d+), default \d+\)/g, MAX_LIMIT);
    expectEvery(/`limit` \(1–\d+, default (\d+)\)/g, DEFAULT_LIMIT);
    expectEvery(/an integer from 1 to (\d+)/g, MAX_LIMIT);
  });

  it('give a request body the size the API takes', () => {
    expectEvery(/(?:at most|larger than|over|exceeds the) (\d+) MiB/g, MAX_BODY_BYTES / 1024 / 1024);
  });

  it('give the OpenAPI document the size it is served at, and gzipped, within a tenth', () => {
    const served = Buffer.from(openApiJson('https://abc123.execute-api.eu-west-1.amazonaws.com/prod'));
    const kb = (bytes: number) => bytes / 1024;
    const near = (pattern: RegExp, truth: number) => {
      const found = stated(pattern);
      expect(found.length, `no text states ${pattern}`).toBeGreaterThan(0);
      for (const { file, figure } of found)
        expect(Math.abs(figure - truth) / truth, `${file}: ${figure} KB`).toBeLessThan(0.1);
    };
    near(/operations, (\d+) KB; \d+ KB gzipped/g, kb(served.length));
    near(/operations, \d+ KB; (\d+) KB gzipped/g, kb(gzipSync(served).length));
    near(/\((\d+) KB as this is written\)/g, kb(served.length));
    near(/as this is written\) travels as (\d+) KB/g, kb(gzipSync(served).length));
  });

  it('count the paths and operations the OpenAPI document lists', () => {
    const { paths } = JSON.parse(openApiJson('https://abc123.execute-api.eu-west-1.amazonaws.com/prod')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = new Set(['get', 'head', 'post', 'put', 'delete', 'options', 'patch']);
    const operations = Object.values(paths).flatMap((item) => Object.keys(item).filter((key) => methods.has(key)));
    expectEvery(/\((\d+) paths, \d+ operations/g, Object.keys(paths).length);
    expectEvery(/\(\d+ paths, (\d+) operations/g, operations.length);
  });

  it('price each request as npm run bench last priced it', () => {
    const { operations } = JSON.parse(read('bench/results/cost.json')) as {
      operations: { dollarsPerMillion: { total: number } }[];
    };
    const section = /## What it costs\n([\s\S]*?)\n## /.exec(texts['docs/operations.md']!)?.[1] ?? '';
    const stated = [...section.matchAll(/\*\*\$(\d+\.\d\d)\*\*/g)].map((match) => match[1]).sort();
    const measured = operations.map((operation) => operation.dollarsPerMillion.total.toFixed(2)).sort();
    expect(stated).toEqual(measured);
  });
});
