import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { requestProblems } from '../support/contract';

/**
 * Every curl example of the README and the guides under docs/, as a validating client (or a
 * validating proxy in front of the API) would check it against the OpenAPI document before
 * sending it: its operation, its path and query parameters, its JSON body.
 */

const root = new URL('../../', import.meta.url);
const documents = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** Splits a shell command line into words, as sh does for quotes (enough for the examples). */
const words = (line: string): string[] =>
  [...line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3]!);

interface Example {
  readonly where: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string;
}

/** A document's lines with shell continuations joined, and a quoted string that spans lines kept in one. */
const commandLines = (text: string) => {
  const lines: { line: string; where: number }[] = [];
  let open: { line: string; where: number } | undefined;
  text.split('\n').forEach((raw, i) => {
    const current = open
      ? { line: `${open.line} ${raw.trim()}`, where: open.where }
      : { line: raw.trim(), where: i + 1 };
    // Only a command's quotes count: prose has apostrophes.
    const quotes = /^([A-Z_]+=\$\()?curl /.test(current.line) ? (current.line.match(/'/g) ?? []).length : 0;
    if (current.line.endsWith('\\')) open = { ...current, line: current.line.slice(0, -1).trimEnd() };
    else if (quotes % 2 === 1) open = current;
    else {
      open = undefined;
      lines.push(current);
    }
  });
  return lines;
};

/** `NAME=$(curl … | …)` keeps a field of the answer for the lines after it: the curl inside is an example too. */
const unwrapped = ({ line, where }: { line: string; where: number }) => ({
  line: line.replace(/^[A-Z_]+=\$\((curl .*?)(?:\s\|\s.*)?\)$/, '$1'),
  where,
});

/** The requests to the API (`$API`, or `$API_URL` once deployed) of a document's `curl` lines. */
const examplesOf = (file: string): Example[] =>
  commandLines(readFileSync(new URL(file, root), 'utf8'))
    .map(unwrapped)
    .filter(({ line }) => line.startsWith('curl ') && /\$API(_URL)?\//.test(line))
    .map(({ line, where }) => {
      const argv = words(line.replace(/\s#.*$/, ''));
      const url = argv.find((word) => /^\$API(_URL)?\//.test(word))!;
      const option = (name: string) => argv[argv.indexOf(name) + 1];
      const body = argv.includes('-d') ? option('-d') : undefined;
      const method = argv.includes('-X') ? option('-X')! : argv.includes('-I') ? 'HEAD' : body ? 'POST' : 'GET';
      // A placeholder such as <articleId>, or a variable such as $ARTICLE, stands for an id taken from an earlier answer.
      const path = url
        .replace(/^\$API(_URL)?/, '')
        .replace(/\$\(date -u \+%Y\)/g, String(new Date().getUTCFullYear()))
        .replace(/<[^>]+>|\$[A-Z_]+/g, 'a1b2c3');
      return { where: `${file}:${where}`, method, path, body };
    });

const examples = documents.flatMap(examplesOf);

describe('the curl examples of the README and the guides', () => {
  it('are there to check', () => {
    expect(examples.length).toBeGreaterThan(20);
    expect(examples.some((example) => /[?&]mock=True/.test(example.path))).toBe(true);
  });

  it.each(examples.map((example) => [`${example.where} ${example.method} ${example.path}`, example] as const))(
    'a validating client accepts %s',
    (_, example) => {
      expect(requestProblems(example)).toEqual([]);
    },
  );
});
