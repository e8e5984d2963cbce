import { describe, expect, it } from 'vitest';
import { expandRoutes } from '../../shared/routes/table';
import { backgroundTasks } from '../../shared/routes/tasks';
import { resourcesOf } from './api-document';
import { synthStack } from './stack';

/** Long enough for the synthesis of several stacks on a busy two-core machine. */
const synthesis = { timeout: 180_000 };

/** The operator's context settings that decide who hears of an incident and what outlives the stack. */

describe('whom the alarms notify', () => {
  it("must be said in prod: an address, or none when the topic is the operator's to subscribe", synthesis, () => {
    // `cdk synth -c stage=prod` with no `alarmEmail` (an empty one is what `-c alarmEmail=` gives).
    expect(() => synthStack('prod', { alarmEmail: '' })).toThrow(
      /`alarmEmail` is required in prod: .*`-c alarmEmail=none` says the alarms' topic is yours to subscribe/,
    );
    synthStack('prod', { alarmEmail: 'none' }).template.resourceCountIs('AWS::SNS::Subscription', 0);
    synthStack('prod', { alarmEmail: 'ops@example.com' }).template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    // The testing server may go unwatched.
    synthStack('dev', { alarmEmail: '' }).template.resourceCountIs('AWS::SNS::Subscription', 0);
    expect(() => synthStack('prod', { alarmEmail: 'nobody' })).toThrow(/an email address or `none`/);
  });
});

describe('the log groups', () => {
  it("follow the stage: destroyed with a dev stack, kept after a prod stack, the functions' and the access log alike", () => {
    for (const [stage, policy] of [
      ['dev', 'Delete'],
      ['prod', 'Retain'],
    ] as const) {
      const groups = Object.entries(resourcesOf(synthStack(stage).template)).filter(
        ([, r]) => r.Type === 'AWS::Logs::LogGroup',
      );
      expect(groups.map(([id]) => id)).toContainEqual(expect.stringMatching(/^AccessLogs/));
      expect(groups.map(([id]) => id)).toContainEqual(expect.stringMatching(/^GetMagazineLogs/));
      for (const [id, group] of groups) {
        expect(group.DeletionPolicy, `${stage} ${id}`).toBe(policy);
        expect(group.UpdateReplacePolicy, `${stage} ${id}`).toBe(policy);
      }
    }
  });
});

describe("API Gateway's log role", () => {
  it('is set on the account by default, and left to the account with -c cloudWatchRole=false', synthesis, () => {
    for (const stage of ['dev', 'prod'] as const) {
      synthStack(stage).template.resourceCountIs('AWS::ApiGateway::Account', 1);
      const left = synthStack(stage, { cloudWatchRole: 'false' }).template;
      left.resourceCountIs('AWS::ApiGateway::Account', 0);
      expect(JSON.stringify(left.toJSON())).not.toContain('AmazonAPIGatewayPushToCloudWatchLogs');
    }
    expect(() => synthStack('dev', { cloudWatchRole: 'no' })).toThrow(/cloudWatchRole/);
  });
});

describe("the functions' log level", () => {
  const levelsOf = (template: ReturnType<typeof synthStack>['template']) =>
    Object.values(resourcesOf(template))
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => (r.Properties.Environment as { Variables: Record<string, unknown> }).Variables.LOG_LEVEL);

  it('is INFO on every function, as the code takes it unset, and what -c logLevel says', synthesis, () => {
    const functions = backgroundTasks.length + new Set(expandRoutes().map((route) => route.handler)).size;
    expect(levelsOf(synthStack('prod').template)).toEqual(Array(functions).fill('INFO'));
    expect(levelsOf(synthStack('dev', { logLevel: 'debug' }).template)).toEqual(Array(functions).fill('DEBUG'));
    expect(() => synthStack('dev', { logLevel: 'verbose' })).toThrow(/logLevel/);
  });
});
