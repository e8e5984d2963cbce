import { Match } from 'aws-cdk-lib/assertions';
import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { functionLogicalId, iamAction } from '../../infra/api-function';
import { tableDefinition } from '../../shared/db/table';
import { type Operation, type TableAction, writeActions } from '../../shared/operation/row';
import { DEFAULT_TIMEOUT_SECONDS, expandRoutes, operations, timeoutSecondsOf } from '../../shared/routes/table';
import { backgroundTasks, streamTasks } from '../../shared/routes/tasks';
import { accessLogFormat, resourcesOf } from './api-document';
import { cdkJsonContext, synthStack } from './stack';

const dev = synthStack('dev');
const prod = synthStack('prod');

/** The DynamoDB actions of each function module's row (an operation's or a scheduled task's); none for 404/405. */
const actionsByHandler = new Map<string, readonly TableAction[]>();
for (const route of expandRoutes()) actionsByHandler.set(route.handler, route.operation?.actions ?? []);
for (const task of backgroundTasks) actionsByHandler.set(task.handler, task.actions);

/** What the lead's repository sends per operation (issue 3 item 4): each function is granted exactly this. */
/** The grant each function's role must hold: its row's actions (test/integration checks the rows against the calls made). */
const expectedGrants: Record<string, readonly string[]> = Object.fromEntries(
  [...(operations as readonly Operation[]), ...backgroundTasks]
    .filter((o) => o.actions.length > 0)
    .map((o) => [o.handler, o.actions]),
);

describe('cdk.json', () => {
  it('sets every feature flag a new `cdk init` sets with this aws-cdk-lib, so that synth warns of none', () => {
    expect(cdkJsonContext).toMatchObject(CURRENTLY_RECOMMENDED_FLAGS);
  });
});

describe('functions', () => {
  it("run Node 24 on arm64, traced by X-Ray, API functions with a timeout below API Gateway's 29 s", () => {
    const resources = resourcesOf(dev.template);
    const functions = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
    expect(functions.length).toBe(actionsByHandler.size);
    const scheduled = new Set(backgroundTasks.map((task) => functionLogicalId(task.handler)));
    for (const [id, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.MemorySize).toBeGreaterThanOrEqual(256);
      // A background task answers no one: Lambda's own 15 minutes bound it.
      expect(fn.Properties.Timeout, id).toBeLessThan(scheduled.has(id) ? 900 : 29);
      expect(fn.Properties.LoggingConfig).toEqual({ LogGroup: { Ref: expect.any(String) } });
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
  });

  it('run for as long as their route row allows, the limit the local server enforces too', () => {
    const timeouts = new Set<number>();
    for (const handler of actionsByHandler.keys()) {
      const fn = resourcesOf(dev.template)[functionLogicalId(handler)]!;
      expect(fn.Properties.Timeout, handler).toBe(timeoutSecondsOf(handler));
      timeouts.add(fn.Properties.Timeout as number);
    }
    // Both a row's own limit (bulk writes) and the default are in use, so both paths are exercised.
    expect(timeouts).toContain(DEFAULT_TIMEOUT_SECONDS);
    expect(timeouts.size).toBeGreaterThan(1);
  });

  it('have mock on in dev and off in prod, no source-map flag (a fifth more on every cold start), and the table only where they use it', () => {
    for (const [stage, expected] of [
      [dev, 'true'],
      [prod, 'false'],
    ] as const) {
      for (const [handler, actions] of actionsByHandler) {
        const fn = resourcesOf(stage.template)[functionLogicalId(handler)]!;
        const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
        expect(variables.MOCK_ENABLED, handler).toBe(expected);
        expect(variables.NODE_OPTIONS, handler).toBeUndefined();
        // The `Stage` of the function's metrics.
        expect(variables.STAGE, handler).toBe(stage === dev ? 'dev' : 'prod');
        if (actions.length === 0) expect(variables.TABLE_NAME, handler).toBeUndefined();
        else expect(variables.TABLE_NAME, handler).toEqual({ Ref: expect.stringMatching(/^Table/) });
        // Until the operator says otherwise, tags are written as 1.0.0 reads them (a canary or a rollback meets them).
        const writes = actions.some((action) => writeActions.has(action));
        expect(variables.MAGAZINE_TAGS_FORM, handler).toBe(writes ? 'map' : undefined);
      }
    }
  });

  it('write tags as one string a tag when the operator says so, and refuse a form that is neither', () => {
    const strings = synthStack('dev', { magazineTagsForm: 'string' });
    const formOf = (stack: typeof dev, handler: string) => {
      const fn = resourcesOf(stack.template)[functionLogicalId(handler)]!;
      return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.MAGAZINE_TAGS_FORM;
    };
    // Named here, not found by the rule the stack uses: the functions that write magazine items.
    for (const handler of ['create-magazine', 'replace-magazine', 'replace-all-magazines']) {
      expect(formOf(prod, handler), handler).toBe('map');
      expect(formOf(strings, handler), handler).toBe('string');
    }
    expect(() => synthStack('dev', { magazineTagsForm: 'strings' })).toThrow(/magazineTagsForm/);
  });

  it('log to their own log group with a retention', () => {
    for (const [, resource] of Object.entries(resourcesOf(dev.template)).filter(
      ([, r]) => r.Type === 'AWS::Logs::LogGroup',
    )) {
      expect(resource.Properties.RetentionInDays).toBe(14);
    }
    for (const [, resource] of Object.entries(resourcesOf(prod.template)).filter(
      ([, r]) => r.Type === 'AWS::Logs::LogGroup',
    )) {
      expect(resource.Properties.RetentionInDays).toBe(90);
    }
  });
});

describe('least privilege', () => {
  const resources = resourcesOf(dev.template);
  const tableId = Object.entries(resources).find(([, r]) => r.Type === 'AWS::DynamoDB::Table')![0];

  /** Every statement of the inline policies attached to a function's role. */
  const statementsOf = (handler: string) => {
    const fn = resources[functionLogicalId(handler)]!;
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const role = resources[roleId]!;
    expect(role.Properties.ManagedPolicyArns, `${handler}: no managed policies`).toBeUndefined();
    return Object.values(resources)
      .filter(
        (r) =>
          r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: roleId }]),
      )
      .flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] })
            .Statement,
      )
      .flatMap((statement) => {
        // cdk.json's minimizePolicies merges statements on one resource across services (ListStreams
        // with X-Ray's on `*`): the grants are read per service, as they were written.
        const byService = Map.groupBy([statement.Action].flat(), (action) => action.split(':')[0]);
        return [...byService.values()].map((actions) => ({ actions, resource: JSON.stringify(statement.Resource) }));
      });
  };

  /** What the table's event source mapping needs of a stream task: to read the stream, and to list it (IAM takes that only on `*`). */
  const streamStatements = (handler: string) =>
    statementsOf(handler).filter((s) =>
      s.actions.some((a) => /^dynamodb:(DescribeStream|GetRecords|GetShardIterator|ListStreams)$/.test(a)),
    );

  const dynamoStatements = (handler: string) => {
    const stream = new Set(streamStatements(handler));
    const dynamo = statementsOf(handler).filter(
      (s) =>
        s.actions.some((a) => a.startsWith('dynamodb:')) &&
        ![...stream].some((t) => t.resource === s.resource && t.actions.join() === s.actions.join()),
    );
    const onTable = dynamo.filter((s) => s.resource === JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] }));
    const onIndexes = dynamo.filter((s) => s.resource.includes('/index/'));
    expect(onTable.length + onIndexes.length, `${handler}: nothing but the table and its indexes`).toBe(dynamo.length);
    return {
      onTable: onTable.flatMap((s) => s.actions).sort(),
      onIndexes: onIndexes.flatMap((s) => s.actions),
      indexResources: onIndexes.map((s) => s.resource),
    };
  };

  it('grants each function exactly the DynamoDB actions its operation sends, per operation', () => {
    for (const [handler, actions] of Object.entries(expectedGrants)) {
      expect(dynamoStatements(handler).onTable, handler).toEqual(actions.map((action) => `dynamodb:${action}`).sort());
    }
    for (const handler of actionsByHandler.keys()) {
      if (!(handler in expectedGrants))
        expect(dynamoStatements(handler), `${handler}: no table access`).toEqual({
          onTable: [],
          onIndexes: [],
          indexResources: [],
        });
    }
  });

  it("grants the route table's actions, on this table only", () => {
    for (const [handler, actions] of actionsByHandler)
      expect(dynamoStatements(handler).onTable, handler).toEqual(actions.map(iamAction).sort());
  });

  it("lets stream tasks read the table's stream, and nothing else read it", () => {
    const streamArn = JSON.stringify({ 'Fn::GetAtt': [tableId, 'StreamArn'] });
    for (const handler of actionsByHandler.keys()) {
      const granted = streamStatements(handler).map((s) => ({ actions: [...s.actions].sort(), resource: s.resource }));
      if (!streamTasks.some((task) => task.handler === handler)) {
        expect(granted, handler).toEqual([]);
        continue;
      }
      expect(granted, handler).toEqual(
        expect.arrayContaining([
          { actions: ['dynamodb:ListStreams'], resource: '"*"' },
          {
            actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
            resource: streamArn,
          },
        ]),
      );
      expect(granted).toHaveLength(2);
    }
  });

  it('grants nothing on indexes: the table has none', () => {
    for (const handler of actionsByHandler.keys()) expect(dynamoStatements(handler).onIndexes, handler).toEqual([]);
  });

  it('lets read operations change nothing', () => {
    for (const operation of (operations as readonly Operation[]).filter((o) => o.method === 'GET')) {
      expect(
        dynamoStatements(operation.handler).onTable.filter((a) => /Put|Update|Delete|Write/.test(a)),
        operation.id,
      ).toEqual([]);
    }
  });

  it('lets functions write only to their own log group', () => {
    for (const handler of actionsByHandler.keys()) {
      const logs = statementsOf(handler).filter((s) => s.actions.some((a) => a.startsWith('logs:')));
      expect(logs.flatMap((s) => s.actions).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      expect(logs[0]!.resource).toMatch(/^\{"Fn::GetAtt":\["[A-Za-z0-9]+Logs[A-Za-z0-9]+","Arn"\]\}$/);
    }
  });

  it('uses no wildcard action or resource in any function role, but for the X-Ray actions IAM takes only on `*`', () => {
    for (const handler of actionsByHandler.keys()) {
      const statements = statementsOf(handler);
      const tracing = statements.filter((s) => s.actions.some((a) => a.startsWith('xray:')));
      expect(
        tracing.map((s) => ({ ...s, actions: [...s.actions].sort() })),
        handler,
      ).toEqual([{ actions: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], resource: '"*"' }]);
      const listing = statements.filter((s) => s.actions.join() === 'dynamodb:ListStreams');
      for (const statement of statements.filter((s) => !tracing.includes(s) && !listing.includes(s))) {
        expect(statement.actions.join(' ')).not.toContain('*');
        expect(statement.resource).not.toContain('*');
      }
    }
  });

  it('grants reads no action that changes the table', () => {
    for (const operation of (operations as readonly Operation[]).filter((o) => o.method === 'GET')) {
      expect(
        operation.actions.filter((action) => writeActions.has(action)),
        operation.id,
      ).toEqual([]);
    }
  });
});

describe('table', () => {
  it('is built from the shared definition, on demand, with point-in-time recovery and TTL', () => {
    dev.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Match.absent(),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    });
  });

  it('is retained and protected from deletion in prod, and can be destroyed in dev', () => {
    prod.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    dev.template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
    const devTable = Object.values(resourcesOf(dev.template)).find((r) => r.Type === 'AWS::DynamoDB::Table')!;
    expect(devTable.Properties.DeletionProtectionEnabled).toBeFalsy();
  });

  it("keeps the stream's failed batches as it keeps the logs: after a prod stack, gone with a dev one", () => {
    prod.template.hasResource('AWS::SQS::Queue', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    dev.template.hasResource('AWS::SQS::Queue', { DeletionPolicy: 'Delete' });
  });
});

describe('stage', () => {
  it('takes its name, throttling and logging from context', () => {
    const custom = synthStack('prod', { throttlingRateLimit: '7', throttlingBurstLimit: '9' });
    custom.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 }),
      ]),
    });
    dev.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          ThrottlingRateLimit: 10,
          ThrottlingBurstLimit: 20,
        }),
      ]),
    });
  });

  it('traces every request with X-Ray and logs it in JSON with the ids that tie it to traces, metrics and clients', () => {
    for (const { template } of [dev, prod]) {
      template.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
      const format = accessLogFormat(template);
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        status: '$context.status',
        stage: '$context.stage',
        xrayTraceId: '$context.xrayTraceId',
        responseLatency: '$context.responseLatency',
        apiKeyId: '$context.identity.apiKeyId',
      });
    }
  });

  it('refuses a stage other than dev or prod', () => {
    expect(() => synthStack('staging' as 'dev')).toThrow(/stage/);
  });
});
