import {
  Aspects,
  Aws,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Size,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import {
  ApiDefinition,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApiMode,
  SpecRestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaFunctionTarget } from 'aws-cdk-lib/aws-events-targets';
import { ManagedPolicy, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '../shared/db/table';
import { minimumCompressionBytes } from '../shared/http/compression';
import type { Operation, ScheduledTask, StreamTask } from '../shared/operation/row';
import { expandRoutes, fallbacks, type Route, timeoutSecondsOf } from '../shared/routes/table';
import { type DeploymentSettings, functionEnvironment, scheduledTasks, streamTasks } from '../shared/routes/tasks';
import { accessLogFormat } from './access-log';
import { acknowledgeApi, acknowledgePathWildcards, acknowledgeTopic } from './acknowledgements';
import { ApiFunction, pascalCase } from './api-function';
import { CanaryDeployments } from './canary-deployments';
import { ClientKeys } from './client-keys';
import { CustomDomainName } from './custom-domain';
import { Firewall } from './firewall';
import { Monitoring } from './monitoring';
import { NoPlainSecrets } from './plain-secrets';
import { restApiDefinition, writeMethods } from './rest-api-definition';
import { cursorKeySecret, failureQueue, streamSource } from './stack-parts';
import type { StageSettings } from './stage-settings';

export { writeMethods } from './rest-api-definition';

export interface MagazineApiStackProps extends StackProps {
  readonly settings: StageSettings;
  /** Ready-made code for a function instead of bundling it (tests about the template only); `undefined` bundles. */
  readonly functionCode?: (handler: string) => Code | undefined;
  /** The routes API Gateway serves: the route table's (`expandRoutes()`), unless a test adds a row to see what it costs. */
  readonly routes?: readonly Route[];
}

/**
 * The Magazine API in one stack: the table, one function per handler module, a REST API defined by
 * an OpenAPI document rendered from the route table (`expandRoutes()`), alarms and a dashboard,
 * and in prod each function behind an alias `live` that CodeDeploy moves by canary.
 */
export class MagazineApiStack extends Stack {
  readonly table: Table;
  /** The key that signs list cursors, generated when the stack is created; functions get its ARN only. */
  readonly cursorKey: Secret;
  readonly api: SpecRestApi;
  /** By handler module name (`get-magazine`): the functions API Gateway calls. */
  readonly functions = new Map<string, ApiFunction>();
  /** By handler module name (`sweep-garbage`, `fold-counts`): the functions a schedule or the table's stream runs. */
  readonly scheduledFunctions = new Map<string, ApiFunction>();
  /** Where the stream's records go that a stream function could not handle (after its retries). */
  readonly streamFailures: Queue;
  /** Where the change events go (`source` magazine-api, `detail-type` the event's name). */
  readonly eventBus: EventBus;
  readonly publisherPolicy: ManagedPolicy;
  readonly monitoring: Monitoring;
  readonly canaries: CanaryDeployments | undefined;
  readonly domain: CustomDomainName | undefined;
  /** The WAF web ACL on the stage, unless turned off. */
  readonly firewall: Firewall | undefined;
  /** The usage plans and clients' API keys, when the stage requires keys. */
  readonly clients: ClientKeys | undefined;

  constructor(scope: Construct, id: string, props: MagazineApiStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const routes = props.routes ?? expandRoutes();

    this.table = new Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: settings.deletionProtection,
      removalPolicy: settings.tableRemovalPolicy,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      stream: StreamViewType[tableDefinition.streamView],
    });
    Validations.of(this.table).acknowledge({
      id: 'AwsSolutions-DDB4',
      reason: 'Point-in-time recovery (35 days) is the backup; an AWS Backup plan is left to the account owner.',
    });

    this.cursorKey = cursorKeySecret(this, settings.stage);
    Aspects.of(this).add(new NoPlainSecrets());

    const deployment: DeploymentSettings = {
      tableName: this.table.tableName,
      mockEnabled: settings.mockEnabled,
      baseUrl: settings.baseUrl,
      stage: settings.stage,
      magazineTagsForm: settings.magazineTagsForm,
      logLevel: settings.logLevel,
    };
    const operationOf = new Map<string, Operation | undefined>(routes.map((route) => [route.handler, route.operation]));
    for (const [handler, operation] of operationOf) {
      const fn = new ApiFunction(this, pascalCase(handler), {
        handler,
        actions: operation?.actions ?? [],
        table: this.table,
        environment: functionEnvironment(operation, { ...deployment, cursorKeySecretArn: this.cursorKey.secretArn }),
        logRetention: settings.logRetention,
        logRemovalPolicy: settings.logRemovalPolicy,
        timeout: Duration.seconds(timeoutSecondsOf(handler)),
        code: props.functionCode?.(handler),
        liveAlias: settings.canaryDeployments,
      });
      if (operation?.list) this.cursorKey.grantRead(fn.role);
      this.functions.set(handler, fn);
    }

    /** A function no route serves, of the same make as the routes' (its row's grant and timeout). */
    const backgroundFunction = (task: ScheduledTask | StreamTask, invokedBy: 'schedule' | 'stream') =>
      new ApiFunction(this, pascalCase(task.handler), {
        handler: task.handler,
        actions: task.actions,
        table: this.table,
        environment: functionEnvironment(task, deployment),
        logRetention: settings.logRetention,
        logRemovalPolicy: settings.logRemovalPolicy,
        timeout: Duration.seconds(timeoutSecondsOf(task.handler)),
        code: props.functionCode?.(task.handler),
        invokedBy,
      });

    for (const task of scheduledTasks as readonly ScheduledTask[]) {
      const fn = backgroundFunction(task, 'schedule');
      const schedule = new Rule(this, `${pascalCase(task.handler)}Schedule`, {
        description: `${task.summary} (functions/${task.handler}.ts), every ${task.everyMinutes} minutes`,
        schedule: Schedule.rate(Duration.minutes(task.everyMinutes)),
        targets: [new LambdaFunctionTarget(fn.function, { retryAttempts: 2 })],
      });
      Validations.of(schedule).acknowledge({
        id: 'Serverless-EventBusDLQ',
        reason:
          'The schedule sends no data: an event that could not be delivered is replaced by the next one, a few minutes later, which does the same work.',
      });
      this.scheduledFunctions.set(task.handler, fn);
    }

    this.streamFailures = failureQueue(this, settings.logRemovalPolicy);
    // The change events' bus: consumers add their own rules to it, outside this stack.
    this.eventBus = new EventBus(this, 'ChangeEvents', { eventBusName: `magazine-api-${settings.stage}` });
    for (const task of streamTasks as readonly StreamTask[]) {
      const fn = backgroundFunction(task, 'stream');
      if (task.publishes) {
        this.eventBus.grantPutEventsTo(fn.function);
        fn.function.addEnvironment('EVENT_BUS_NAME', this.eventBus.eventBusName);
      }
      fn.function.addEventSource(streamSource(this.table, task, this.streamFailures));
      this.scheduledFunctions.set(task.handler, fn);
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: settings.logRetention,
      removalPolicy: settings.logRemovalPolicy,
    });
    this.api = new SpecRestApi(this, 'Api', {
      restApiName: `magazine-api-${settings.stage}`,
      description: `The Magazine API (${settings.stage})`,
      apiDefinition: ApiDefinition.fromInline(
        restApiDefinition({
          title: `magazine-api-${settings.stage}`,
          description: `The Magazine API (${settings.stage})`,
          routes,
          invokeArn: (handler) => this.functions.get(handler)!.target.functionArn,
          partition: Aws.PARTITION,
          region: Aws.REGION,
          baseUrl: settings.baseUrl,
          apiKeyRequired: settings.keys,
        }),
      ),
      // The document is the whole API: a path or method it no longer has is removed, not kept.
      mode: RestApiMode.OVERWRITE,
      endpointTypes: [EndpointType.REGIONAL],
      minCompressionSize: Size.bytes(minimumCompressionBytes),
      // Access logging needs the account's CloudWatch role; kept when the stack goes, as other APIs share it.
      // Setting it repoints the account's one AWS::ApiGateway::Account: off where the account has a role already.
      cloudWatchRole: settings.cloudWatchRole,
      ...(settings.cloudWatchRole && { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN }),
      deployOptions: {
        stageName: settings.stage,
        throttlingRateLimit: settings.throttlingRateLimit,
        throttlingBurstLimit: settings.throttlingBurstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
      },
    });
    // One permission per function for the whole API, not one per method: the function's resource
    // policy stays far below Lambda's 20 KB limit however many routes share it.
    for (const fn of this.functions.values()) {
      fn.target.addPermission('ApiGatewayInvoke', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: this.api.arnForExecuteApi(),
      });
    }
    this.firewall = settings.waf
      ? new Firewall(this, 'Firewall', {
          stage: settings.stage,
          stageArn: this.api.deploymentStage.stageArn,
          baseUrl:
            settings.baseUrl ??
            `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${settings.stage}`,
          rateLimit: settings.wafRateLimit,
        })
      : undefined;
    acknowledgeApi(this.api, settings.waf);
    this.clients = settings.keys
      ? new ClientKeys(this, 'Clients', { api: this.api, stage: settings.stage, keys: settings.apiKeys })
      : undefined;

    this.publisherPolicy = new ManagedPolicy(this, 'PublisherPolicy', {
      description: `Allows signed writes (POST, PUT, DELETE) to the Magazine API (${settings.stage}).`,
      statements: [
        new PolicyStatement({
          actions: ['execute-api:Invoke'],
          resources: routes
            .filter((route) => writeMethods.has(route.method))
            .map((route) =>
              this.api.arnForExecuteApi(
                route.method,
                route.resource.replace(/\{[^}]+\}/g, '*'),
                this.api.deploymentStage.stageName,
              ),
            ),
        }),
      ],
    });
    acknowledgePathWildcards(this, this.publisherPolicy);

    const operationIdOf = (handler: string) =>
      operationOf.get(handler)?.id ?? fallbacks.find((fallback) => fallback.handler === handler)?.id ?? handler;
    // The change events link to the API: its custom domain if it has one, else its stage's URL.
    for (const task of streamTasks as readonly StreamTask[])
      if (task.publishes)
        this.scheduledFunctions
          .get(task.handler)
          ?.function.addEnvironment('EVENTS_BASE_URL', settings.baseUrl ?? this.api.url);
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: settings.stage,
      thresholds: settings.alarms,
      alarmEmail: settings.alarmEmail,
      api: this.api,
      accessLogs,
      table: this.table,
      stream: { handlers: streamTasks.map((task) => task.handler), failures: this.streamFailures },
      schedules: scheduledTasks,
      events: true,
      functions: [
        ...[...this.functions].map(([handler, fn]) => ({
          handler,
          operationId: operationIdOf(handler),
          actions: operationOf.get(handler)?.actions ?? [],
          fn,
        })),
        ...[...(scheduledTasks as readonly ScheduledTask[]), ...(streamTasks as readonly StreamTask[])].map((task) => ({
          handler: task.handler,
          operationId: task.id,
          actions: task.actions,
          fn: this.scheduledFunctions.get(task.handler)!,
          background: true,
        })),
      ],
    });
    acknowledgeTopic(this.monitoring.topic);

    this.canaries = settings.canaryDeployments
      ? new CanaryDeployments(this, 'Deployments', {
          stage: settings.stage,
          functions: [...this.functions].map(([handler, fn]) => ({
            fn,
            alarms: [this.monitoring.functionErrorAlarms.get(handler)!],
          })),
        })
      : undefined;

    this.domain = settings.domain
      ? new CustomDomainName(this, 'Domain', {
          domain: settings.domain,
          api: this.api,
          stage: this.api.deploymentStage,
        })
      : undefined;

    new CfnOutput(this, 'ApiUrl', {
      value: settings.domain ? `https://${settings.domain.domainName}/` : this.api.url,
      description: settings.domain
        ? 'Base URL of the API (its custom domain)'
        : 'Base URL of the API (stage path included)',
    });
    if (this.domain)
      new CfnOutput(this, 'DomainTarget', {
        value: this.domain.domainName.domainNameAliasDomainName,
        description: 'Where the custom domain must point (CNAME or alias), when no hosted zone was given',
      });
    new CfnOutput(this, 'PublisherPolicyArn', {
      value: this.publisherPolicy.managedPolicyArn,
      description: 'Attach to the users or roles that may create, replace and delete',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'Stage', { value: settings.stage });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
  }
}
