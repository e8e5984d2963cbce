import { CfnOutput, Names } from 'aws-cdk-lib';
import { ApiKey, type IRestApi, Period, type Stage, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { type ApiKeySetting, type PlanName, planNames, usagePlans } from './usage-plans';

export interface ClientKeysProps {
  readonly api: IRestApi & { readonly deploymentStage: Stage };
  readonly stage: string;
  readonly keys: readonly ApiKeySetting[];
}

/**
 * One usage plan per row of infra/usage-plans.ts on the stage, and one API key per client named
 * by the `apiKeys` setting, in its plan. API Gateway makes each key's value: it is in no template
 * and no repository, and an operator reads it with `aws apigateway get-api-key --include-value`.
 * A key's construct id is its client's name, so that moving a client to another plan replaces only
 * its membership, and the key (its value) stays.
 */
export class ClientKeys extends Construct {
  readonly plans = new Map<PlanName, UsagePlan>();
  readonly keys = new Map<string, ApiKey>();

  constructor(scope: Construct, id: string, props: ClientKeysProps) {
    super(scope, id);
    for (const name of planNames) {
      const plan = usagePlans[name];
      this.plans.set(
        name,
        new UsagePlan(this, `Plan-${name}`, {
          name: `magazine-api-${props.stage}-${name}`,
          description: plan.description,
          apiStages: [{ api: props.api, stage: props.api.deploymentStage }],
          throttle: { rateLimit: plan.rate, burstLimit: plan.burst },
          quota: { limit: plan.dailyQuota, period: Period.DAY },
        }),
      );
    }
    for (const client of props.keys) {
      const key = new ApiKey(this, `Key-${client.name}`, {
        apiKeyName: `magazine-api-${props.stage}-${client.name}`,
        description: `The API key of ${client.name} (plan ${client.plan})`,
        enabled: true,
      });
      if (client.plan !== 'none')
        this.plans.get(client.plan)!.addApiKey(key, { overrideLogicalId: `${Names.uniqueId(key)}In${client.plan}` });
      this.keys.set(client.name, key);
      new CfnOutput(this, `KeyId-${client.name}`, {
        value: key.keyId,
        description: `API key id of ${client.name}: aws apigateway get-api-key --include-value --api-key <id>`,
      });
    }
  }
}
