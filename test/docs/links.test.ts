import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The project's Markdown, split by reader: the README a short entry with its contents, the guides
 * under docs/, and every link between them resolving, to a file and to a heading.
 */

const root = path.resolve(import.meta.dirname, '..', '..');
const documents = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
/** Prose only: fenced code holds `#` comments and brackets that are neither headings nor links. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (file: string) =>
  new Set([...prose(read(file)).matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] ?? '')));

const linksOf = (file: string) =>
  [...prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));

describe('the docs', () => {
  it('resolve every link between them, to a file and to a heading', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of documents) {
      for (const link of linksOf(file)) {
        checked++;
        const [target = '', anchor] = link.split('#');
        const resolved = target === '' ? file : path.relative(root, path.resolve(root, path.dirname(file), target));
        if (!existsSync(path.join(root, resolved))) {
          broken.push(`${file}: ${link} (no ${resolved})`);
          continue;
        }
        if (anchor !== undefined && statSync(path.join(root, resolved)).isFile() && resolved.endsWith('.md'))
          if (!anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${link} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  });

  it('start from a README of at most 250 lines, with its contents and a link to every guide', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toMatch(/^## Contents$/m);
    const links = new Set(linksOf('README.md'));
    for (const guide of documents.filter((file) => file !== 'README.md')) expect(links, guide).toContain(guide);
  });

  it('keep the data model in one place, docs/data-model.md', () => {
    for (const file of documents.filter((file) => file !== 'docs/data-model.md'))
      expect(read(file), file).not.toMatch(/^#+ .*(Item types|Access patterns)$/m);
  });
});
