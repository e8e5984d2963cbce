import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { MagazineApiStack } from '../../infra/magazine-api-stack';
import { type StageName, stageSettingsFrom } from '../../infra/stage-settings';
import type { Route } from '../../shared/routes/table';

/** Template-only tests need no bundles: every function gets the same small inline code. */
const stubCode = () => Code.fromInline('export const handler = async () => ({ statusCode: 200, body: "" });');

/** The feature flags `cdk synth` applies (cdk.json's context): the tests see the template that deploys. */
export const cdkJsonContext = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

const cache = new Map<string, { stack: MagazineApiStack; template: Template }>();

/**
 * Synthesizes the stack once per stage (and context) for a test file, with stubbed function code;
 * `routes` replaces the route table's (to see what one more row costs). Prod is synthesized with
 * `alarmEmail=none`, as an operator who subscribes to the topic themselves would, unless `context`
 * says otherwise.
 */
export const synthStack = (
  stage: StageName = 'dev',
  context: Record<string, string> = {},
  routes?: readonly Route[],
) => {
  const key = JSON.stringify({ stage, context, routes: routes?.map((route) => `${route.method} ${route.resource}`) });
  const cached = cache.get(key);
  if (cached) return cached;
  const app = new App({
    context: { ...cdkJsonContext, stage, ...(stage === 'prod' && { alarmEmail: 'none' }), ...context },
  });
  const stack = new MagazineApiStack(app, `MagazineApi-${stage}`, {
    settings: stageSettingsFrom(app.node),
    functionCode: stubCode,
    ...(routes && { routes }),
  });
  const result = { stack, template: Template.fromStack(stack) };
  cache.set(key, result);
  return result;
};
