import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbLocalProcesses, projectRoot, runNpm, type UserCommand, userEnvironment } from '../support/as-a-user';
import { type Client, clientFor } from '../support/http';

/**
 * The README's first command, run as a new user runs it: `npm start` in a terminal whose
 * environment holds no DynamoDB endpoint and no AWS settings, then Ctrl-C.
 */

const xml = new XMLParser();

interface Started {
  readonly command: UserCommand;
  readonly client: Client;
  /** The port of the DynamoDB Local it started. */
  readonly dynamoDbPort: number;
}

const start = async (args: readonly string[] = []): Promise<Started> => {
  const command = runNpm(['start', ...(args.length > 0 ? ['--', ...args] : [])], userEnvironment({ PORT: '0' }));
  try {
    const [, url] = await command.waitFor(/Magazine API listening on (http:\/\/\S+)/);
    const [, port] = command.output().match(/DynamoDB at http:\/\/127\.0\.0\.1:(\d+)/) ?? [];
    return { command, client: clientFor(url!), dynamoDbPort: Number(port) };
  } catch (error) {
    command.interrupt();
    throw error;
  }
};

/** Ctrl-C, then: the command ended, and so did the DynamoDB Local it started. */
const stop = async ({ command, dynamoDbPort }: Started) => {
  expect(dynamoDbLocalProcesses(dynamoDbPort), 'DynamoDB Local runs while the API does').toHaveLength(1);
  command.interrupt();
  await command.exited;
  for (let waited = 0; waited < 10_000 && dynamoDbLocalProcesses(dynamoDbPort).length > 0; waited += 250)
    await sleep(250);
  expect(dynamoDbLocalProcesses(dynamoDbPort), 'no Java process is left').toEqual([]);
  expect(command.output()).toMatch(/SIGINT: stopping/);
};

const article = {
  title: 'Jupiter at opposition',
  author_first_name: 'Ada',
  author_last_name: 'Lovelace',
  author_email: 'ada@example.com',
  date: '2026-11-03',
  text: 'Tonight…',
};

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm start, as a new user runs it', () => {
  it('serves writes and reads, JSON and XML, on the DynamoDB Local it started; Ctrl-C leaves no Java behind', async () => {
    const api = await start();
    try {
      const { client } = api;
      const created = await client.post('/magazines', {
        id: 'astro',
        title: 'Modern Astronomy',
        tags: [{ name: 'Science' }],
      });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.location).toBe(`${client.baseUrl}/v1/magazines/astro`);
      const added = await client.post('/magazines/astro/articles', article);
      expect(added.status, added.text).toBe(201);
      const articlePath = new URL(added.headers.location!).pathname;

      const magazine = await client.get('/magazines/astro');
      expect(magazine.status).toBe(200);
      expect(magazine.json()).toMatchObject({
        id: 'astro',
        type: 'magazine',
        title: 'Modern Astronomy',
        tags: [{ id: 'science', name: 'Science' }],
      });
      const magazineXml = await client.get('/magazines/astro.xml');
      expect(xml.parse(magazineXml.text)).toMatchObject({ magazine: { id: 'astro', title: 'Modern Astronomy' } });

      const stored = await client.get(articlePath);
      expect(stored.status).toBe(200);
      expect(stored.json()).toMatchObject({ ...article, type: 'article', magazine_id: 'astro' });
      const storedXml = await client.get(`${articlePath}.xml`, { headers: { Accept: 'application/xml' } });
      expect(xml.parse(storedXml.text)).toMatchObject({ article: { title: article.title, magazine_id: 'astro' } });
      const listXml = await client.get('/magazines/astro/articles.xml');
      expect(xml.parse(listXml.text)).toMatchObject({ response: { metadata: { resultset: { count: 1 } } } });

      // The line npm start prints runs one function on its data, whatever that data is.
      const [, invokeLine] = api.command.output().match(/One function on this data: npm run (invoke -- .+)/) ?? [];
      const invoke = runNpm(['run', ...invokeLine!.trim().split(/\s+/)]);
      expect(await invoke.exited, invoke.output()).toBe(0);
      const printed = invoke.output().slice(invoke.output().indexOf('\n{'));
      const response = JSON.parse(printed) as { statusCode: number; body: string };
      expect(response.statusCode, response.body).toBe(200);
      const listed = JSON.parse(response.body) as { results: { id: string }[] };
      expect(listed.results.map(({ id }) => id)).toContain('astro');
      expect(invoke.output()).not.toContain('Starting DynamoDB Local');
    } finally {
      await stop(api);
    }
  });

  it('with --keys, prints a key of each plan that works, refuses a request without one, and leaves the documentation open', async () => {
    const api = await start(['--keys']);
    try {
      const { client, command } = api;
      // The keys are printed after the line that says the API listens, maybe in a later chunk.
      const [, key] = await command.waitFor(/free: (local-free-\S+)/);
      expect(key, command.output()).toBeDefined();
      const list = await client.get('/magazines', { headers: { 'x-api-key': key! } });
      expect(list.status, list.text).toBe(200);
      const refused = await client.get('/magazines');
      expect(refused.status).toBe(403);
      expect(refused.json()).toMatchObject({
        errorCode: '40302',
        moreInfo: `${client.baseUrl}/v1/documentation/errors/40302.html`,
      });
      expect((await client.get('/openapi.json')).status).toBe(200);
      expect((await client.get('/v1/documentation/errors/40302.html')).status).toBe(200);
    } finally {
      await stop(api);
    }
  });

  it('keeps the data in --data DIR across a restart', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'magazine-api-data-'));
    dataDirs.push(dir);
    const first = await start(['--data', dir]);
    try {
      expect((await first.client.post('/magazines', { id: 'kept', title: 'Kept' })).status).toBe(201);
      expect((await first.client.post('/magazines/kept/articles', article)).status).toBe(201);
    } finally {
      await stop(first);
    }
    const second = await start(['--data', dir]);
    try {
      expect(second.command.output()).toMatch(/table magazines \(existed\)/);
      expect((await second.client.get('/magazines/kept')).json()).toMatchObject({ id: 'kept', title: 'Kept' });
      expect((await second.client.get('/magazines/kept/articles')).json()).toMatchObject({
        metadata: { resultset: { count: 1 } },
      });
    } finally {
      await stop(second);
    }
  });

  it('says at once, before starting Java, that the port is taken; a --data that is a file is named', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const busy = runNpm(['start'], userEnvironment({ PORT: port }));
      expect(await busy.exited).toBe(1);
      expect(busy.output()).toContain(`port ${port} is in use by another program`);
      expect(busy.output()).not.toMatch(/Starting DynamoDB Local/);
    } finally {
      taken.close();
    }
    const file = runNpm(['start', '--', '--data', 'package.json', '--port', '0'], userEnvironment());
    expect(await file.exited).toBe(1);
    expect(file.output()).toContain(`The data folder ${projectRoot}/package.json is a file`);
  });

  it('refuses to start, saying why, when DYNAMODB_ENDPOINT names AWS', async () => {
    const command = runNpm(
      ['start'],
      userEnvironment({ PORT: '0', DYNAMODB_ENDPOINT: 'https://dynamodb.eu-west-1.amazonaws.com' }),
    );
    expect(await command.exited).not.toBe(0);
    expect(command.output()).toMatch(
      /DYNAMODB_ENDPOINT \(https:\/\/dynamodb\.eu-west-1\.amazonaws\.com\) is not a local DynamoDB/,
    );
    expect(command.output()).not.toMatch(/listening on/);
  });
});

describe('npm start -- --watch --seed, for everyday development', () => {
  it('loads the sample data through the API, restarts on a change to the code, and keeps the data', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const port = String((probe.address() as AddressInfo).port);
    await new Promise((resolve) => probe.close(resolve));
    const command = runNpm(['start', '--', '--watch', '--seed', '--quiet', '--port', port], userEnvironment());
    try {
      await command.waitFor(/Loaded the sample data: 36 magazines, (\d+) articles/);
      const client = clientFor(`http://127.0.0.1:${port}`);
      expect((await client.get('/magazines?limit=1')).json()).toMatchObject({ metadata: { resultset: { count: 36 } } });
      expect((await client.get('/tags')).json()).toMatchObject({ metadata: { resultset: { count: 8 } } });
      // 36 over eight years: 2018 to 2021 have five each, 2022 to 2025 four.
      expect((await client.get('/magazines?year=2020')).json()).toMatchObject({
        metadata: { resultset: { count: 5 } },
      });
      expect((await client.post('/magazines', { id: 'written-before', title: 'Before the edit' })).status).toBe(201);

      // An edit (here only the file's time) restarts the API; DynamoDB Local, and its data, stay.
      const edited = path.join(projectRoot, 'local', 'sample-data.ts');
      utimesSync(edited, new Date(), new Date());
      await command.waitFor(/local\/sample-data\.ts changed: restarting[\s\S]*listening on/);
      expect((await client.get('/magazines/written-before')).status).toBe(200);
      expect((await client.get('/magazines?limit=1')).json()).toMatchObject({ metadata: { resultset: { count: 37 } } });
      // The sample data is loaded once, not again at the restart.
      expect(command.output().match(/Loaded the sample data/g)).toHaveLength(1);
    } finally {
      command.interrupt();
      await command.exited;
    }
    const [, dynamoDbPort] = command.output().match(/DynamoDB at http:\/\/127\.0\.0\.1:(\d+)/) ?? [];
    for (let waited = 0; waited < 10_000 && dynamoDbLocalProcesses(Number(dynamoDbPort)).length > 0; waited += 250)
      await sleep(250);
    expect(dynamoDbLocalProcesses(Number(dynamoDbPort)), 'no Java process is left').toEqual([]);
  }, 180_000);
});

describe('npm start -- --bundled', () => {
  it('serves the API from the functions bundled as the CDK stack bundles them', async () => {
    // A DynamoDB that is already running, as the README allows: this run's, a table of its own.
    const env = userEnvironment({
      PORT: '0',
      DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
      TABLE_NAME: `bundled-${Date.now()}`,
      // The shell's settings reach the bundled functions as they reach the source ones.
      MOCK_ENABLED: 'false',
      BASE_URL: 'https://magazines.example.com',
    });
    const command = runNpm(['start', '--', '--bundled'], env);
    try {
      const [, url] = await command.waitFor(/Magazine API listening on (http:\/\/\S+)/);
      expect(command.output()).toMatch(/Serving 21 functions bundled as they deploy/);
      const client = clientFor(url!);
      const created = await client.post('/magazines', { id: 'b1', title: 'Bundled' });
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe('https://magazines.example.com/v1/magazines/b1');
      const mockAsked = await client.get('/magazines?mock=true');
      expect(mockAsked.status, mockAsked.text).toBe(400);
      expect(mockAsked.json()).toMatchObject({ developerMessage: expect.stringMatching(/testing server/) });
      expect((await client.get('/magazines/b1.xml')).text).toContain('<title>Bundled</title>');
      expect((await client.get('/v1/documentation/errors/40401.html')).status).toBe(200);
    } finally {
      command.interrupt();
      await command.exited;
    }
  });
});

describe('npm run invoke, as a new user runs it', () => {
  it('runs a handler on an event file, on a DynamoDB Local of its own, and prints its response', async () => {
    const command = runNpm(['run', 'invoke', '--', 'create-magazine', 'events/create-magazine.json']);
    expect(await command.exited, command.output()).toBe(0);
    const printed = command.output().slice(command.output().indexOf('\n{'));
    const response = JSON.parse(printed) as { statusCode: number; headers: Record<string, string>; body: string };
    expect(response.statusCode, response.body).toBe(201);
    expect(JSON.parse(response.body)).toEqual({ id: 'sample-magazine' });
    expect(response.headers.Location).toBe(
      'https://abcdef1234.execute-api.us-east-1.amazonaws.com/dev/v1/magazines/sample-magazine',
    );
  });

  it('runs the janitor on its scheduled event, and prints what it swept', async () => {
    const command = runNpm(['run', 'invoke', '--', 'sweep-garbage']);
    expect(await command.exited, command.output()).toBe(0);
    const printed = command.output().slice(command.output().lastIndexOf('\n{\n'));
    expect(JSON.parse(printed)).toEqual({ cleared: 0, left: false });
  });

  it("runs the stream's publisher on its sample batch, with a bus of its own, and prints the events it put", async () => {
    const command = runNpm(['run', 'invoke', '--', 'publish-events']);
    expect(await command.exited, command.output()).toBe(0);
    expect(command.output()).toContain(
      'Put on the event bus (1):\n{"source":"magazine-api","detail-type":"MagazineCreated"',
    );
    // Links are absolute, as the stack makes them: at the API the sample events came in to.
    expect(command.output()).toContain('"url":"https://abcdef1234.execute-api.us-east-1.amazonaws.com/dev/v1/tags/');
    expect(command.output()).not.toContain('"url":"/v1/');
  });

  it('reads an event path relative to the folder it was typed in, and says why a file is not an event', async () => {
    const command = runNpm(
      ['run', 'invoke', '--', 'get-magazine', '../package.json'],
      userEnvironment(),
      `${projectRoot}/events`,
    );
    expect(await command.exited).toBe(1);
    expect(command.output()).toContain(
      `${projectRoot}/package.json is not an API Gateway REST (v1) proxy event: \`httpMethod\` is not a string`,
    );
    expect(command.output()).not.toMatch(/Starting DynamoDB Local|at .*\.ts:\d+/);
  });
});
