import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { backgroundTasks, scheduledTasks } from '../../shared/routes/tasks';
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

describe('the background functions', () => {
  it("count their failures as Lambda's errors only: they answer no request, so there is no 500 to add", () => {
    for (const task of backgroundTasks) {
      const errors = alarm(`magazine-api-prod-${task.handler}-errors`);
      const metrics = (errors.Metrics ?? []) as { MetricStat?: { Metric: { Namespace: string } } }[];
      const watched =
        metrics.length > 0 ? metrics.flatMap((m) => m.MetricStat?.Metric.Namespace ?? []) : [errors.Namespace];
      expect(watched, task.handler).toEqual(['AWS/Lambda']);
      expect(errors.AlarmDescription, task.handler).not.toMatch(/500/);
    }
  });

  it('raise an alarm when a scheduled task has not run for a little longer than its schedule', () => {
    for (const task of scheduledTasks)
      expect(alarm(`magazine-api-prod-${task.handler}-stopped`), task.handler).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Invocations',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionLogicalId(task.handler) } }],
        Statistic: 'Sum',
        Period: (task.everyMinutes + 5) * 60,
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        // No invocation, no data point: that is the incident.
        TreatMissingData: 'breaching',
        AlarmActions: [{ Ref: topicId }],
      });
  });
});
