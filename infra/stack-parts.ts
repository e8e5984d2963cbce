import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** Parts of the stack (magazine-api-stack.ts) that stand alone: made here, with the cdk-nag findings they accept. */

/** The key that signs list cursors: made at deploy time, in no template or repository (the README says why). */
export const cursorKeySecret = (scope: Construct, stage: string): Secret => {
  const secret = new Secret(scope, 'CursorKey', {
    description: `Signs the list cursors of the Magazine API (${stage}); a new value invalidates the cursors made before it.`,
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'Rotating the key only invalidates the cursors in circulation (clients fall back to `offset`); it is replaced by hand when it may have leaked (see docs/operations.md), which a rotation function would not make safer.',
  });
  return secret;
};

/** Where the stream functions' failed batches go: a queue whose depth raises an alarm. */
export const failureQueue = (scope: Construct): Queue => {
  const queue = new Queue(scope, 'StreamFailures', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge(
    {
      id: 'AwsSolutions-SQS3',
      reason:
        "It is itself the failure queue of the stream's functions: each message names a stream batch to look at, and its depth raises an alarm.",
    },
    {
      id: 'Serverless-SQSRedrivePolicy',
      reason: 'A failure queue has nowhere further to send what it holds: an operator reads it.',
    },
  );
  return queue;
};
