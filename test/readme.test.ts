import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorGuide } from '../shared/docs/error-guide';
import { errorCatalogue } from '../shared/http/error-catalogue';

describe('the README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('lists every error code of the catalogue with its status and title', () => {
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      expect(readme).toContain(`| \`${code}\` | ${entry.status} | ${errorGuide[code as keyof typeof errorGuide].title} |`);
    }
  });

  it('shows the two set-up lines', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });
});
