import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { synthStack } from './stack';

type Resource = { Type: string; Properties: Record<string, unknown> };
const resourcesOf = (stage: 'dev' | 'prod' = 'dev') =>
  synthStack(stage).template.toJSON().Resources as Record<string, Resource>;
const publisher = functionLogicalId('publish-events');

describe('change events', () => {
  it('has a bus of its own, named for the stage', () => {
    const { template } = synthStack('prod');
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'magazine-api-prod' });
  });

  it('runs the publisher on the table stream for magazines, deletion notes and heads, new and changed, and the stream’s failure queue', () => {
    const { template } = synthStack('dev');
    const mappings = Object.values(resourcesOf()).filter(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties.FunctionName).includes(publisher),
    );
    expect(mappings).toHaveLength(1);
    const properties = mappings[0]!.Properties as {
      FilterCriteria: { Filters: { Pattern: string }[] };
      DestinationConfig: { OnFailure: { Destination: unknown } };
      ParallelizationFactor: number;
    };
    const patterns = properties.FilterCriteria.Filters.map((filter) => JSON.parse(filter.Pattern));
    expect(patterns).toEqual(
      ['MAGAZINE', 'DELETED#', 'HEAD'].map((prefix) => ({
        eventName: ['INSERT', 'MODIFY'],
        dynamodb: { Keys: { SK: { S: [{ prefix }] } } },
      })),
    );
    expect(properties.ParallelizationFactor).toBe(1);
    const queue = Object.entries(resourcesOf()).find(
      ([id, r]) => r.Type === 'AWS::SQS::Queue' && id.startsWith('StreamFailures'),
    );
    expect(queue).toBeDefined();
    expect(JSON.stringify(properties.DestinationConfig.OnFailure.Destination)).toContain(queue![0]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'magazine-api-dev-stream-failures',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue![0], 'QueueName'] } }],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'magazine-api-dev-publish-events-iterator-age',
      MetricName: 'IteratorAge',
    });
  });

  it('lets only the publisher put events, on that bus only, and read no more of the table than articles', () => {
    const resources = resourcesOf();
    const bus = Object.entries(resources).find(([, r]) => r.Type === 'AWS::Events::EventBus')![0];
    const putters = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties).includes('events:PutEvents'),
    );
    expect(putters.map(([id]) => id)).toEqual([expect.stringContaining('PublishEventsRole')]);
    const statements = (
      putters[0]![1].Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
    ).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({ Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [bus, 'Arn'] } }),
    );
    const tableActions = statements
      .flatMap((s) => [s.Action].flat() as string[])
      .filter(
        (action) =>
          action.startsWith('dynamodb:') &&
          !action.startsWith('dynamodb:DescribeStream') &&
          !['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'].includes(action),
      );
    expect(tableActions).toEqual(['dynamodb:BatchGetItem']);
  });

  it('tells the publisher its bus, and shows the events published on the dashboard', () => {
    const { template } = synthStack('dev');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ EVENT_BUS_NAME: Match.anyValue() }) },
    });
    const dashboards = Object.values(resourcesOf()).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(JSON.stringify(dashboards)).toContain('EventsPublished');
  });

  it('reads the stream from its oldest record, and the API guide tells consumers that a new reader repeats up to 24 hours of events', () => {
    const mapping = Object.values(resourcesOf('prod')).find(
      (r) =>
        r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties.FunctionName).includes(publisher),
    )!;
    expect(mapping.Properties.StartingPosition).toBe('TRIM_HORIZON');
    const guide = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const section = guide.slice(guide.indexOf('## Change events'), guide.indexOf('## Compression'));
    expect(
      /`TRIM_HORIZON`.*re-created.*up to 24 hours.*same `eventId`.*drops a repeat/.test(section),
      'docs/api.md, Change events: what a re-created reader repeats, and how a consumer drops it',
    ).toBe(true);
  });

  it('adds a function with its role, log group, stream mapping and alarms, and a bus', () => {
    for (const stage of ['dev', 'prod'] as const) {
      const resources = resourcesOf(stage);
      const added = Object.entries(resources)
        .filter(
          ([id, r]) =>
            /^(PublishEvents|ChangeEvents)|MonitoringPublishEvents/.test(id) ||
            JSON.stringify(r.Properties ?? {}).includes(`"AlarmName":"magazine-api-${stage}-publish-events`),
        )
        .map(([, r]) => r.Type);
      console.info(
        stage,
        Object.keys(resources).length,
        'resources, of which for the change events:',
        added.length,
        added.sort(),
      );
      expect(added).toEqual(expect.arrayContaining(['AWS::Events::EventBus', 'AWS::Lambda::Function']));
    }
  });
});
