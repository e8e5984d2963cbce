import { describe, expect, it } from 'vitest';
import { managedRuleGroups } from '../../infra/firewall';
import { resourcesOf } from './api-document';
import { synthStack } from './stack';

const prod = synthStack('prod');

interface Rule {
  readonly Name: string;
  readonly Statement: {
    readonly ManagedRuleGroupStatement?: { VendorName: string; Name: string; RuleActionOverrides?: unknown[] };
    readonly RateBasedStatement?: { Limit: number; AggregateKeyType: string };
  };
  readonly Action?: {
    Block?: {
      CustomResponse?: {
        ResponseCode: number;
        CustomResponseBodyKey: string;
        ResponseHeaders?: { Name: string; Value: string }[];
      };
    };
  };
}

describe('the WAF web ACL of prod, by default', () => {
  const resources = resourcesOf(prod.template);
  const [aclId, acl] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::WAFv2::WebACL')!;
  const rules = acl.Properties.Rules as Rule[];

  it("runs AWS's common and known-bad-inputs rule groups, and a rate-based rule per IP", () => {
    expect(acl.Properties.Scope).toBe('REGIONAL');
    expect(rules.flatMap((r) => r.Statement.ManagedRuleGroupStatement?.Name ?? [])).toEqual([...managedRuleGroups]);
    const rate = rules.find((r) => r.Statement.RateBasedStatement);
    expect(rate?.Statement.RateBasedStatement).toEqual({ Limit: 2000, AggregateKeyType: 'IP' });
  });

  it('lets through what the API takes: bodies up to 1 MiB of any text, and clients that send no User-Agent (those rules only count)', () => {
    const counted = (group: string) =>
      rules.find((r) => r.Name === group)!.Statement.ManagedRuleGroupStatement?.RuleActionOverrides;
    const counting = (...names: string[]) => names.map((Name) => ({ Name, ActionToUse: { Count: {} } }));
    expect(counted('AWSManagedRulesCommonRuleSet')).toEqual(
      counting(
        'NoUserAgent_HEADER',
        'SizeRestrictions_BODY',
        'EC2MetaDataSSRF_BODY',
        'GenericLFI_BODY',
        'GenericRFI_BODY',
        'CrossSiteScripting_BODY',
      ),
    );
    expect(counted('AWSManagedRulesKnownBadInputsRuleSet')).toEqual(
      counting('JavaDeserializationRCE_BODY', 'Log4JRCE_BODY'),
    );
  });

  it("blocks with the API's error object", () => {
    const rate = rules.find((r) => r.Statement.RateBasedStatement)!;
    expect(rate.Action?.Block?.CustomResponse).toMatchObject({ ResponseCode: 403, CustomResponseBodyKey: 'blocked' });
    const headers = Object.fromEntries(
      (rate.Action?.Block?.CustomResponse?.ResponseHeaders ?? []).map(({ Name, Value }) => [Name, Value]),
    );
    expect(headers).toMatchObject({ 'Retry-After': '300', Vary: 'Accept', 'Access-Control-Allow-Origin': '*' });
    const body = (acl.Properties.CustomResponseBodies as Record<string, { ContentType: string; Content: unknown }>)
      .blocked!;
    expect(body.ContentType).toBe('APPLICATION_JSON');
    const text = JSON.stringify(body.Content);
    for (const field of ['developerMessage', 'userMessage', 'errorCode', 'moreInfo']) expect(text).toContain(field);
    expect(text).toContain('40303');
  });

  it('is associated with the stage', () => {
    const association = Object.values(resources).find((r) => r.Type === 'AWS::WAFv2::WebACLAssociation')!;
    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const stageId = Object.entries(resources).find(([, r]) => r.Type === 'AWS::ApiGateway::Stage')![0];
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(stageId);
  });
});

describe('the WAF elsewhere', () => {
  it('is off in dev by default, can be turned on there, and off in prod', () => {
    const has = (template: ReturnType<typeof synthStack>['template']) =>
      Object.values(resourcesOf(template)).some((r) => r.Type === 'AWS::WAFv2::WebACL');
    expect(has(synthStack('dev').template)).toBe(false);
    expect(has(synthStack('dev', { waf: 'true' }).template)).toBe(true);
    expect(has(synthStack('prod', { waf: 'false' }).template)).toBe(false);
  });
});
