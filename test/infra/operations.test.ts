import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { metricsNamespace, requestMetrics, stageMetrics } from '../../shared/metrics';
import type { Operation } from '../../shared/operation/row';
import { expandRoutes, fallbacks, operations } from '../../shared/routes/table';
import { backgroundTasks, scheduledTasks, streamTasks } from '../../shared/routes/tasks';
import { accessLogFormat, resourcesOf } from './api-document';
import { synthStack } from './stack';

/** Long enough for the synthesis of several stacks on a busy two-core machine. */
const synthesis = { timeout: 180_000 };

const handlers = [...new Set(expandRoutes().map((route) => route.handler))];
const operationIdOf = (handler: string) =>
  (operations as readonly Operation[]).find((operation) => operation.handler === handler)?.id ??
  fallbacks.find((fallback) => fallback.handler === handler)!.id;

type Alarm = { Properties: Record<string, unknown> };
const alarmsOf = (stage: 'dev' | 'prod', context: Record<string, string> = {}) =>
  new Map(
    Object.values(resourcesOf(synthStack(stage, context).template))
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .map((r) => [r.Properties.AlarmName as string, r as Alarm]),
  );

/**
 * The one metric an alarm watches, whichever form CloudFormation holds it in: the alarm's own
 * fields, or (when the metric has a label) a one-entry `Metrics` list.
 */
const singleMetricOf = ({ Properties: p }: Alarm) => {
  const metrics = p.Metrics as
    | { MetricStat: { Metric: Record<string, unknown>; Period: number; Stat: string } }[]
    | undefined;
  if (metrics) {
    expect(metrics).toHaveLength(1);
    const { Metric, Period, Stat } = metrics[0]!.MetricStat;
    return { ...Metric, Period, Stat };
  }
  return {
    Namespace: p.Namespace,
    MetricName: p.MetricName,
    Dimensions: p.Dimensions,
    Period: p.Period,
    Stat: p.ExtendedStatistic ?? p.Statistic,
  };
};

describe('alarms', () => {
  it('cover the 5xx rate, p99 latency and 429s of the API, each function, and the table, notifying one topic', () => {
    for (const stage of ['dev', 'prod'] as const) {
      const alarms = alarmsOf(stage);
      const expected = [
        'api-5xx-rate',
        'api-p99-latency',
        'api-429',
        'table-throttles',
        'tickets-read',
        'stream-failures',
        'stream-failures-new',
        ...streamTasks.map((task) => `${task.handler}-iterator-age`),
        ...[...handlers, ...backgroundTasks.map((task) => task.handler)].flatMap((handler) => [
          `${handler}-errors`,
          `${handler}-throttles`,
        ]),
        ...scheduledTasks.map((task) => `${task.handler}-stopped`),
      ].map((name) => `magazine-api-${stage}-${name}`);
      expect([...alarms.keys()].sort()).toEqual(expected.sort());
      const topics = Object.entries(resourcesOf(synthStack(stage).template)).filter(
        ([, r]) => r.Type === 'AWS::SNS::Topic',
      );
      expect(topics).toHaveLength(1);
      for (const [name, alarm] of alarms) {
        expect(alarm.Properties.AlarmActions, name).toEqual([{ Ref: topics[0]![0] }]);
        expect(alarm.Properties.OKActions, name).toEqual([{ Ref: topics[0]![0] }]);
        // A schedule's missed runs are the one figure whose absence is the incident (test/infra/background-alarms.test.ts).
        if (name.endsWith('-stopped')) continue;
        expect(alarm.Properties.ComparisonOperator, name).toBe('GreaterThanOrEqualToThreshold');
        expect(alarm.Properties.TreatMissingData, name).toBe('notBreaching');
      }
    }
  });

  it("read the API's own figures from API Gateway, with stricter thresholds in prod", () => {
    for (const [stage, rate, p99] of [
      ['dev', 0.05, 5000],
      ['prod', 0.01, 3000],
    ] as const) {
      const alarms = alarmsOf(stage);
      const fiveXx = alarms.get(`magazine-api-${stage}-api-5xx-rate`)!;
      expect(singleMetricOf(fiveXx)).toEqual({
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Dimensions: [{ Name: 'ApiName', Value: `magazine-api-${stage}` }],
        Stat: 'Average',
        Period: 300,
      });
      expect(fiveXx.Properties.Threshold).toBe(rate);
      const latency = alarms.get(`magazine-api-${stage}-api-p99-latency`)!;
      expect(singleMetricOf(latency)).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        Stat: 'p99',
      });
      expect(latency.Properties.Threshold).toBe(p99);
      // Two bad periods of three: one slow burst on a quiet API is not yet an incident.
      for (const alarm of [fiveXx, latency])
        expect(alarm.Properties).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    }
  });

  it("count API Gateway's 429s for rate from the access log, where throttled requests show, and not a spent quota's", () => {
    const { template } = synthStack('prod');
    // The gateway response type is in the log line: a 429 for a daily quota is QUOTA_EXCEEDED, one for rate THROTTLED.
    const format = accessLogFormat(template);
    expect(format).toMatchObject({
      status: '$context.status',
      errorResponseType: '$context.error.responseType',
      errorMessage: '$context.error.message',
      integrationError: '$context.integration.error',
      integrationStatus: '$context.integration.status',
      wafStatus: '$context.waf.status',
      wafResponseCode: '$context.wafResponseCode',
    });
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.status = "429") && ($.errorResponseType != "QUOTA_EXCEEDED") }',
      LogGroupName: { Ref: Match.stringLikeRegexp('^AccessLogs') },
      MetricTransformations: [
        {
          MetricNamespace: metricsNamespace,
          MetricName: 'ThrottledRequests',
          MetricValue: '1',
          Dimensions: [{ Key: 'Stage', Value: '$.stage' }],
        },
      ],
    });
    expect(alarmsOf('prod').get('magazine-api-prod-api-429')!.Properties).toMatchObject({
      Namespace: metricsNamespace,
      MetricName: 'ThrottledRequests',
      Dimensions: [{ Name: 'Stage', Value: 'prod' }],
      Statistic: 'Sum',
      Threshold: 20,
      AlarmDescription: expect.stringMatching(/429 for rate .*daily quota \(QUOTA_EXCEEDED\) is not counted/),
    });
  });

  it('count every DynamoDB operation the functions send, transactions included, in the table alarm', () => {
    const metrics = alarmsOf('prod').get('magazine-api-prod-table-throttles')!.Properties.Metrics as {
      MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } };
    }[];
    const measured = metrics.flatMap((m) =>
      m.MetricStat ? [m.MetricStat.Metric.Dimensions.find((d) => d.Name === 'Operation')!.Value] : [],
    );
    expect(
      metrics.filter((m) => m.MetricStat).every((m) => m.MetricStat!.Metric.MetricName === 'ThrottledRequests'),
    ).toBe(true);
    expect(measured.sort()).toEqual(
      [
        'BatchGetItem',
        'BatchWriteItem',
        'DeleteItem',
        'GetItem',
        'PutItem',
        'Query',
        'TransactWriteItems',
        'UpdateItem',
      ].sort(),
    );
  });

  it("watch the most tickets one list read added up, the figure the data model's bound is about", () => {
    for (const [stage, threshold] of [
      ['dev', 600],
      ['prod', 300],
    ] as const) {
      const alarm = alarmsOf(stage).get(`magazine-api-${stage}-tickets-read`)!;
      expect(singleMetricOf(alarm)).toEqual({
        Namespace: metricsNamespace,
        MetricName: 'TicketsRead',
        Dimensions: [{ Name: 'Stage', Value: stage }],
        Stat: 'Maximum',
        Period: 60,
      });
      // Three minutes of five: a burst that the folder catches up with is not an incident.
      expect(alarm.Properties).toMatchObject({ Threshold: threshold, EvaluationPeriods: 5, DatapointsToAlarm: 3 });
    }
  });

  it("count a function's crashes and its 500 answers (defects rendered in form) as its errors", () => {
    for (const stage of ['dev', 'prod'] as const) {
      const alarm = alarmsOf(stage).get(`magazine-api-${stage}-get-magazine-errors`)!;
      const metrics = alarm.Properties.Metrics as {
        Id: string;
        Expression?: string;
        MetricStat?: {
          Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] };
        };
      }[];
      const expression = metrics.find((m) => m.Expression)!.Expression!;
      const lambdaErrors = metrics.find((m) => m.MetricStat?.Metric.Namespace === 'AWS/Lambda')!;
      const defects = metrics.find((m) => m.MetricStat?.Metric.Namespace === metricsNamespace)!;
      expect(expression).toContain(lambdaErrors.Id);
      expect(expression).toContain(defects.Id);
      expect(lambdaErrors.MetricStat!.Metric.MetricName).toBe('Errors');
      const dims = Object.fromEntries(lambdaErrors.MetricStat!.Metric.Dimensions.map((d) => [d.Name, d.Value]));
      expect(dims.FunctionName).toEqual({ Ref: functionLogicalId('get-magazine') });
      // In prod the alarm watches the alias that CodeDeploy shifts, so a canary's errors count.
      if (stage === 'prod') expect(JSON.stringify(dims.Resource)).toContain(':live');
      else expect(dims.Resource).toBeUndefined();
      expect(defects.MetricStat!.Metric).toEqual({
        Namespace: metricsNamespace,
        MetricName: requestMetrics.serverErrors,
        Dimensions: expect.arrayContaining([
          { Name: 'Stage', Value: stage },
          { Name: 'Operation', Value: 'getMagazine' },
          { Name: 'ErrorCode', Value: '50001' },
        ]),
      });
      expect(alarm.Properties.Threshold).toBe(stage === 'prod' ? 1 : 5);
    }
  });

  it('take their thresholds from context', synthesis, () => {
    const context = {
      alarmApi5xxRate: '0.02',
      alarmApiP99LatencyMs: '1500',
      alarmApi429Count: '7',
      alarmFunctionErrors: '3',
      alarmFunctionThrottles: '4',
      alarmTableThrottles: '9',
      alarmTicketsRead: '150',
    };
    const alarms = alarmsOf('prod', context);
    const threshold = (name: string) => alarms.get(`magazine-api-prod-${name}`)!.Properties.Threshold;
    expect(threshold('api-5xx-rate')).toBe(0.02);
    expect(threshold('api-p99-latency')).toBe(1500);
    expect(threshold('api-429')).toBe(7);
    expect(threshold('list-tags-errors')).toBe(3);
    expect(threshold('list-tags-throttles')).toBe(4);
    expect(threshold('table-throttles')).toBe(9);
    expect(threshold('tickets-read')).toBe(150);
    expect(() => synthStack('prod', { alarmApi5xxRate: '5' })).toThrow(/alarmApi5xxRate/);
    expect(() => synthStack('prod', { alarmFunctionErrors: 'many' })).toThrow(/alarmFunctionErrors/);
  });

  it('email the address given by -c alarmEmail, and nobody otherwise', synthesis, () => {
    synthStack('dev', { alarmEmail: 'ops@example.com' }).template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    synthStack('dev').template.resourceCountIs('AWS::SNS::Subscription', 0);
    // The topic takes only encrypted connections.
    synthStack('dev').template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    expect(() => synthStack('dev', { alarmEmail: 'not an address' })).toThrow(/alarmEmail/);
  });

  it("may be published by the stage's alarms, as the topic's policy replaces SNS's default one that let them", () => {
    for (const stage of ['dev', 'prod'] as const) {
      const { template } = synthStack(stage);
      const topicId = Object.entries(resourcesOf(template)).find(([, r]) => r.Type === 'AWS::SNS::Topic')![0];
      const policies = Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::SNS::TopicPolicy');
      expect(policies).toHaveLength(1);
      const document = policies[0]!.Properties.PolicyDocument as { Statement: unknown[] };
      expect(document.Statement).toContainEqual(
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: 'sns:Publish',
          Resource: { Ref: topicId },
          Condition: expect.objectContaining({
            ArnLike: { 'aws:SourceArn': expect.objectContaining({ 'Fn::Join': expect.anything() }) },
          }),
        }),
      );
      expect(JSON.stringify(document)).toContain(`:alarm:magazine-api-${stage}-*`);
    }
  });
});

describe('the dashboard', () => {
  const dashboardOf = (stage: 'dev' | 'prod') => {
    const dashboards = Object.values(resourcesOf(synthStack(stage).template)).filter(
      (r) => r.Type === 'AWS::CloudWatch::Dashboard',
    );
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]!.Properties.DashboardName).toBe(`magazine-api-${stage}-dashboard`);
    return dashboards[0]!.Properties.DashboardBody;
  };

  it('shows the figures the alarms watch and every metric the functions publish, per operation', () => {
    const { template } = synthStack('prod');
    const body = JSON.stringify(dashboardOf('prod'));
    for (const metric of ['5XXError', '4XXError', 'Latency', 'Count', 'ThrottledRequests', 'Errors', 'Throttles'])
      expect(body, metric).toContain(`\\"${metric}\\"`);
    for (const metric of [...Object.values(requestMetrics), ...stageMetrics])
      expect(body, metric).toContain(`\\"${metric}\\"`);
    for (const handler of handlers) {
      expect(body, handler).toContain(`\\"${operationIdOf(handler)}\\"`);
      expect(body, handler).toContain(functionLogicalId(handler));
    }
    // An alarm status widget lists every alarm.
    const alarms = Object.keys(resourcesOf(template)).filter(
      (id) => resourcesOf(template)[id]!.Type === 'AWS::CloudWatch::Alarm',
    );
    for (const alarm of alarms) expect(body, alarm).toContain(`"${alarm}"`);
  });

  it('plots per-request figures only for the operations that write them, and names the alarm topic as deployed', () => {
    const body = JSON.stringify(dashboardOf('prod'));
    const widget = (title: string) => body.slice(body.indexOf(title), body.indexOf('\\"title\\"', body.indexOf(title)));
    for (const title of ['Requests by operation', '4xx by operation', '5xx by operation', 'p99 latency by operation']) {
      expect(widget(title), title).toContain(`\\"${operationIdOf(handlers[0]!)}\\"`);
      for (const task of backgroundTasks)
        expect(widget(title), `${title}: ${task.id}`).not.toContain(`\\"${task.id}\\"`);
    }
    // The topic's name, resolved at deploy time, not the construct's path in the app.
    expect(body).not.toContain('Monitoring/Alarms');
    expect(body).toMatch(/Alarms notify the SNS topic `",\{"Fn::GetAtt":\["MonitoringAlarms[0-9A-F]+","TopicName"\]\}/);
  });
});
