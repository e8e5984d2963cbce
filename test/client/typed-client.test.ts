import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalApi, startLocalApi } from '../support/local-api';
import type { Observations } from './observations';

/**
 * What a client developer does with the API: generate types with `openapi-typescript` from the
 * document the local API serves, type-check a small `openapi-fetch` client against them
 * (magazine-client.ts, and the API guide's example), and run it. The client is not part of the
 * project's own type-check: its types exist only once this test has generated them.
 */

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const here = new URL('./', import.meta.url).pathname;
const generated = `${here}generated/`;
const client = `${here}magazine-client.ts`;

/** What the API guide's "A typed client" shows: the command that generates the types, and an example. */
const readmeSection = (() => {
  const guide = readFileSync(`${root}docs/api.md`, 'utf8');
  const section = guide.slice(guide.indexOf('## A typed client'));
  const command = /```sh\n(?:.*\n)*?(npx openapi-typescript .*)\n/.exec(section)?.[1];
  const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!command || !example)
    throw new Error('docs/api.md: "## A typed client" must show the npx command and a ts example');
  return { command, example };
})();

/**
 * The compiler options a client project in a browser would use. No Node types: the client needs
 * only `fetch`, and without them the compiler reads a third as many lines.
 */
const compilerOptions = {
  noEmit: true,
  pretty: false,
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  target: 'ES2024',
  lib: ['ES2024', 'DOM', 'DOM.Iterable'],
  module: 'ESNext',
  moduleResolution: 'Bundler',
  verbatimModuleSyntax: true,
  types: [],
};

/** The compiler's diagnostics for some files: `file(line,col): error TSxxxx: message` lines. */
const typeCheck = async (...files: string[]) => {
  const project = `${generated}tsconfig.json`;
  writeFileSync(project, JSON.stringify({ compilerOptions, files }, null, 2));
  const { stdout } = await run(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '--project', project], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return stdout.split('\n').filter((line) => / error TS\d+:/.test(line));
};

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi();
  rmSync(generated, { recursive: true, force: true });
  mkdirSync(generated, { recursive: true });
});

afterAll(async () => {
  await api?.close();
});

describe('a client generated from the served OpenAPI document', () => {
  it("type-checks, as does the API guide's example, and refuses exactly the lines marked @ts-expect-error, each with its error", async () => {
    // The README's command, run as written but for the local server's port.
    const [command, ...args] = readmeSection.command.replace('http://127.0.0.1:3000', api.baseUrl).split(' ');
    expect(command).toBe('npx');
    expect(args.slice(0, 2)).toEqual(['openapi-typescript', `${api.baseUrl}/openapi.json`]);
    await run(process.execPath, [`${root}node_modules/openapi-typescript/bin/cli.js`, ...args.slice(1)], {
      cwd: generated,
    });
    const types = readFileSync(`${generated}magazine-api.d.ts`, 'utf8');
    expect(types).toContain('"/magazines/{id}.{format}": {');
    expect(types).toMatch(/QueryLimit: number;/);

    // The same file without the directives: its errors must be on the marked lines, and say why.
    // All three files in one compiler run, which costs about what one does: most of it is reading the libraries.
    const source = readFileSync(client, 'utf8');
    const marked = source.split('\n').flatMap((line, i) => (/^\s*\/\/ @ts-expect-error/.test(line) ? [i + 2] : []));
    expect(marked.length).toBe(5);
    const unchecked = `${generated}unchecked-client.ts`;
    writeFileSync(
      unchecked,
      source
        .replace(/\/\/ @ts-expect-error/g, '// expected error:')
        .replace("'./generated/magazine-api'", "'./magazine-api'")
        .replace("'./observations'", "'../observations'"),
    );

    // The README's example, beside the types it imports.
    const example = `${generated}readme-example.ts`;
    writeFileSync(example, readmeSection.example);

    const started = performance.now();
    const diagnostics = await typeCheck(client, unchecked, example);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    writeFileSync(
      `${generated}type-check.txt`,
      `tsc on magazine-client.ts, its unchecked copy and the README's example: ${seconds} s\n`,
    );

    // An unused `@ts-expect-error` is an error too (TS2578): none means every marked line fails to compile.
    expect(diagnostics.filter((line) => !line.startsWith(unchecked.slice(root.length)))).toEqual([]);
    const errors = diagnostics.map((line) => {
      const [, row, code, message] = /\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line) ?? [];
      return { line: Number(row), code, message };
    });
    // One error per marked line, in order, each the one its comment names; nothing else.
    expect(errors.map((error) => error.line)).toEqual(marked);
    expect(errors).toEqual([
      {
        line: marked[0],
        code: 'TS2561',
        message: expect.stringMatching(
          /^Object literal may only specify known properties, but 'titel' does not exist in type '\{ id\?: string.*; title: string;.*'\. Did you mean to write 'title'\?$/,
        ),
      },
      { line: marked[1], code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." },
      {
        line: marked[2],
        code: 'TS2322',
        message: 'Type \'"newest"\' is not assignable to type \'"asc" | "desc" | undefined\'.',
      },
      { line: marked[3], code: 'TS2322', message: 'Type \'"yaml"\' is not assignable to type \'"xml" | "json"\'.' },
      { line: marked[4], code: 'TS2322', message: "Type '{ id: string; }' is not assignable to type 'string'." },
    ]);
  }, 120_000);

  it('creates, lists, reads XML as text, adds an article and deletes, seeing the errors the API documents', async () => {
    const { observe } = (await import(/* @vite-ignore */ client)) as {
      observe: (serverUrl: string) => Promise<Observations>;
    };
    const document = (await (await fetch(`${api.baseUrl}/openapi.json`)).json()) as { servers: { url: string }[] };
    const server = document.servers[0]!.url;
    expect(server).toBe(`${api.baseUrl}/v1`);

    const seen = await observe(server);
    expect(seen.created).toMatchObject({ status: 201, body: { id: 'typed-client', newId: 'typed-client' } });
    expect(seen.listed.status).toBe(200);
    expect(seen.listed.body).toMatchObject({ metadata: { resultset: { count: 1, offset: 0, limit: 5 } }, count: 1 });
    expect((seen.listed.body as { results: { id: string }[] }).results.map((m) => m.id)).toEqual(['typed-client']);
    expect(seen.mocked.status).toBe(200);
    expect((seen.mocked.body as { results: unknown[] }).results).toHaveLength(2);

    expect(seen.xml.status).toBe(200);
    expect(seen.xml.contentType).toBe('application/xml; charset=utf-8');
    expect(typeof seen.xml.body).toBe('string');
    expect(seen.xml.body).toMatch(/^<\?xml[^>]*\?>\s*<magazine>[\s\S]*<id>typed-client<\/id>/);

    expect(seen.article.status).toBe(201);
    expect((seen.article.body as { id: string }).id).toEqual(expect.any(String));
    expect(seen.duplicate).toMatchObject({ status: 405, body: { errorCode: '40502', duplicateCode: '40502' } });
    expect(seen.badLimit).toMatchObject({ status: 400, body: { errorCode: '40004' } });
    expect((seen.badLimit.body as { developerMessage: string }).developerMessage).toContain('limit');
    expect(seen.misspelt).toMatchObject({ status: 400, body: { errorCode: '40001' } });
    expect((seen.misspelt.body as { developerMessage: string }).developerMessage).toContain('`title` is required');
    expect(seen.deleted).toMatchObject({ status: 200, body: { id: 'typed-client' } });
    expect(seen.gone).toMatchObject({ status: 404, body: { errorCode: '40402' } });
  });
});
