import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { corsResponseHeaders } from '../shared/http/cors';
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
 * Rules of the managed groups that only count, because they would refuse requests the API takes.
 * Its bodies are data: stored, and written back as escaped JSON or XML, never run, rendered or
 * fetched from. An article's text may be any Unicode text (about web security, say, quoting
 * `<script>`, `../../etc/passwd`, `http://169.254.169.254/` or `${jndi:`), so the rules that look
 * for attacks in a body would refuse articles a client may send, in prod only; and
 * `SizeRestrictions_BODY` blocks above 8 KB, far below the 1 MiB the API accepts (it refuses
 * larger bodies itself: 413). `NoUserAgent_HEADER` would refuse a client the local server and the
 * other stages take, for a header no part of the API needs. Counted, they still show in the
 * web ACL's metrics and sampled requests. The paths and query values the API takes are ids,
 * numbers and names of a few characters, so the groups' rules on those still block.
 */
const countedRules: Record<(typeof managedRuleGroups)[number], readonly string[]> = {
  AWSManagedRulesCommonRuleSet: [
    'NoUserAgent_HEADER',
    'SizeRestrictions_BODY',
    'EC2MetaDataSSRF_BODY',
    'GenericLFI_BODY',
    'GenericRFI_BODY',
    'CrossSiteScripting_BODY',
  ],
  AWSManagedRulesKnownBadInputsRuleSet: ['JavaDeserializationRCE_BODY', 'Log4JRCE_BODY'],
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
              ruleActionOverrides: countedRules[name].map((rule) => ({ name: rule, actionToUse: { count: {} } })),
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
                // Retry-After: the rate is counted over five minutes. The CORS headers are every
                // response's (the managed groups' blocks get them from WAF_FILTERED).
                responseHeaders: [
                  { name: 'Retry-After', value: '300' },
                  { name: 'Vary', value: 'Accept' },
                  ...Object.entries(corsResponseHeaders).map(([name, value]) => ({ name, value })),
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
