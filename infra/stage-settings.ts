import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';

export type StageName = 'dev' | 'prod';

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
  /** Whether the table (and its data) outlives the stack. */
  readonly tableRemovalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /** A fixed `{base_url}` (custom domain); otherwise taken from each request. */
  readonly baseUrl: string | undefined;
}

const defaults: Record<StageName, Omit<StageSettings, 'stage' | 'baseUrl'>> = {
  dev: {
    mockEnabled: true,
    throttlingRateLimit: 10,
    throttlingBurstLimit: 20,
    logRetention: RetentionDays.TWO_WEEKS,
    tableRemovalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
  },
  prod: {
    mockEnabled: false,
    throttlingRateLimit: 100,
    throttlingBurstLimit: 200,
    logRetention: RetentionDays.THREE_MONTHS,
    tableRemovalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
  },
};

const positiveNumber = (name: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new Error(`Context \`${name}\` must be a positive number; got \`${String(value)}\`.`);
  return number;
};

/**
 * Reads `-c stage=dev|prod` (default `dev`), `-c throttlingRateLimit=…`, `-c throttlingBurstLimit=…`
 * and `-c baseUrl=https://…` (all optional).
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
  return {
    ...base,
    stage,
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
    baseUrl: typeof baseUrl === 'string' ? baseUrl.replace(/\/+$/, '') : undefined,
  };
};
