import { describe, expect, it } from 'vitest';
import { isDocumentationRoute } from '../../infra/rest-api-definition';
import { usagePlans } from '../../infra/usage-plans';
import { expandRoutes } from '../../shared/routes/table';
import { apiDocumentOf, resourcesOf } from './api-document';
import { synthStack } from './stack';

const prod = synthStack('prod');
const dev = synthStack('dev');

/** Every method of the REST API's document with the security it asks for. */
const methodsOf = (template: typeof prod.template) =>
  Object.entries(apiDocumentOf(template).paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      path,
      method,
      schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
    })),
  );

const documentationPaths = new Set(
  expandRoutes()
    .filter(isDocumentationRoute)
    .map((route) => route.resource),
);

describe('usage plans and API keys in prod, by default', () => {
  const resources = Object.values(resourcesOf(prod.template));

  it('has a usage plan per row of the plans table, each on the stage with its throttle and daily quota', () => {
    const plans = resources.filter((r) => r.Type === 'AWS::ApiGateway::UsagePlan');
    expect(plans.length).toBeGreaterThanOrEqual(2);
    expect(plans).toHaveLength(Object.keys(usagePlans).length);
    for (const plan of Object.values(usagePlans)) {
      expect(plans.map((p) => p.Properties)).toContainEqual(
        expect.objectContaining({
          Throttle: { RateLimit: plan.rate, BurstLimit: plan.burst },
          Quota: { Limit: plan.dailyQuota, Period: 'DAY' },
          ApiStages: [expect.objectContaining({ Stage: expect.anything() })],
        }),
      );
    }
  });

  it('requires x-api-key on every route but the documentation pages, /openapi.json and CORS preflight', () => {
    const document = apiDocumentOf(prod.template) as unknown as Record<string, unknown> & {
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document['x-amazon-apigateway-api-key-source']).toBe('HEADER');
    expect(document.components.securitySchemes.api_key).toEqual({ type: 'apiKey', name: 'x-api-key', in: 'header' });
    for (const { path, method, schemes } of methodsOf(prod.template)) {
      const open = method === 'options' || documentationPaths.has(path);
      expect(schemes.includes('api_key'), `${method} ${path}`).toBe(!open);
    }
    const open = methodsOf(prod.template).filter((m) => m.method === 'get' && !m.schemes.includes('api_key'));
    expect(open.map((m) => m.path)).toEqual(expect.arrayContaining(['/openapi.json', '/v1/documentation']));
    expect(open.map((m) => m.path)).not.toContain('/magazines');
  });

  it('still signs writes with SigV4 as well', () => {
    for (const { path, method, schemes } of methodsOf(prod.template).filter((m) =>
      ['post', 'put', 'delete'].includes(m.method),
    ))
      expect(schemes.sort(), `${method} ${path}`).toEqual(['api_key', 'sigv4']);
  });
});

describe('keys in dev', () => {
  it('are off by default: no plan, no key required', () => {
    expect(resourcesOf(dev.template)).not.toContainEqual(
      expect.objectContaining({ Type: 'AWS::ApiGateway::UsagePlan' }),
    );
    expect(methodsOf(dev.template).filter((m) => m.schemes.includes('api_key'))).toEqual([]);
  });

  it('can be turned on, with the clients named by the apiKeys setting in their plans', () => {
    const { template } = synthStack('dev', { keys: 'true', apiKeys: 'acme:partner,alice:free,bob:none' });
    const resources = Object.values(resourcesOf(template));
    const keys = resources.filter((r) => r.Type === 'AWS::ApiGateway::ApiKey');
    expect(keys.map((k) => k.Properties.Name).sort()).toEqual([
      'magazine-api-dev-acme',
      'magazine-api-dev-alice',
      'magazine-api-dev-bob',
    ]);
    for (const key of keys) expect(key.Properties.Value, 'API Gateway makes the value').toBeUndefined();
    expect(resources.filter((r) => r.Type === 'AWS::ApiGateway::UsagePlanKey')).toHaveLength(2);
    expect(methodsOf(template).some((m) => m.schemes.includes('api_key'))).toBe(true);
  });

  it('refuses keys for an unknown plan, and keys while keys are off', () => {
    expect(() => synthStack('dev', { keys: 'true', apiKeys: 'acme:gold' })).toThrow(/free, partner, or none/);
    expect(() => synthStack('dev', { apiKeys: 'acme:free' })).toThrow(/keys=true/);
  });
});

describe("API Gateway's refusals of keys, plans and the firewall", () => {
  const responses = apiDocumentOf(prod.template)['x-amazon-apigateway-gateway-responses'];
  const cases = [
    { type: 'INVALID_API_KEY', status: '403', code: '40302', retryAfter: undefined },
    { type: 'WAF_FILTERED', status: '403', code: '40303', retryAfter: undefined },
    { type: 'THROTTLED', status: '429', code: '42901', retryAfter: "'1'" },
    { type: 'QUOTA_EXCEEDED', status: '429', code: '42902', retryAfter: "'3600'" },
  ];

  it.each(cases)('answer $type with $status and the error object $code', ({ type, status, code, retryAfter }) => {
    const response = responses[type]!;
    expect(response.statusCode).toBe(status);
    const body = JSON.parse(response.responseTemplates['application/json']!) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['developerMessage', 'errorCode', 'moreInfo', 'userMessage']);
    expect(body.errorCode).toBe(code);
    expect(body.moreInfo).toBe(`https://$context.domainName/$context.stage/v1/documentation/errors/${code}.html`);
    expect(response.responseParameters['gatewayresponse.header.Retry-After']).toBe(retryAfter);
  });

  it('are documented in openapi.json, with Retry-After on 429, on the operations they can meet', async () => {
    const { openApiDocument } = await import('../../shared/openapi/document');
    interface Response {
      readonly 'x-error-codes'?: string[];
      readonly headers?: Record<string, unknown>;
    }
    const document = openApiDocument() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { $ref: string }> }>>;
      components: { responses: Record<string, Response> };
    };
    const component = (path: string, status: string) =>
      document.components.responses[document.paths[path]!.get!.responses[status]!.$ref.split('/').pop()!]!;
    expect(component('/magazines', '403')['x-error-codes']).toEqual(expect.arrayContaining(['40302', '40303']));
    expect(component('/magazines', '429')['x-error-codes']).toEqual(['42901', '42902']);
    expect(Object.keys(component('/magazines', '429').headers ?? {})).toContain('Retry-After');
    expect(component('/openapi.json', '403')['x-error-codes']).toEqual(['40303']);
    expect(component('/openapi.json', '429')['x-error-codes']).toEqual(['42901']);
  });
});
