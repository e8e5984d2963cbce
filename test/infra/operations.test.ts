import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { minimumCompressionBytes } from '../../shared/http/compression';
import { metricsNamespace, requestMetrics, stageMetrics } from '../../shared/metrics';
import type { Operation } from '../../shared/operation/row';
import { expandRoutes, fallbacks, operations } from '../../shared/routes/table';
import { backgroundTasks, scheduledTasks, streamTasks } from '../../shared/routes/tasks';
import { apiDocumentOf, resourcesOf } from './api-document';
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

const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';

describe('alarms', () => {
  it('cover the 5xx rate, p99 latency and 429s of the API, each function, and the table, notifying one topic', () => {
    for (const stage of ['dev', 'prod'] as const) {
      const alarms = alarmsOf(stage);
      const expected = [
        'api-5xx-rate',
        'api-p99-latency',
        'api-429',
        'table-throttles',
        'stream-failures',
        ...streamTasks.map((task) => `${task.handler}-iterator-age`),
        ...[...handlers, ...backgroundTasks.map((task) => task.handler)].flatMap((handler) => [
          `${handler}-errors`,
          `${handler}-throttles`,
        ]),
      ].map((name) => `magazine-api-${stage}-${name}`);
      expect([...alarms.keys()].sort()).toEqual(expected.sort());
      const topics = Object.entries(resourcesOf(synthStack(stage).template)).filter(
        ([, r]) => r.Type === 'AWS::SNS::Topic',
      );
      expect(topics).toHaveLength(1);
      for (const [name, alarm] of alarms) {
        expect(alarm.Properties.AlarmActions, name).toEqual([{ Ref: topics[0]![0] }]);
        expect(alarm.Properties.OKActions, name).toEqual([{ Ref: topics[0]![0] }]);
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

  it("count API Gateway's 429s from the access log, where throttled requests show", () => {
    const { template } = synthStack('prod');
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = "429" }',
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
    };
    const alarms = alarmsOf('prod', context);
    const threshold = (name: string) => alarms.get(`magazine-api-prod-${name}`)!.Properties.Threshold;
    expect(threshold('api-5xx-rate')).toBe(0.02);
    expect(threshold('api-p99-latency')).toBe(1500);
    expect(threshold('api-429')).toBe(7);
    expect(threshold('list-tags-errors')).toBe(3);
    expect(threshold('list-tags-throttles')).toBe(4);
    expect(threshold('table-throttles')).toBe(9);
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
});

describe('the dashboard', () => {
  it('shows the figures the alarms watch and every metric the functions publish, per operation', () => {
    const { template } = synthStack('prod');
    const dashboards = Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]!.Properties.DashboardName).toBe('magazine-api-prod-dashboard');
    const body = JSON.stringify(dashboards[0]!.Properties.DashboardBody);
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
});

describe('scheduled tasks', () => {
  it('run each task on its schedule, all at once in every stage, watched by its own alarms', () => {
    for (const stage of ['dev', 'prod'] as const) {
      const resources = resourcesOf(synthStack(stage).template);
      const rules = Object.values(resources).filter((r) => r.Type === 'AWS::Events::Rule');
      expect(rules).toHaveLength(scheduledTasks.length);
      for (const task of scheduledTasks) {
        const id = functionLogicalId(task.handler);
        expect(resources[id]!.Properties.Timeout, task.handler).toBe(task.timeoutSeconds);
        const rule = rules.find((r) =>
          (r.Properties.Targets as { Arn: unknown }[]).some((t) => JSON.stringify(t.Arn).includes(`"${id}"`)),
        );
        expect(rule?.Properties.ScheduleExpression, task.handler).toBe(`rate(${task.everyMinutes} minutes)`);
        expect(rule?.Properties.State).toBe('ENABLED');
        // EventBridge may invoke it, and no one else but the account.
        expect(
          Object.values(resources).some(
            (r) =>
              r.Type === 'AWS::Lambda::Permission' &&
              r.Properties.Principal === 'events.amazonaws.com' &&
              JSON.stringify(r.Properties.FunctionName).includes(`"${id}"`),
          ),
        ).toBe(true);
        // Not behind an alias: no canary shifts a schedule's calls.
        expect(
          Object.values(resources).some(
            (r) => r.Type === 'AWS::Lambda::Alias' && JSON.stringify(r.Properties.FunctionName).includes(`"${id}"`),
          ),
        ).toBe(false);
      }
    }
  });
});

describe('safe deploys', () => {
  it('publish every prod function as a version behind the alias live, shifted by a CodeDeploy canary that its alarms roll back', () => {
    const resources = resourcesOf(synthStack('prod').template);
    const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
    const aliases = ofType('AWS::Lambda::Alias');
    expect(aliases).toHaveLength(handlers.length);
    expect(ofType('AWS::CodeDeploy::Application')).toHaveLength(1);
    for (const handler of handlers) {
      const alias = aliases.find(
        ([, r]) => (r.Properties.FunctionName as { Ref: string }).Ref === functionLogicalId(handler),
      );
      expect(alias, handler).toBeDefined();
      const [, aliasResource] = alias!;
      expect(aliasResource.Properties.Name).toBe('live');
      const versionId = (aliasResource.Properties.FunctionVersion as { 'Fn::GetAtt': [string, string] })[
        'Fn::GetAtt'
      ][0];
      expect(resources[versionId]!.Type).toBe('AWS::Lambda::Version');
      expect(resources[versionId]!.Properties.FunctionName).toEqual({ Ref: functionLogicalId(handler) });
      const update = (
        aliasResource as unknown as {
          UpdatePolicy: { CodeDeployLambdaAliasUpdate: { DeploymentGroupName: { Ref: string } } };
        }
      ).UpdatePolicy.CodeDeployLambdaAliasUpdate;
      const group = resources[update.DeploymentGroupName.Ref]!;
      expect(group.Properties).toMatchObject({
        DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
        DeploymentStyle: { DeploymentOption: 'WITH_TRAFFIC_CONTROL', DeploymentType: 'BLUE_GREEN' },
        AutoRollbackConfiguration: { Enabled: true, Events: expect.arrayContaining(['DEPLOYMENT_STOP_ON_ALARM']) },
        AlarmConfiguration: { Enabled: true },
      });
      const rollbackAlarms = (group.Properties.AlarmConfiguration as { Alarms: { Name: { Ref: string } }[] }).Alarms;
      expect(rollbackAlarms.map((a) => resources[a.Name.Ref]!.Properties.AlarmName)).toEqual([
        `magazine-api-prod-${handler}-errors`,
      ]);
    }
  });

  it('deploy dev all at once: no versions, aliases or CodeDeploy', () => {
    const { template } = synthStack('dev');
    for (const type of ['AWS::Lambda::Version', 'AWS::Lambda::Alias', 'AWS::CodeDeploy::DeploymentGroup'])
      template.resourceCountIs(type, 0);
  });
});

describe('a custom domain', () => {
  const domain = { domainName: 'api.example.com', certificateArn };

  it('changes nothing when it is not asked for', () => {
    const { template } = synthStack('prod');
    for (const type of ['AWS::ApiGateway::DomainName', 'AWS::ApiGateway::BasePathMapping', 'AWS::Route53::RecordSet'])
      template.resourceCountIs(type, 0);
    const output = template.findOutputs('ApiUrl').ApiUrl!;
    expect(JSON.stringify(output.Value)).toContain('.execute-api.');
  });

  it('maps the stage at the root of the name, which then makes {base_url} without -c baseUrl', synthesis, () => {
    const { template } = synthStack('prod', domain);
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.com',
      RegionalCertificateArn: certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', {
      DomainName: { Ref: Match.anyValue() },
      RestApiId: { Ref: Match.stringLikeRegexp('^Api') },
      Stage: { Ref: Match.stringLikeRegexp('^ApiDeploymentStage') },
      BasePath: Match.absent(),
    });
    template.resourceCountIs('AWS::Route53::RecordSet', 0);
    template.hasOutput('ApiUrl', { Value: 'https://api.example.com/' });
    const resources = resourcesOf(template);
    const variables = (
      resources[functionLogicalId('get-magazine')]!.Properties.Environment as {
        Variables: Record<string, string>;
      }
    ).Variables;
    expect(variables.BASE_URL).toBe('https://api.example.com');
    const throttled = apiDocumentOf(template)['x-amazon-apigateway-gateway-responses'].THROTTLED!;
    expect(JSON.parse(throttled.responseTemplates['application/json']!).moreInfo).toBe(
      'https://api.example.com/v1/documentation/errors/42901.html',
    );
  });

  it('points the name at the API in the hosted zone given', synthesis, () => {
    const { template } = synthStack('dev', {
      ...domain,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
    });
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'api.example.com.',
      Type: 'A',
      HostedZoneId: 'Z0123456789ABCDEFGHIJ',
      AliasTarget: { DNSName: { 'Fn::GetAtt': [Match.anyValue(), 'RegionalDomainName'] } },
    });
  });

  it('lets -c baseUrl win, and refuses settings that do not go together', synthesis, () => {
    const { template } = synthStack('dev', { ...domain, baseUrl: 'https://cdn.example.com' });
    const variables = (
      resourcesOf(template)[functionLogicalId('get-tag')]!.Properties.Environment as {
        Variables: Record<string, string>;
      }
    ).Variables;
    expect(variables.BASE_URL).toBe('https://cdn.example.com');
    expect(() => synthStack('dev', { domainName: 'api.example.com' })).toThrow(/certificateArn/);
    expect(() => synthStack('dev', { certificateArn })).toThrow(/domainName/);
    expect(() => synthStack('dev', { ...domain, hostedZoneId: 'Z1' })).toThrow(/hostedZoneName/);
    expect(() => synthStack('dev', { ...domain, hostedZoneId: 'Z1', hostedZoneName: 'example.org' })).toThrow(
      /not in the hosted zone/,
    );
  });
});

describe('compression', () => {
  it('lets API Gateway compress answers from the shared minimum size on, in both stages', () => {
    for (const stage of ['dev', 'prod'] as const)
      synthStack(stage).template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        MinimumCompressionSize: minimumCompressionBytes,
      });
  });
});

describe('room to grow', () => {
  /** One more operation path, labelled, under every prefix: nine API paths, each with GET, HEAD, 405 and preflight. */
  const reviews: Operation = {
    id: 'listReviews',
    method: 'GET',
    path: '/magazines/{id}/reviews',
    handler: 'list-reviews',
    group: 'Articles',
    summary: 'List the reviews of a magazine',
    actions: ['GetItem', 'Query'],
    success: [],
    errors: [],
  };
  const grown = expandRoutes([...(operations as readonly Operation[]), reviews]);

  it('keeps each stage, with every optional setting, at or under 250 resources', synthesis, () => {
    const everything = {
      alarmEmail: 'ops@example.com',
      domainName: 'api.example.com',
      certificateArn,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
    };
    for (const stage of ['dev', 'prod'] as const)
      expect(Object.keys(resourcesOf(synthStack(stage, everything).template)).length).toBeLessThanOrEqual(250);
  });

  it('adds at most 10 resources for one more operation path with its labels and prefixes', synthesis, () => {
    expect(grown.filter((route) => route.handler === 'list-reviews').map((route) => route.resource)).toContain(
      '/api/v1/magazines/{id}/reviews.xml',
    );
    for (const stage of ['dev', 'prod'] as const) {
      const before = resourcesOf(synthStack(stage).template);
      const after = resourcesOf(synthStack(stage, {}, grown).template);
      const added = Object.keys(after).filter((id) => !(id in before));
      const removed = Object.keys(before).filter((id) => !(id in after));
      expect(
        Object.keys(after).length - Object.keys(before).length,
        `${stage}: ${added.join(', ')}`,
      ).toBeLessThanOrEqual(10);
      // The deployment's logical id carries a hash of the document, so a new path replaces it rather than adding one.
      expect(removed.map((id) => before[id]!.Type)).toEqual(['AWS::ApiGateway::Deployment']);
      expect(added.length - removed.length).toBe(Object.keys(after).length - Object.keys(before).length);
      // The new operation's own function is among what it costs (and nothing per route).
      expect(added).toContain(functionLogicalId('list-reviews'));
      expect(added.map((id) => after[id]!.Type)).not.toContain('AWS::ApiGateway::Resource');
      // …and API Gateway serves it: the document has every one of its paths.
      const paths = Object.keys(apiDocumentOf(synthStack(stage, {}, grown).template).paths);
      for (const route of grown.filter((r) => r.handler === 'list-reviews')) expect(paths).toContain(route.resource);
    }
  });
});
