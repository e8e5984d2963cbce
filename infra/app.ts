import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { MagazineApiStack } from './magazine-api-stack';
import { stageSettingsFrom } from './stage-settings';

const app = new App();

/** A context setting that is missing or wrong is the user's to fix: its message, not a stack trace. */
const settingsOf = () => {
  try {
    return stageSettingsFrom(app.node);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
};
const settings = settingsOf();
new MagazineApiStack(app, `MagazineApi-${settings.stage}`, {
  settings,
  description: `The Magazine API (${settings.stage}): API Gateway REST API, Lambda functions, DynamoDB table, alarms`,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
// Every AwsSolutions and Serverless finding fails synthesis unless it is acknowledged, with its reason, in the stack.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
