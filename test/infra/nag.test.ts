import { App, Stack, Validations } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthStack } from './stack';

/**
 * Every finding of the AwsSolutions and Serverless packs this stack may acknowledge, and why. A
 * new finding, or an acknowledgement not on this list, fails the test.
 */
const allowList: readonly { readonly id: RegExp; readonly why: string }[] = [
  { id: /^AwsSolutions-APIG2$/, why: "Validation happens in the functions, so refusals are the API's error object." },
  { id: /^AwsSolutions-APIG3$/, why: 'No WAF; the stage is throttled.' },
  { id: /^AwsSolutions-DDB4$/, why: "PITR is the backup; AWS Backup is the account owner's choice." },
  {
    id: /^AwsSolutions-IAM4\[Policy::arn:<AWS::Partition>:iam::aws:policy\/service-role\/AmazonAPIGatewayPushToCloudWatchLogs\]$/,
    why: 'The account-level role API Gateway needs to write logs.',
  },
  {
    id: /^AwsSolutions-IAM4\[Policy::arn:<AWS::Partition>:iam::aws:policy\/service-role\/AWSCodeDeployRoleForLambdaLimited\]$/,
    why: "CodeDeploy's documented policy for moving Lambda aliases.",
  },
  {
    id: /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:execute-api:.*\/(PUT|POST|DELETE)\/.*\*.*\]$/,
    why: 'Path parameters in the publisher policy.',
  },
  {
    id: /^AwsSolutions-IAM5\[Resource::\*\]$/,
    why: "X-Ray actions, and a stream function's dynamodb:ListStreams, exist only on `*` (functions only).",
  },
  {
    id: /^AwsSolutions-SMG4$/,
    why: 'The cursor key: a new value only invalidates cursors in circulation; replaced by hand.',
  },
  { id: /^AwsSolutions-SQS3$/, why: "It is itself the stream functions' failure queue." },
  { id: /^AwsSolutions-SNS2$/, why: 'Alarm notifications; CloudWatch cannot use the AWS-managed SNS key.' },
  { id: /^Serverless-SNSRedrivePolicy$/, why: 'An email subscription.' },
  { id: /^Serverless-SQSRedrivePolicy$/, why: "The stream functions' failure queue: an operator reads it." },
  { id: /^Serverless-EventBusDLQ$/, why: "A schedule's events carry no data; the next one does the same work." },
  {
    id: /^Serverless-LambdaDLQ$/,
    why: "API functions are invoked synchronously, by API Gateway; a scheduled run's event carries no data.",
  },
  {
    id: /^Serverless-LambdaAsyncFailureDestination$/,
    why: 'API functions are invoked synchronously; the next scheduled run redoes a failed one.',
  },
];

const acknowledgements = (root: IConstruct) =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
      .map(([id, reason]) => ({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason })),
  );

const findings = (scope: IConstruct) =>
  [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack
      .validateScope(scope)
      .violations.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
  );

/** Every setting that adds resources: the alarm email, a custom domain with its hosted zone, keys with clients, the WAF. */
const everything = {
  alarmEmail: 'ops@example.com',
  domainName: 'api.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
  hostedZoneName: 'example.com',
  keys: 'true',
  apiKeys: 'acme:partner,alice:free,bob:none',
  waf: 'true',
};

/** Four stacks synthesised and checked by two packs: minutes, not seconds, on a busy two-core machine. */
const synthesis = { timeout: 180_000 };

describe('cdk-nag AwsSolutions and Serverless packs', () => {
  for (const stage of ['dev', 'prod'] as const) {
    it(`find nothing unacknowledged in ${stage}, with and without the optional settings`, synthesis, () => {
      expect(findings(synthStack(stage).stack)).toEqual([]);
      expect(findings(synthStack(stage, everything).stack)).toEqual([]);
    });

    it(`acknowledge only allow-listed rules in ${stage}, each with its reason in code`, synthesis, () => {
      const found = acknowledgements(synthStack(stage, everything).stack);
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

  it('excuse the `*` resource only on the functions, whose roles hold it for X-Ray alone', synthesis, () => {
    const { stack } = synthStack('prod');
    const excused = acknowledgements(stack).filter((a) => a.id === 'AwsSolutions-IAM5[Resource::*]');
    expect(excused.length).toBeGreaterThan(0);
    const functionScopes = [...stack.functions.values(), ...stack.scheduledFunctions.values()]
      .map((fn) => fn.node.path)
      .sort();
    expect(excused.map((a) => a.path).sort()).toEqual(functionScopes);
  });

  it('do flag a function that is not traced: the Serverless pack is live, not a formality', () => {
    const stack = new Stack(new App(), 'Untraced');
    new LambdaFunction(stack, 'Plain', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({})'),
    });
    expect(findings(stack).some((finding) => finding.startsWith('Serverless-LambdaTracing'))).toBe(true);
  });
});
