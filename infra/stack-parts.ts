import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { prefixesOf, type StreamTask } from '../shared/operation/row';

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

/**
 * Where the stream functions' failed batches go: a queue whose depth raises an alarm. It is kept
 * as the logs are (`removalPolicy`), since a batch not yet replayed is lost with it.
 */
export const failureQueue = (scope: Construct, removalPolicy: RemovalPolicy): Queue => {
  const queue = new Queue(scope, 'StreamFailures', {
    removalPolicy,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge(
    {
      id: 'AwsSolutions-SQS3',
      reason:
        "It is itself the failure queue of the stream's functions (the folder's, and the change events' that could not be put on the bus): each message names a function and a stream batch to look at, and its depth raises an alarm.",
    },
    {
      id: 'Serverless-SQSRedrivePolicy',
      reason: 'A failure queue has nowhere further to send what it holds: an operator reads it.',
    },
  );
  return queue;
};

/** How a stream task reads the table's stream: its filter, batches, lanes, retries and failure queue. */
export const streamSource = (table: ITable, task: StreamTask, failures: Queue): DynamoEventSource =>
  new DynamoEventSource(table, {
    startingPosition: StartingPosition.TRIM_HORIZON,
    batchSize: task.batchSize,
    maxBatchingWindow: Duration.seconds(task.batchWindowSeconds),
    parallelizationFactor: task.parallelization,
    retryAttempts: 10,
    bisectBatchOnError: true,
    onFailure: new SqsDlq(failures),
    // One filter per prefix: a record passes if any lets it through.
    filters: prefixesOf(task).map((prefix) =>
      FilterCriteria.filter({
        eventName: FilterRule.or(...(task.changes ?? ['INSERT'])),
        dynamodb: { Keys: { SK: { S: FilterRule.beginsWith(prefix) } } },
      }),
    ),
  });
