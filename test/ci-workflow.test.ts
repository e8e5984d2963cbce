import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

// The workflow's lines without comments or blank lines, so that a commented-out step counts as gone.
const lines = read('.github/workflows/ci.yml')
  .split('\n')
  .map((line) => line.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, ''))
  .filter((line) => line.trim() !== '');

/** The lines indented under a top-level key (`on:`, `jobs:`). */
const block = (key: string) => {
  const start = lines.indexOf(`${key}:`);
  if (start < 0) return [];
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => !line.startsWith(' '));
  return end < 0 ? rest : rest.slice(0, end);
};

describe('the CI workflow a fork runs', () => {
  it('runs on every push and every pull request', () => {
    const triggers = block('on').map((line) => line.trim());
    expect(triggers).toContain('push:');
    expect(triggers).toContain('pull_request:');
  });

  it('runs .ci/run, the one script that sets up Java and Chromium and runs npm ci && npm test', () => {
    const steps = block('jobs').map((line) => line.trim());
    expect(steps).toContain('- run: .ci/run');
    expect(read('.ci/run')).toMatch(/^npm ci && npm test$/m);
    expect(statSync(new URL('.ci/run', root)).mode & 0o111).not.toBe(0);
  });

  it('runs it as root on Debian (its apt-get and /usr/bin/chromium), with the Node of .nvmrc', () => {
    const container = block('jobs')
      .map((line) => /^\s+container:\s*(\S+)$/.exec(line)?.[1])
      .find((image) => image !== undefined);
    expect(container).toMatch(/^node:\d+-(bookworm|trixie)$/);
    expect(container?.split(':')[1]?.split('-')[0]).toBe(read('.nvmrc').trim());
  });
});
