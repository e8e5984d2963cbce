import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { memorySize } from '../../infra/bundling';
import { prepareLocalEnvironment } from '../../local/environment';
import { lambdaContext } from '../../local/lambda-context';
import { sourceHandlers } from '../../local/load-handler';

/** The TypeScript sources of the given project folders (relative paths), with their text. */
const sources = (...folders: string[]) =>
  folders.flatMap((folder) =>
    readdirSync(new URL(`../../${folder}/`, import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => ({
        path: `${folder}/${file}`,
        text: readFileSync(new URL(`../../${folder}/${file}`, import.meta.url), 'utf8'),
      })),
  );

const codeOutside = (folders: string[], except: string[]) =>
  sources(...folders).filter((file) => !except.includes(file.path));

describe('the Lambda context', () => {
  it('is what a deployed function gets: its memory, a deadline that counts down, the request id', () => {
    const context = lambdaContext('magazine-api-local-get-magazine', 'request-7', { timeoutMs: 5_000 });
    expect(context.memoryLimitInMB).toBe(String(memorySize));
    expect(context.awsRequestId).toBe('request-7');
    expect(context.invokedFunctionArn).toMatch(
      /^arn:aws:lambda:[a-z0-9-]+:\d{12}:function:magazine-api-local-get-magazine$/,
    );
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(4_000);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(5_000);
  });

  it('is built in local/lambda-context.ts only (the local server, npm run invoke and the tests use it)', () => {
    const builders = codeOutside(
      ['local', 'scripts', 'test'],
      ['local/lambda-context.ts', 'local/bundled-handlers.ts'],
    ).filter((file) => /getRemainingTimeInMillis\s*:/.test(file.text));
    expect(builders.map((file) => file.path)).toEqual([]);
  });
});

describe('the handler loader', () => {
  it("loads a handler module's `handler`, and fails for a module that does not exist", async () => {
    const importHandler = sourceHandlers(
      await prepareLocalEnvironment({ endpoint: inject('dynamoDbEndpoint'), tableName: `loader-${Date.now()}` }),
    );
    expect(typeof (await importHandler('not-found'))).toBe('function');
    await expect(importHandler('no-such-operation')).rejects.toThrow();
  });

  it('is local/load-handler.ts only', () => {
    const loaders = codeOutside(['local', 'scripts', 'test'], ['local/load-handler.ts']).filter(
      (file) => /import\([^)]*functions/.test(file.text) || /new URL\(['"`]\.\.\/functions/.test(file.text),
    );
    expect(loaders.map((file) => file.path)).toEqual([]);
  });
});

describe('copies of shared settings', () => {
  it('leave the CORS and gateway error values to shared/http', () => {
    const copies = codeOutside(['local', 'scripts', 'infra'], ['scripts/make-events.ts']).filter((file) =>
      /Access-Control-Allow-(Methods|Headers)'\s*:\s*'|X-Amz-Security-Token|quote it if this persists|larger than API Gateway accepts/.test(
        file.text,
      ),
    );
    expect(copies.map((file) => file.path)).toEqual([]);
  });

  it("leave the handlers' settings to shared/config.ts: local/ and scripts/ only set them, for the handlers", () => {
    const owned = ['TABLE_NAME', 'MOCK_ENABLED', 'BASE_URL', 'AWS_REGION'];
    for (const file of sources('local', 'scripts')) {
      for (const name of owned) {
        // `env.NAME =` (setting it for a handler process) is fine; reading it, or `||=`, is not.
        const reads = [...file.text.matchAll(new RegExp(`\\benv\\.${name}\\b(?!\\s*=[^=])`, 'g'))];
        expect(reads.length, `${file.path} reads ${name}`).toBe(0);
      }
    }
    // DYNAMODB_ENDPOINT is also the scripts' own input ("use this DynamoDB"): read in one place.
    const endpointReaders = sources('local', 'scripts').filter((file) =>
      /env\.DYNAMODB_ENDPOINT\b(?!\s*=[^=])/.test(file.text),
    );
    expect(endpointReaders.map((file) => file.path)).toEqual(['local/environment.ts']);
  });
});

describe('local/', () => {
  it('declares nothing nobody uses', () => {
    const everything = sources('local', 'scripts', 'test', 'infra', 'shared', 'functions')
      .map((file) => file.text)
      .join('\n');
    for (const file of sources('local')) {
      for (const [, name] of file.text.matchAll(/^export (?:async )?(?:const|function|class) ([A-Za-z_$][\w$]*)/gm)) {
        const uses = everything.match(new RegExp(`\\b${name}\\b`, 'g'))?.length ?? 0;
        expect(uses, `${file.path}: ${name!}`).toBeGreaterThan(1);
      }
    }
  });
});
