import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { gatewayErrorObject, gatewayErrorOf } from '../shared/http/gateway-errors';

export interface FirewallProps {
  readonly stage: string;
  /** The stage's ARN, to which the web ACL is attached. */
  readonly stageArn: string;
  /** `{base_url}` of the error object's `moreInfo`: a WAF response body is fixed text, written at synthesis. */
  readonly baseUrl: string;
  /** Requests one IP address may send in five minutes. */
  readonly rateLimit: number;
}

/** AWS's managed rule groups the web ACL runs, in order. */
export const managedRuleGroups = ['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet'] as const;

/**
 * The body the rule group's `SizeRestrictions_BODY` blocks above (8 KB) is far below what the API
 * accepts (1 MiB: a PUT /magazines, an article's text), so that rule only counts; the API refuses
 * a larger body itself (413).
 */
const countedRules: Partial<Record<(typeof managedRuleGroups)[number], string[]>> = {
  AWSManagedRulesCommonRuleSet: ['SizeRestrictions_BODY'],
};

/**
 * A WAF web ACL in front of the stage: AWS's common and known-bad-inputs rule groups, and a
 * rate-based rule per client IP that blocks an address sending more than its share before any
 * function runs. A blocked request answers with the API's error object (`40303`): the rate rule
 * by its own response, the managed groups through API Gateway's WAF_FILTERED gateway response.
 */
export class Firewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: FirewallProps) {
    super(scope, id);
    const error = gatewayErrorOf('WAF_FILTERED');
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `magazine-api-${props.stage}-${metricName}`,
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `magazine-api-${props.stage}`,
      // WAF takes no parentheses in a description.
      description: `Abuse protection in front of the Magazine API, stage ${props.stage}`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('web-acl'),
      customResponseBodies: {
        blocked: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(gatewayErrorObject(error, props.baseUrl)),
        },
      },
      rules: [
        ...managedRuleGroups.map((name, priority) => ({
          name,
          priority,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name,
              ruleActionOverrides: countedRules[name]?.map((rule) => ({ name: rule, actionToUse: { count: {} } })),
            },
          },
          visibilityConfig: visibility(name),
        })),
        {
          name: 'RatePerIp',
          priority: managedRuleGroups.length,
          action: {
            block: {
              customResponse: {
                responseCode: 403,
                customResponseBodyKey: 'blocked',
                // The rate is counted over five minutes.
                responseHeaders: [
                  { name: 'Retry-After', value: '300' },
                  { name: 'Vary', value: 'Accept' },
                ],
              },
            },
          },
          statement: { rateBasedStatement: { limit: props.rateLimit, aggregateKeyType: 'IP' } },
          visibilityConfig: visibility('rate-per-ip'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
