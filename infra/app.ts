import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { MagazineApiStack } from './magazine-api-stack';
import { stageSettingsFrom } from './stage-settings';

const app = new App();
const settings = stageSettingsFrom(app.node);
new MagazineApiStack(app, `MagazineApi-${settings.stage}`, {
  settings,
  description: `The Magazine API (${settings.stage}): API Gateway REST API, Lambda functions, DynamoDB table, alarms`,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
// Every AwsSolutions and Serverless finding fails synthesis unless it is acknowledged, with its reason, in the stack.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
