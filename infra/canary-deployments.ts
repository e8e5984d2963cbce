import { Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ApiFunction } from './api-function';

/** A new version takes 10 % of the traffic for 5 minutes, then all of it, unless an alarm fires first. */
export const canaryConfig = LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES;

export interface CanaryDeploymentsProps {
  readonly stage: string;
  /** Functions with their alias `live`, and the alarms that roll a deployment of each back. */
  readonly functions: readonly { readonly fn: ApiFunction; readonly alarms: readonly IAlarm[] }[];
}

/**
 * One CodeDeploy application for the stage, one deployment group per function (the group moves
 * its alias `live` from version to version), and one service role for all of them: a changed
 * function reaches its users by a canary that its alarms roll back, without a human.
 */
export class CanaryDeployments extends Construct {
  readonly application: LambdaApplication;
  readonly groups = new Map<ApiFunction, LambdaDeploymentGroup>();

  constructor(scope: Construct, id: string, props: CanaryDeploymentsProps) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application', {
      applicationName: `magazine-api-${props.stage}`,
    });
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: `Shifts the Magazine API's (${props.stage}) aliases from version to version`,
    });
    for (const { fn, alarms } of props.functions) {
      if (!fn.live) throw new Error(`${fn.node.path} has no alias to deploy to.`);
      this.groups.set(
        fn,
        new LambdaDeploymentGroup(this, fn.node.id, {
          application: this.application,
          alias: fn.live,
          role,
          deploymentConfig: canaryConfig,
          alarms: [...alarms],
          autoRollback: { deploymentInAlarm: true, failedDeployment: true, stoppedDeployment: true },
        }),
      );
    }
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "AWS's managed policy for CodeDeploy on Lambda is the documented grant: it lets CodeDeploy move aliases and read the alarms, and AWS keeps it current.",
    });
  }
}
