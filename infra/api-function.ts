import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetStaging, type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Alias,
  Architecture,
  type CfnFunction,
  type Code,
  type IFunction,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { TableAction } from '../shared/operation/row';
import { bundleSettings, credentialChain, memorySize } from './bundling';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The IAM action of a route table entry (`GetItem` → `dynamodb:GetItem`). */
export const iamAction = (action: TableAction) => `dynamodb:${action}` as const;

export const runtime = Runtime.NODEJS_24_X;
/** `get-magazine` → `GetMagazine`. */
export const pascalCase = (handler: string) =>
  handler.replace(/(^|-)([a-z0-9])/g, (_, __, letter: string) => letter.toUpperCase());

/** The CloudFormation logical id of a handler's function: stable, for `sam local invoke`. */
export const functionLogicalId = (handler: string) => `${pascalCase(handler)}Function`;

export interface ApiFunctionProps {
  /** Module under `functions/` (without extension). */
  readonly handler: string;
  /** The DynamoDB actions the operation sends (its route table `actions`); none for 404/405 and documentation. */
  readonly actions: readonly TableAction[];
  readonly table: ITable;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** From the route row (`timeoutSecondsOf`), so that the local server stops a function when Lambda would. */
  readonly timeout: Duration;
  /** Ready-made code instead of bundling `functions/<handler>.ts` (template-only tests). */
  readonly code?: Code | undefined;
  /** Publish each deployment's code as a version behind the alias `live`, which is what API Gateway calls. */
  readonly liveAlias?: boolean;
  /** Who calls it: API Gateway, waiting for the answer (the default), or a schedule, which does not wait. */
  readonly invokedBy?: 'api' | 'schedule' | 'stream';
}

/** The alias API Gateway calls where versions are published (prod): CodeDeploy moves it from version to version. */
export const liveAliasName = 'live';

/**
 * One operation's function, with everything that must be the same for all of them fixed here:
 * runtime, architecture, bundling, log group, active X-Ray tracing, and an IAM role that holds
 * only its own grants.
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /** The alias `live`, where versions are published. */
  readonly live: Alias | undefined;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs functions/${props.handler}.ts (DynamoDB: ${props.actions.join(', ') || 'none'})`,
    });
    this.logGroup.grantWrite(this.role);

    const bundling = {
      target: bundleSettings.target,
      format: OutputFormat.ESM,
      minify: bundleSettings.minify,
      sourceMap: bundleSettings.sourcemap,
      sourceMapMode: SourceMapMode.DEFAULT,
      sourcesContent: bundleSettings.sourcesContent,
      mainFields: [...bundleSettings.mainFields],
      banner: bundleSettings.banner,
      bundleAwsSDK: true,
      externalModules: [...bundleSettings.external],
      esbuildArgs: { '--alias': `${credentialChain.module}=./${credentialChain.replacement}` },
      // Where the project is mounted when the CDK bundles in Docker, so that the alias's relative path resolves there too.
      workingDirectory: AssetStaging.BUNDLING_INPUT_DIR,
      // esbuild's lines of sizes, per function and per synth, said nothing `npm run bundle` does not.
      logLevel: LogLevel.WARNING,
    };
    this.function = new NodejsFunction(this, 'Function', {
      runtime,
      architecture: Architecture.ARM_64,
      memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      environment: { ...props.environment },
      description: `Magazine API: functions/${props.handler}.ts`,
      ...(props.code
        ? { code: props.code, handler: 'index.handler' }
        : {
            entry: path.join(projectRoot, 'functions', `${props.handler}.ts`),
            handler: 'handler',
            projectRoot,
            depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
            bundling,
          }),
    });
    (this.function.node.defaultChild as CfnFunction).overrideLogicalId(functionLogicalId(props.handler));
    this.grantTable(props.table, props.actions);
    this.live = props.liveAlias
      ? new Alias(this, 'Live', { aliasName: liveAliasName, version: this.function.currentVersion })
      : undefined;
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          props.invokedBy === 'stream'
            ? "Active tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) and the stream's event source mapping (dynamodb:ListStreams) take no resource, so IAM grants them only on `*`."
            : 'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords apply to no resource, so IAM takes them only on `*`.',
      },
      ...(props.invokedBy === 'stream'
        ? [
            {
              id: 'Serverless-LambdaDLQ',
              reason:
                "The table's stream invokes it through an event source mapping, not asynchronously: a failed batch is retried by the mapping and then sent to the mapping's own failure queue.",
            },
            {
              id: 'Serverless-LambdaAsyncFailureDestination',
              reason:
                "No asynchronous invocations: the event source mapping keeps a failed batch's record in its failure queue.",
            },
          ]
        : props.invokedBy === 'schedule'
          ? [
              {
                id: 'Serverless-LambdaDLQ',
                reason:
                  'A scheduled run carries no data: a failed one (after Lambda retries it twice) is done again by the next run, and its failures raise the errors alarm; a queue of empty events would tell nothing more.',
              },
              {
                id: 'Serverless-LambdaAsyncFailureDestination',
                reason:
                  'A scheduled run carries no data to recover: the next run does the work again, and the errors alarm reports failures.',
              },
            ]
          : [
              {
                id: 'Serverless-LambdaDLQ',
                reason:
                  'API Gateway calls the function synchronously and the client gets every failure as an answer; a dead-letter queue only catches asynchronous invocations, which this function never has.',
              },
              {
                id: 'Serverless-LambdaAsyncFailureDestination',
                reason:
                  'No asynchronous invocations: API Gateway waits for the answer, so a failure destination would never receive anything.',
              },
            ]),
    );
  }

  /** What API Gateway invokes: the alias `live` where there is one, else the function itself. */
  get target(): IFunction {
    return this.live ?? this.function;
  }

  /** Only the actions the operation sends, on this table (it has no index). */
  private grantTable(table: ITable, actions: readonly TableAction[]) {
    if (actions.length === 0) return;
    this.role.addToPolicy(new PolicyStatement({ actions: actions.map(iamAction), resources: [table.tableArn] }));
  }
}
