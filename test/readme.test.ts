import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalogue } from '../shared/http/error-catalogue';
import { errorGuide } from '../shared/openapi/error-guide';

describe('the README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('and the API guide list every error code of the catalogue with its status and title', () => {
    const guide = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      expect(guide).toContain(
        `| \`${code}\` | ${entry.status} | ${errorGuide[code as keyof typeof errorGuide].title} |`,
      );
    }
  });

  it('shows the two set-up lines', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('and every other file of the project state the rules themselves, pointing to no document users do not have', () => {
    const root = new URL('..', import.meta.url).pathname;
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(
        (file) => /\.(ts|md|json|yaml)$/.test(file) && !['package-lock.json', 'test/readme.test.ts'].includes(file),
      );
    // Documents users do not have: the contract beside the repository, and the spec it settles.
    const external = [/CONTRACT\.md/, /\bCONTRACT §/, /\bthe spec('s)?\b/i, /\bspec \d/];
    const citing = files.filter((file) => {
      const text = readFileSync(`${root}${file}`, 'utf8');
      return external.some((pattern) => pattern.test(text));
    });
    expect(citing).toEqual([]);
  });
});
