import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * No source file is over 350 lines, tests and benchmarks included: a file that long holds more
 * than one concern, and a reader cannot see it whole. Generated files (openapi.json, events/,
 * bench/results/) are not source.
 */
const LIMIT = 350;

const root = new URL('..', import.meta.url).pathname;
const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => /\.(ts|mts|js|mjs)$/.test(file));
const linesOf = (file: string) => readFileSync(`${root}${file}`, 'utf8').split('\n').length - 1;

describe('source files', () => {
  it(`are at most ${LIMIT} lines each`, () => {
    const over = sources.filter((file) => linesOf(file) > LIMIT);
    expect(over.map((file) => `${file}: ${linesOf(file)} lines`)).toEqual([]);
  });
});
