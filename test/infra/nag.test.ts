import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthStack } from './stack';

/**
 * Every AwsSolutions finding this stack may acknowledge, and why. A new finding, or an
 * acknowledgement not on this list, fails the test.
 */
const allowList: readonly { readonly id: RegExp; readonly why: string }[] = [
  { id: /^AwsSolutions-APIG2$/, why: "Validation happens in the functions, so refusals are the API's error object." },
  { id: /^AwsSolutions-APIG3$/, why: 'No WAF; the stage is throttled.' },
  {
    id: /^AwsSolutions-APIG4$/,
    why: 'Reads, preflight, 404 and 405 are public by design (only on methods without IAM).',
  },
  { id: /^AwsSolutions-COG4$/, why: 'Writes use IAM (SigV4), not Cognito.' },
  { id: /^AwsSolutions-DDB4$/, why: "PITR is the backup; AWS Backup is the account owner's choice." },
  {
    id: /^AwsSolutions-IAM4\[Policy::arn:<AWS::Partition>:iam::aws:policy\/service-role\/AmazonAPIGatewayPushToCloudWatchLogs\]$/,
    why: 'The account-level role API Gateway needs to write logs.',
  },
  {
    id: /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:execute-api:.*\/(PUT|POST|DELETE)\/.*\*.*\]$/,
    why: 'Path parameters in the publisher policy.',
  },
];

const acknowledgements = (root: IConstruct) =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .map(([id, reason]) => ({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason })),
  );

describe('cdk-nag AwsSolutions', () => {
  for (const stage of ['dev', 'prod'] as const) {
    it(`finds nothing unacknowledged in ${stage}`, () => {
      const { stack } = synthStack(stage);
      const { violations } = new AwsSolutionsChecks().validateScope(stack);
      expect(
        violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
      ).toEqual([]);
    });

    it(`acknowledges only allow-listed rules in ${stage}, each with its reason in code`, () => {
      const { stack } = synthStack(stage);
      const found = acknowledgements(stack);
      expect(found.length).toBeGreaterThan(0);
      for (const { path, id, reason } of found) {
        expect(
          allowList.some((allowed) => allowed.id.test(id)),
          `${id} at ${path}`,
        ).toBe(true);
        expect(reason.length, `${id} at ${path}`).toBeGreaterThan(20);
      }
    });
  }

  it('does not excuse a write method from authorization', () => {
    const { stack } = synthStack('dev');
    const excused = acknowledgements(stack).filter((a) => a.id === 'AwsSolutions-APIG4');
    expect(excused.length).toBeGreaterThan(0);
    for (const { path } of excused) expect(path).not.toMatch(/\/(POST|PUT|DELETE)$/);
  });
});
