import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { isLogLevel, isMagazineTagsForm, type LogLevel, type MagazineTagsForm } from '../shared/config';
import { type ApiKeySetting, parseApiKeys } from './usage-plans';

export type StageName = 'dev' | 'prod';

/** When an alarm fires; each is a context setting of the same name (`-c alarmApi5xxRate=0.02`). */
export interface AlarmThresholds {
  /** Share of the API's requests answered 5xx (API Gateway `5XXError`, average over 5 minutes). */
  readonly alarmApi5xxRate: number;
  /** The API's p99 latency in milliseconds (API Gateway `Latency`, over 5 minutes). */
  readonly alarmApiP99LatencyMs: number;
  /**
   * Requests API Gateway refused with 429 for rate (the stage's or a usage plan's throttling) in 5
   * minutes; those refused for a spent daily quota (`QUOTA_EXCEEDED`) are not counted.
   */
  readonly alarmApi429Count: number;
  /** One function's failures in a minute: Lambda errors (crashes, timeouts) plus its 500 answers (defects). */
  readonly alarmFunctionErrors: number;
  /** One function's throttled invocations in 5 minutes. */
  readonly alarmFunctionThrottles: number;
  /** DynamoDB requests the table throttled in 5 minutes (before the SDK's retries). */
  readonly alarmTableThrottles: number;
  /** The most tickets (count work not folded yet) one request's list read added up, in a minute. */
  readonly alarmTicketsRead: number;
}

export const alarmSettingNames = [
  'alarmApi5xxRate',
  'alarmApiP99LatencyMs',
  'alarmApi429Count',
  'alarmFunctionErrors',
  'alarmFunctionThrottles',
  'alarmTableThrottles',
  'alarmTicketsRead',
] as const satisfies readonly (keyof AlarmThresholds)[];

/** A custom domain in front of the stage (`-c domainName=… -c certificateArn=…`). */
export interface CustomDomain {
  readonly domainName: string;
  /** An ACM certificate for the name, in the stack's region (a regional endpoint). */
  readonly certificateArn: string;
  /** A Route 53 hosted zone in which to create the domain's alias record; without it, the DNS is yours to point. */
  readonly hostedZone?: { readonly id: string; readonly name: string } | undefined;
}

/** What differs between a testing and a production deployment. All of it comes from CDK context. */
export interface StageSettings {
  readonly stage: StageName;
  /** `mock` requests are answered on the testing server only. */
  readonly mockEnabled: boolean;
  /** Steady-state requests per second for the whole stage. */
  readonly throttlingRateLimit: number;
  /** Requests allowed in a burst above the rate. */
  readonly throttlingBurstLimit: number;
  readonly logRetention: RetentionDays;
  /** Whether the log groups (the functions' and the access log) and the queue of failed stream batches outlive the stack, as the table does. */
  readonly logRemovalPolicy: RemovalPolicy;
  /** Whether the table (and its data) outlives the stack. */
  readonly tableRemovalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /** A fixed `{base_url}`: `-c baseUrl`, else the custom domain's; otherwise taken from each request. */
  readonly baseUrl: string | undefined;
  /**
   * Each function published as a version behind the alias `live`, which API Gateway calls, and a
   * new version reaches it by a CodeDeploy canary that its alarms roll back; otherwise all at once.
   */
  readonly canaryDeployments: boolean;
  readonly alarms: AlarmThresholds;
  /**
   * Subscribed to the alarms' topic (`-c alarmEmail=…`). Required in prod, where an alarm that
   * notifies nobody is as good as none: `-c alarmEmail=none` says the topic is yours to subscribe.
   */
  readonly alarmEmail: string | undefined;
  readonly domain: CustomDomain | undefined;
  /**
   * Every route but the documentation pages and `/openapi.json` requires an API key (`x-api-key`),
   * and keys belong to the usage plans of infra/usage-plans.ts (`-c keys=true|false`).
   */
  readonly keys: boolean;
  /** The clients' keys to create, each in its plan (`-c apiKeys=acme:partner,alice:free`). */
  readonly apiKeys: readonly ApiKeySetting[];
  /**
   * How magazine writes store tags (`-c magazineTagsForm=string|map`, shared/config.ts): `map`, the
   * form 1.0.0 reads, until every function runs a later version and no rollback will go below it.
   */
  readonly magazineTagsForm: MagazineTagsForm;
  /**
   * Make the role API Gateway writes logs with, and set it on the account (`AWS::ApiGateway::Account`,
   * one per account and region: the last stack to set it wins). `-c cloudWatchRole=false` in an
   * account whose API Gateway already has one.
   */
  readonly cloudWatchRole: boolean;
  /** The functions' `LOG_LEVEL` (`-c logLevel=DEBUG|INFO|WARN|ERROR`), the least a log line must be to be written. */
  readonly logLevel: LogLevel;
  /** A WAF web ACL in front of the stage: AWS's managed rule groups and a rate limit per IP (`-c waf=true|false`). */
  readonly waf: boolean;
  /** Requests one IP address may send in 5 minutes before the WAF blocks it (`-c wafRateLimit=…`). */
  readonly wafRateLimit: number;
}

type StageDefaults = Omit<
  StageSettings,
  'stage' | 'baseUrl' | 'alarmEmail' | 'domain' | 'apiKeys' | 'magazineTagsForm' | 'cloudWatchRole' | 'logLevel'
>;

const defaults: Record<StageName, StageDefaults> = {
  dev: {
    mockEnabled: true,
    throttlingRateLimit: 10,
    throttlingBurstLimit: 20,
    logRetention: RetentionDays.TWO_WEEKS,
    logRemovalPolicy: RemovalPolicy.DESTROY,
    tableRemovalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    canaryDeployments: false,
    keys: false,
    waf: false,
    wafRateLimit: 2_000,
    // The testing server: tell of what breaks it, not of every experiment.
    alarms: {
      alarmApi5xxRate: 0.05,
      alarmApiP99LatencyMs: 5000,
      alarmApi429Count: 100,
      alarmFunctionErrors: 5,
      alarmFunctionThrottles: 10,
      alarmTableThrottles: 50,
      // Twice prod's: the testing server is loaded on purpose.
      alarmTicketsRead: 600,
    },
  },
  prod: {
    mockEnabled: false,
    throttlingRateLimit: 100,
    throttlingBurstLimit: 200,
    logRetention: RetentionDays.THREE_MONTHS,
    // What happened before a stack was deleted (by mistake, or to be re-created) is still to be read.
    logRemovalPolicy: RemovalPolicy.RETAIN,
    tableRemovalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    canaryDeployments: true,
    keys: true,
    waf: true,
    wafRateLimit: 2_000,
    // A defect or a crash is worth a page, and rolls a canary back, from the first one.
    alarms: {
      alarmApi5xxRate: 0.01,
      alarmApiP99LatencyMs: 3000,
      alarmApi429Count: 20,
      alarmFunctionErrors: 1,
      alarmFunctionThrottles: 1,
      alarmTableThrottles: 10,
      // Past what a working folder leaves a list: about 50 on DynamoDB, peaks up to 256 on DynamoDB Local under 64 writers.
      alarmTicketsRead: 300,
    },
  },
};

const positiveNumber = (name: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new Error(`Context \`${name}\` must be a positive number; got \`${String(value)}\`.`);
  return number;
};

const flagOf = (node: Node, name: string, fallback: boolean): boolean => {
  const value = node.tryGetContext(name) as unknown;
  if (value === undefined || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`Context \`${name}\` must be \`true\` or \`false\`; got \`${String(value)}\`.`);
};

const optionalString = (node: Node, name: string): string | undefined => {
  const value = node.tryGetContext(name) as unknown;
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`Context \`${name}\` must be a string; got \`${String(value)}\`.`);
  return value;
};

const domainFrom = (node: Node): CustomDomain | undefined => {
  const domainName = optionalString(node, 'domainName');
  const certificateArn = optionalString(node, 'certificateArn');
  const hostedZoneId = optionalString(node, 'hostedZoneId');
  const hostedZoneName = optionalString(node, 'hostedZoneName');
  if (!domainName) {
    if (certificateArn || hostedZoneId || hostedZoneName)
      throw new Error('Context `certificateArn`, `hostedZoneId` and `hostedZoneName` need `domainName`.');
    return undefined;
  }
  if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domainName))
    throw new Error(
      `Context \`domainName\` must be a lower-case host name such as api.example.com; got \`${domainName}\`.`,
    );
  if (!certificateArn || !/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/.test(certificateArn))
    throw new Error(
      `Context \`domainName\` needs \`certificateArn\`, the ARN of an ACM certificate for it in the stack's region; got \`${certificateArn ?? ''}\`.`,
    );
  if (Boolean(hostedZoneId) !== Boolean(hostedZoneName))
    throw new Error(
      'Context `hostedZoneId` and `hostedZoneName` go together (the zone in which to create the record).',
    );
  if (hostedZoneName && !`.${domainName}`.endsWith(`.${hostedZoneName.replace(/\.$/, '')}`))
    throw new Error(`Context \`domainName\` (${domainName}) is not in the hosted zone \`${hostedZoneName}\`.`);
  return {
    domainName,
    certificateArn,
    hostedZone: hostedZoneId && hostedZoneName ? { id: hostedZoneId, name: hostedZoneName } : undefined,
  };
};

/** The alarms' subscriber: an address, or `none`; prod must say which, as its alarms would otherwise reach no one. */
const alarmEmailFrom = (node: Node, stage: StageName): string | undefined => {
  const alarmEmail = optionalString(node, 'alarmEmail');
  if (alarmEmail === undefined && stage === 'prod')
    throw new Error(
      "Context `alarmEmail` is required in prod: `-c alarmEmail=<address>` subscribes an address to the alarms' topic, or `-c alarmEmail=none` says the alarms' topic is yours to subscribe (its ARN is the `AlarmTopicArn` output).",
    );
  if (alarmEmail === undefined || alarmEmail === 'none') return undefined;
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail))
    throw new Error(`Context \`alarmEmail\` must be an email address or \`none\`; got \`${alarmEmail}\`.`);
  return alarmEmail;
};

/**
 * Reads `-c stage=dev|prod` (default `dev`) and, all optional: `-c throttlingRateLimit=…`,
 * `-c throttlingBurstLimit=…`, `-c baseUrl=https://…`, the alarm thresholds (`-c alarmApi5xxRate=…`
 * and the others of `AlarmThresholds`), `-c alarmEmail=…|none` (required in prod), and a custom domain
 * (`-c domainName=… -c certificateArn=…`, with `-c hostedZoneId=… -c hostedZoneName=…`), API
 * keys (`-c keys=true|false`, `-c apiKeys=client:plan,…`), the WAF (`-c waf=true|false`,
 * `-c wafRateLimit=…`), API Gateway's log role (`-c cloudWatchRole=true|false`) and the functions'
 * log level (`-c logLevel=…`).
 */
export const stageSettingsFrom = (node: Node): StageSettings => {
  const stage = (node.tryGetContext('stage') as unknown) ?? 'dev';
  if (stage !== 'dev' && stage !== 'prod')
    throw new Error(`Context \`stage\` must be \`dev\` or \`prod\`; got \`${String(stage)}\`.`);
  const base = defaults[stage];
  const baseUrl = node.tryGetContext('baseUrl') as unknown;
  if (baseUrl !== undefined && (typeof baseUrl !== 'string' || !/^https:\/\/[^/]+/.test(baseUrl))) {
    throw new Error(`Context \`baseUrl\` must be an https URL; got \`${String(baseUrl)}\`.`);
  }
  const alarmEmail = alarmEmailFrom(node, stage);
  const domain = domainFrom(node);
  const alarms = Object.fromEntries(
    alarmSettingNames.map((name) => [name, positiveNumber(name, node.tryGetContext(name), base.alarms[name])]),
  ) as unknown as AlarmThresholds;
  if (alarms.alarmApi5xxRate >= 1) throw new Error('Context `alarmApi5xxRate` is a share of requests, below 1.');
  const keys = flagOf(node, 'keys', base.keys);
  const apiKeys = parseApiKeys(optionalString(node, 'apiKeys') ?? '');
  if (apiKeys.length > 0 && !keys)
    throw new Error('Context `apiKeys` needs `keys=true`: keys that no route asks for would limit no one.');
  // What shared/config.ts takes when LOG_LEVEL is unset, so that a deploy without the setting logs as before.
  const logLevel = (optionalString(node, 'logLevel') ?? 'INFO').toUpperCase();
  if (!isLogLevel(logLevel))
    throw new Error(`Context \`logLevel\` must be DEBUG, INFO, WARN or ERROR; got \`${logLevel}\`.`);
  const magazineTagsForm = optionalString(node, 'magazineTagsForm') ?? 'map';
  if (!isMagazineTagsForm(magazineTagsForm))
    throw new Error(`Context \`magazineTagsForm\` must be \`string\` or \`map\`; got \`${magazineTagsForm}\`.`);
  return {
    ...base,
    stage,
    magazineTagsForm,
    keys,
    apiKeys,
    waf: flagOf(node, 'waf', base.waf),
    cloudWatchRole: flagOf(node, 'cloudWatchRole', true),
    logLevel,
    wafRateLimit: positiveNumber('wafRateLimit', node.tryGetContext('wafRateLimit'), base.wafRateLimit),
    throttlingRateLimit: positiveNumber(
      'throttlingRateLimit',
      node.tryGetContext('throttlingRateLimit'),
      base.throttlingRateLimit,
    ),
    throttlingBurstLimit: positiveNumber(
      'throttlingBurstLimit',
      node.tryGetContext('throttlingBurstLimit'),
      base.throttlingBurstLimit,
    ),
    baseUrl:
      typeof baseUrl === 'string' ? baseUrl.replace(/\/+$/, '') : domain ? `https://${domain.domainName}` : undefined,
    alarms,
    alarmEmail,
    domain,
  };
};
