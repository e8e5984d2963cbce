/**
 * `npm run logical-ids [-- --stage prod]`: the CloudFormation logical id of each function, for
 * `sam local invoke -t cdk.out/<stack>.template.json <LogicalId> -e <its sample event>`.
 * Synthesizes the stack in memory with stubbed code (no bundling), so it takes a few seconds.
 */
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { type CfnFunction, Code } from 'aws-cdk-lib/aws-lambda';
import { MagazineApiStack } from '../infra/magazine-api-stack';
import { stageSettingsFrom } from '../infra/stage-settings';
import { eventFileOf } from './make-events';
import { readCommandLine } from './support/cli';

const usage = `Usage: npm run logical-ids [-- --stage dev|prod]

Prints the CloudFormation logical id of every function of the stack (those API Gateway calls, the
janitor and the stream's folder), for \`sam local invoke -t cdk.out/<stack>.template.json <id>\`.
Synthesizes the stack in memory with stubbed code: nothing is written.

Options:
  --stage NAME, -c stage=NAME   the stage, as \`cdk synth -c stage=NAME\`     [dev]
  --help                        this text; runs nothing
`;

const { values } = readCommandLine({
  command: 'npm run logical-ids',
  usage,
  options: {
    stage: { type: 'string' },
    context: { type: 'string', short: 'c', multiple: true },
    help: { type: 'boolean', short: 'h' },
  },
});
const stageArgument =
  values.stage ??
  (values.context ?? []).map((entry) => /^stage=(\w+)$/.exec(entry)?.[1]).find((stage) => stage !== undefined);
// Only the functions' ids are read: whom the alarms notify (required in prod) changes none of them.
const app = new App({ context: { alarmEmail: 'none', ...(stageArgument && { stage: stageArgument }) } });
const settings = stageSettingsFrom(app.node);
const stackName = `MagazineApi-${settings.stage}`;
const stack = new MagazineApiStack(app, stackName, {
  settings,
  functionCode: () => Code.fromInline('export const handler = () => {};'),
});

// The routes' functions, then the janitor and the stream's folder.
const rows = [...stack.functions, ...stack.scheduledFunctions].map(
  ([handler, fn]) =>
    [handler, String(stack.resolve((fn.function.node.defaultChild as CfnFunction).logicalId))] as const,
);
const width = Math.max(...rows.map(([handler]) => handler.length));
process.stdout.write(
  `Stack ${stackName}: template cdk.out/${stackName}.template.json (after \`npx cdk synth${stageArgument ? ` -c stage=${settings.stage}` : ''}\`)\n\n`,
);
const eventOf = (handler: string) => path.relative(process.cwd(), eventFileOf(handler));
const idWidth = Math.max(...rows.map(([, logicalId]) => logicalId.length));
for (const [handler, logicalId] of rows)
  process.stdout.write(`${handler.padEnd(width)}  ${logicalId.padEnd(idWidth)}  -e ${eventOf(handler)}\n`);
process.stdout.write(
  `\nsam local invoke -t cdk.out/${stackName}.template.json ${rows[0]?.[1]} -e ${eventOf(rows[0]?.[0] ?? '')}\n`,
);
