import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  AuthorizationType,
  type CorsOptions,
  EndpointType,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  type Method,
  MethodLoggingLevel,
  Resource,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { Construct } from 'constructs';
import { tableDefinition } from '../shared/db/table';
import { corsPreflight } from '../shared/http/cors';
import { expandRoutes, functionEnvironment, notFoundHandler, type Operation, type Route } from '../shared/routes';
import { ApiFunction, pascalCase } from './api-function';
import { addGatewayResponses } from './gateway-responses';
import type { StageSettings } from './stage-settings';

export interface MagazineApiStackProps extends StackProps {
  readonly settings: StageSettings;
  /** Ready-made code for a function instead of bundling it (tests about the template only); `undefined` bundles. */
  readonly functionCode?: (handler: string) => Code | undefined;
}

/** Methods that change data: signed with SigV4 (IAM authorization); everything else is public. */
export const writeMethods: ReadonlySet<Route['method']> = new Set(['POST', 'PUT', 'DELETE']);

/** Preflight (OPTIONS) for browsers, on every path the API serves; API Gateway answers it itself. */
const preflight: CorsOptions = {
  allowOrigins: [corsPreflight.allowOrigin],
  allowMethods: [...corsPreflight.allowMethods],
  allowHeaders: [...corsPreflight.allowHeaders],
  maxAge: Duration.seconds(corsPreflight.maxAgeSeconds),
};

/**
 * The Magazine API in one stack: the table, one function per handler module, and a REST API whose
 * resources and methods are generated from the route table (`expandRoutes()`).
 */
export class MagazineApiStack extends Stack {
  readonly table: Table;
  readonly api: RestApi;
  /** By handler module name (`get-magazine`). */
  readonly functions = new Map<string, ApiFunction>();
  readonly publisherPolicy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: MagazineApiStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: settings.deletionProtection,
      removalPolicy: settings.tableRemovalPolicy,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
    });
    Validations.of(this.table).acknowledge({
      id: 'AwsSolutions-DDB4',
      reason: 'Point-in-time recovery (35 days) is the backup; an AWS Backup plan is left to the account owner.',
    });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: settings.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: `magazine-api-${settings.stage}`,
      description: `The Magazine API (${settings.stage})`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // Access logging needs the account's CloudWatch role; kept when the stack goes, as other APIs share it.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: settings.stage,
        throttlingRateLimit: settings.throttlingRateLimit,
        throttlingBurstLimit: settings.throttlingBurstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.jsonWithStandardFields({
          caller: true,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: true,
        }),
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
      },
    });
    addGatewayResponses(this.api, settings.baseUrl);

    const environment = (operation: Operation | undefined) =>
      functionEnvironment(operation, {
        tableName: this.table.tableName,
        mockEnabled: settings.mockEnabled,
        baseUrl: settings.baseUrl,
      });
    const integrations = new Map<string, LambdaIntegration>();
    const integrationFor = (handler: string, operation: Operation | undefined) => {
      const existing = integrations.get(handler);
      if (existing) return existing;
      const fn = new ApiFunction(this, pascalCase(handler), {
        handler,
        actions: operation?.actions ?? [],
        table: this.table,
        environment: environment(operation),
        logRetention: settings.logRetention,
        ...(operation?.timeoutSeconds && { timeout: Duration.seconds(operation.timeoutSeconds) }),
        code: props.functionCode?.(handler),
      });
      this.functions.set(handler, fn);
      // One permission per function for the whole API, not one per method: the function's resource
      // policy stays far below Lambda's 20 KB limit however many routes share it.
      const integration = new LambdaIntegration(fn.function, { scopePermissionToMethod: false });
      integrations.set(handler, integration);
      return integration;
    };

    const writes: Method[] = [];
    const routedResources = new Set<string>();
    for (const route of expandRoutes()) {
      const resource = this.api.root.resourceForPath(route.resource);
      routedResources.add(resource.path);
      const write = writeMethods.has(route.method);
      const method = resource.addMethod(route.method, integrationFor(route.handler, route.operation), {
        authorizationType: write ? AuthorizationType.IAM : AuthorizationType.NONE,
        ...(route.operation && { operationName: route.operation.id }),
      });
      if (write) writes.push(method);
    }
    // Resources made only as parents (`/v1`, `/api`, `/articles`) are not paths of the API either:
    // without a method API Gateway would answer them with its "missing authentication token".
    // The root too (`/{proxy+}` does not match `/`).
    const resources: IResource[] = [
      this.api.root,
      ...this.node.findAll().filter((c): c is Resource => c instanceof Resource),
    ];
    for (const resource of resources) {
      if (routedResources.has(resource.path)) resource.addCorsPreflight(preflight);
      else resource.addMethod('ANY', integrationFor(notFoundHandler, undefined));
    }
    this.acknowledgePublicMethods();

    this.publisherPolicy = new ManagedPolicy(this, 'PublisherPolicy', {
      description: `Allows signed writes (POST, PUT, DELETE) to the Magazine API (${settings.stage}).`,
      statements: [
        new PolicyStatement({ actions: ['execute-api:Invoke'], resources: writes.map((method) => method.methodArn) }),
      ],
    });
    this.acknowledgePathWildcards();

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API (stage path included)' });
    new CfnOutput(this, 'PublisherPolicyArn', {
      value: this.publisherPolicy.managedPolicyArn,
      description: 'Attach to the users or roles that may create, replace and delete',
    });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'Stage', { value: settings.stage });
  }

  private acknowledgePublicMethods() {
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          "Requests are validated in the functions, so that every refusal is the API's error object with a precise developerMessage (an API Gateway validator answers in its own words).",
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'No WAF: stage throttling bounds the load, and a web ACL costs more than this API; attach one to the stage where needed.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: 'Writes are authorised with IAM (SigV4) rather than a Cognito user pool; reads are public by design.',
      },
    );
    for (const method of this.api.methods) {
      const authorizationType =
        method.node.defaultChild &&
        this.resolve((method.node.defaultChild as { authorizationType?: string }).authorizationType);
      if (authorizationType === AuthorizationType.IAM) continue;
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `${method.httpMethod} is public by design: reads, CORS preflight, and the 404/405 answers need no credentials (writes are signed with IAM).`,
      });
    }
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The AWS-managed policy is the documented way to let API Gateway write access and execution logs for the account.',
      });
    }
  }

  /** A path parameter (`/magazines/{id}`) can only be matched by `*` in an execute-api ARN. */
  private acknowledgePathWildcards() {
    const document = this.resolve(this.publisherPolicy.document) as { Statement: { Resource: unknown[] }[] };
    for (const resource of document.Statement.flatMap((statement) => statement.Resource)) {
      const flat = flattenCfnReference(resource);
      if (!flat.includes('*')) continue;
      Validations.of(this.publisherPolicy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${flat}]`,
        reason:
          'The `*` stands for one path parameter of a write method ({id}); the policy names each write method and resource of the API.',
      });
    }
  }
}
