import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '../../infra/api-function';

/**
 * The CDK's own bundling of a function (esbuild run as `cdk synth` runs it, from the arguments the
 * construct gives), which the template tests stub out: the credential chain's swap must survive
 * the way the CDK passes it to esbuild, not only the way the local scripts do.
 */
const outdir = mkdtempSync(path.join(tmpdir(), 'function-bundling-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("the CDK's bundling of a function", () => {
  it("carries the SDK's client and the environment's credentials, not the SDK's default chain", () => {
    const app = new App({ outdir });
    const stack = new Stack(app, 'Bundling');
    const table = new Table(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
    new ApiFunction(stack, 'GetMagazine', {
      handler: 'get-magazine',
      actions: ['BatchGetItem'],
      table,
      environment: {},
      logRetention: RetentionDays.ONE_WEEK,
      logRemovalPolicy: RemovalPolicy.DESTROY,
      timeout: Duration.seconds(10),
    });
    const assembly = app.synth();
    const bundles = readdirSync(assembly.directory)
      .filter((name) => name.startsWith('asset.'))
      .map((name) => readFileSync(path.join(assembly.directory, name, 'index.mjs'), 'utf8'));
    expect(bundles).toHaveLength(1);
    const [bundle = ''] = bundles;
    expect(bundle).toContain('DynamoDB_20120810');
    expect(bundle).toContain('No AWS credentials: a bundled function reads them');
    expect(bundle).not.toContain('Could not load credentials from any providers');
  });
});
