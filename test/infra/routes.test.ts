import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { corsPreflight } from '../../shared/http/cors';
import { expandRoutes, methodNotAllowedHandler, notFoundHandler } from '../../shared/routes';
import { synthStack } from './stack';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

const { template } = synthStack('dev');
const resources = template.toJSON().Resources as Resources;
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** Rebuilds each API Gateway resource's full path from the `ParentId`/`PathPart` chain. */
const paths = new Map<string, string>();
const pathOf = (logicalId: string): string => {
  const known = paths.get(logicalId);
  if (known) return known;
  const resource = resources[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId}`);
  const parent = resource.Properties.ParentId as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
  const full = `${parentPath}/${String(resource.Properties.PathPart)}`;
  paths.set(logicalId, full);
  return full;
};

interface MethodProps {
  HttpMethod: string;
  AuthorizationType: string;
  ResourceId: { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  Integration: {
    Type: string;
    IntegrationHttpMethod?: string;
    Uri?: unknown;
    IntegrationResponses?: { ResponseParameters?: Record<string, string> }[];
  };
}

const methods = ofType('AWS::ApiGateway::Method').map(([, resource]) => {
  const properties = resource.Properties as unknown as MethodProps;
  const path = properties.ResourceId.Ref ? pathOf(properties.ResourceId.Ref) : '/';
  return { path, ...properties };
});

/** The function a proxy integration calls, by its logical id inside the integration URI. */
const targetOf = (integration: MethodProps['Integration']) => {
  const match = /"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/.exec(JSON.stringify(integration.Uri));
  return match?.[1];
};

describe('the REST API built from the route table', () => {
  const routes = expandRoutes();

  it('has every route of the table, with its method, reaching its handler through a Lambda proxy integration', () => {
    for (const route of routes) {
      const method = methods.find((m) => m.path === route.resource && m.HttpMethod === route.method);
      expect(method, `${route.method} ${route.resource}`).toBeDefined();
      expect(method?.Integration.Type).toBe('AWS_PROXY');
      expect(method?.Integration.IntegrationHttpMethod).toBe('POST');
      expect(targetOf(method!.Integration), `${route.method} ${route.resource}`).toBe(functionLogicalId(route.handler));
    }
  });

  it('gives HEAD its own method beside every GET', () => {
    const gets = methods.filter((m) => m.HttpMethod === 'GET');
    expect(gets.length).toBeGreaterThan(0);
    for (const get of gets)
      expect(
        methods.some((m) => m.path === get.path && m.HttpMethod === 'HEAD'),
        get.path,
      ).toBe(true);
  });

  it('sends other methods on a known path to the 405 function and unknown paths to the 404 function', () => {
    const served = new Set(routes.map((route) => route.resource));
    for (const method of methods.filter((m) => m.HttpMethod === 'ANY')) {
      const expected =
        method.path === '/{proxy+}' || !served.has(method.path) ? notFoundHandler : methodNotAllowedHandler;
      expect(targetOf(method.Integration), method.path).toBe(functionLogicalId(expected));
    }
    // Parent-only resources and the root are not paths of the API: 404, not API Gateway's 403.
    for (const path of ['/', '/v1', '/api', '/api/v1', '/articles']) {
      const any = methods.find((m) => m.path === path && m.HttpMethod === 'ANY');
      expect(any && targetOf(any.Integration), path).toBe(functionLogicalId(notFoundHandler));
    }
  });

  it('has no method the route table does not explain (besides CORS preflight and parent-only 404s)', () => {
    const explained = new Set(routes.map((route) => `${route.method} ${route.resource}`));
    const extra = methods.filter((m) => !explained.has(`${m.HttpMethod} ${m.path}`) && m.HttpMethod !== 'OPTIONS');
    expect(
      extra.every((m) => m.HttpMethod === 'ANY' && targetOf(m.Integration) === functionLogicalId(notFoundHandler)),
    ).toBe(true);
  });

  it('signs writes with IAM and leaves reads, preflight, 404 and 405 open', () => {
    for (const method of methods) {
      const write = ['POST', 'PUT', 'DELETE'].includes(method.HttpMethod);
      expect(method.AuthorizationType, `${method.HttpMethod} ${method.path}`).toBe(write ? 'AWS_IAM' : 'NONE');
    }
  });

  it('answers CORS preflight on every served path without calling a function', () => {
    for (const path of new Set(routes.map((route) => route.resource))) {
      const options = methods.find((m) => m.path === path && m.HttpMethod === 'OPTIONS');
      expect(options?.Integration.Type, path).toBe('MOCK');
    }
  });

  it('answers preflight with the shared CORS settings (shared/http/cors.ts), as the local server does', () => {
    const preflights = methods.filter((m) => m.HttpMethod === 'OPTIONS');
    expect(preflights.length).toBeGreaterThan(0);
    for (const preflight of preflights) {
      expect(preflight.Integration.IntegrationResponses?.[0]?.ResponseParameters, preflight.path).toMatchObject({
        'method.response.header.Access-Control-Allow-Origin': `'${corsPreflight.allowOrigin}'`,
        'method.response.header.Access-Control-Allow-Methods': `'${corsPreflight.allowMethods.join(',')}'`,
        'method.response.header.Access-Control-Allow-Headers': `'${corsPreflight.allowHeaders.join(',')}'`,
        'method.response.header.Access-Control-Max-Age': `'${corsPreflight.maxAgeSeconds}'`,
      });
    }
  });

  it('has one function per handler module, not one per route', () => {
    const handlers = new Set(routes.map((route) => route.handler));
    const functions = ofType('AWS::Lambda::Function')
      .map(([id]) => id)
      .sort();
    expect(functions).toEqual([...handlers].map(functionLogicalId).sort());
  });

  it('lets API Gateway invoke each function through one permission for the whole API', () => {
    const permissions = ofType('AWS::Lambda::Permission');
    expect(permissions).toHaveLength(new Set(routes.map((route) => route.handler)).size);
    for (const [, permission] of permissions) {
      expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
      expect(JSON.stringify(permission.Properties.SourceArn)).toMatch(/\/\*\/\*\/\*"\]\]\}$/);
    }
  });

  it('stays inside CloudFormation and API Gateway limits', () => {
    // 500 resources per stack, 300 resources per REST API (default quota), 1 MB template via S3.
    expect(Object.keys(resources).length).toBeLessThan(500);
    expect(ofType('AWS::ApiGateway::Resource').length).toBeLessThan(300);
    expect(JSON.stringify(template.toJSON()).length).toBeLessThan(1_000_000);
  });

  it('names each write method, and nothing else, in the publisher policy', () => {
    const writes = routes.filter((route) => ['POST', 'PUT', 'DELETE'].includes(route.method));
    const policies = ofType('AWS::IAM::ManagedPolicy');
    expect(policies).toHaveLength(1);
    const document = policies[0]![1].Properties.PolicyDocument as {
      Statement: { Action: string; Resource: unknown[] }[];
    };
    const statements = document.Statement;
    expect(statements.map((statement) => statement.Action)).toEqual(['execute-api:Invoke']);
    const arns = statements[0]!.Resource.map((resource) => JSON.stringify(resource));
    expect(arns).toHaveLength(writes.length);
    for (const route of writes) {
      const tail = `/${route.method}${route.resource.replace(/\{[^}]+\}/g, '*')}"`;
      expect(
        arns.some((arn) => arn.endsWith(`${tail}]]}`)),
        `${route.method} ${route.resource}`,
      ).toBe(true);
    }
    template.hasOutput('PublisherPolicyArn', { Value: { Ref: Match.anyValue() } });
  });

  it('outputs the API URL', () => {
    template.hasOutput('ApiUrl', { Value: Match.anyValue() });
  });
});
