import { readFileSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { minimumCompressionBytes } from '../../shared/http/compression';
import type { Operation } from '../../shared/operation/row';
import { expandRoutes, operations } from '../../shared/routes/table';
import { scheduledTasks } from '../../shared/routes/tasks';
import { apiDocumentOf, resourcesOf } from './api-document';
import { synthStack } from './stack';

/** Long enough for the synthesis of several stacks on a busy two-core machine. */
const synthesis = { timeout: 180_000 };

const handlers = [...new Set(expandRoutes().map((route) => route.handler))];

/** How the stack deploys and runs: the scheduled janitor, canaries, a custom domain, compression, room to grow. */

const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';

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
  it(
    'is what the operations guide says the stack holds, by default and with an alarm email and a domain',
    synthesis,
    () => {
      const guide = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
      const stated =
        /the stack has (\d+) CloudFormation resources in `dev` and (\d+) in `prod`.*?add (\d+): (\d+) and (\d+); a real synth adds CDK's metadata resource: (\d+) and (\d+)\)/.exec(
          guide,
        );
      expect(stated, 'the sentence under Limits').not.toBeNull();
      const [dev, prod, added, devWith, prodWith, devReal, prodReal] = stated!.slice(1).map(Number);
      const count = (stage: 'dev' | 'prod', context: Record<string, string> = {}) =>
        Object.keys(resourcesOf(synthStack(stage, context).template)).length;
      const withBoth = {
        alarmEmail: 'ops@example.com',
        domainName: 'api.example.com',
        certificateArn,
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        hostedZoneName: 'example.com',
      };
      expect([count('dev'), count('prod')]).toEqual([dev, prod]);
      expect([count('dev', withBoth), count('prod', withBoth)]).toEqual([devWith, prodWith]);
      expect([devWith! - dev!, prodWith! - prod!]).toEqual([added, added]);
      expect([devReal, prodReal]).toEqual([dev! + 1, prod! + 1]);
    },
  );

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

  it('keeps each stage, with every optional setting and two clients, at or under 260 resources', synthesis, () => {
    const everything = {
      alarmEmail: 'ops@example.com',
      domainName: 'api.example.com',
      certificateArn,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      hostedZoneName: 'example.com',
      keys: 'true',
      waf: 'true',
      apiKeys: 'acme:partner,alice:free',
    };
    for (const stage of ['dev', 'prod'] as const)
      expect(Object.keys(resourcesOf(synthStack(stage, everything).template)).length).toBeLessThanOrEqual(260);
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
