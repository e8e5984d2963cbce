import { describe, expect, it } from 'vitest';
import { resourcesOf } from './api-document';
import { synthStack } from './stack';

/** The alarms on what runs without a request: the table's stream and its failure queue, the schedule. */

type Resource = { Type: string; Properties: Record<string, unknown> };
const resources = resourcesOf(synthStack('prod').template) as Record<string, Resource>;
const alarm = (name: string) =>
  Object.values(resources).find((r) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties.AlarmName === name)!
    .Properties;
const queueId = Object.entries(resources).find(([, r]) => r.Type === 'AWS::SQS::Queue')![0];
const topicId = Object.entries(resources).find(([, r]) => r.Type === 'AWS::SNS::Topic')![0];

describe('the stream failure queue', () => {
  it('notifies of every new failed batch, even while an older one waits in the queue', () => {
    expect(alarm('magazine-api-prod-stream-failures-new')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'NumberOfMessagesSent',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: topicId }],
      AlarmDescription: expect.stringMatching(/each new failure notifies/),
    });
    // …beside the depth, which stays in alarm as long as any failure waits.
    expect(alarm('magazine-api-prod-stream-failures')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Statistic: 'Maximum',
      Threshold: 1,
    });
  });
});
