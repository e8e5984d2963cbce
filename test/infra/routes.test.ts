import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { corsPreflight } from '../../shared/http/cors';
import { allowedMethods, expandRoutes, methodNotAllowedHandler, notFoundHandler } from '../../shared/routes/table';
import { backgroundTasks } from '../../shared/routes/tasks';
import { apiDocumentOf, integrationTarget, methodsOf, resourcesOf } from './api-document';
import { synthStack } from './stack';

const routes = expandRoutes();
const handlers = new Set(routes.map((route) => route.handler));

describe.each(['dev', 'prod'] as const)('the REST API built from the route table (%s)', (stage) => {
  const { template } = synthStack(stage);
  const resources = resourcesOf(template);
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
  const document = apiDocumentOf(template);
  const methods = methodsOf(document);
  const targetOf = (method: (typeof methods)[number]) => {
    const target = integrationTarget(resources, method.integration);
    // In prod API Gateway calls each function's alias `live`, which CodeDeploy moves; in dev the function itself.
    expect(target.alias, `${method.httpMethod} ${method.path}`).toBe(stage === 'prod' ? 'live' : undefined);
    return target.function;
  };

  it('is one REST API defined by its document, with no resource or method of its own to grow with the routes', () => {
    expect(ofType('AWS::ApiGateway::RestApi')).toHaveLength(1);
    expect(ofType('AWS::ApiGateway::Resource')).toEqual([]);
    expect(ofType('AWS::ApiGateway::Method')).toEqual([]);
    expect(ofType('AWS::ApiGateway::GatewayResponse')).toEqual([]);
    // The document replaces the API whole: a route dropped from the table is dropped from API Gateway.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Mode: 'overwrite', Name: `magazine-api-${stage}` });
  });

  it('has every route of the table, with its method, reaching its handler through a Lambda proxy integration', () => {
    for (const route of routes) {
      const method = methods.find((m) => m.path === route.resource && m.httpMethod === route.method);
      expect(method, `${route.method} ${route.resource}`).toBeDefined();
      expect(method?.integration.type).toBe('aws_proxy');
      expect(method?.integration.httpMethod).toBe('POST');
      expect(targetOf(method!), `${route.method} ${route.resource}`).toBe(functionLogicalId(route.handler));
    }
  });

  it('gives HEAD its own method beside every GET', () => {
    const gets = methods.filter((m) => m.httpMethod === 'GET');
    expect(gets.length).toBeGreaterThan(0);
    for (const get of gets)
      expect(
        methods.some((m) => m.path === get.path && m.httpMethod === 'HEAD'),
        get.path,
      ).toBe(true);
  });

  it('sends other methods on a known path to the 405 function and unknown paths to the 404 function', () => {
    const served = new Set(routes.map((route) => route.resource));
    for (const method of methods.filter((m) => m.httpMethod === 'ANY')) {
      const expected =
        method.path === '/{proxy+}' || !served.has(method.path) ? notFoundHandler : methodNotAllowedHandler;
      expect(targetOf(method), method.path).toBe(functionLogicalId(expected));
    }
    // Parent-only paths and the root are not paths of the API: 404, not API Gateway's 403.
    for (const path of ['/', '/v1', '/api', '/api/v1', '/articles']) {
      const any = methods.find((m) => m.path === path && m.httpMethod === 'ANY');
      expect(any && targetOf(any), path).toBe(functionLogicalId(notFoundHandler));
    }
  });

  it('leaves no path API Gateway would create without a method (its own 403 for a path of the API)', () => {
    const paths = new Set(Object.keys(document.paths));
    for (const path of paths) {
      const segments = path.split('/').filter(Boolean);
      for (let length = 0; length < segments.length; length++) {
        const parent = `/${segments.slice(0, length).join('/')}`;
        expect(paths.has(parent), `${parent} (parent of ${path})`).toBe(true);
      }
    }
  });

  it('has no method the route table does not explain (besides CORS preflight and parent-only 404s)', () => {
    const explained = new Set(routes.map((route) => `${route.method} ${route.resource}`));
    const extra = methods.filter((m) => !explained.has(`${m.httpMethod} ${m.path}`) && m.httpMethod !== 'OPTIONS');
    expect(extra.length).toBeGreaterThan(0);
    for (const method of extra) {
      expect(method.httpMethod, method.path).toBe('ANY');
      expect(targetOf(method), method.path).toBe(functionLogicalId(notFoundHandler));
    }
  });

  it('signs writes with IAM (SigV4) and leaves reads, preflight, 404 and 405 open', () => {
    expect(document.components.securitySchemes.sigv4).toEqual({
      type: 'apiKey',
      name: 'Authorization',
      in: 'header',
      'x-amazon-apigateway-authtype': 'awsSigv4',
    });
    const writes = methods.filter((m) => ['POST', 'PUT', 'DELETE'].includes(m.httpMethod));
    expect(writes.length).toBe(routes.filter((route) => ['POST', 'PUT', 'DELETE'].includes(route.method)).length);
    for (const method of methods) {
      const write = ['POST', 'PUT', 'DELETE'].includes(method.httpMethod);
      expect(method.authorization, `${method.httpMethod} ${method.path}`).toBe(write ? 'AWS_IAM' : 'NONE');
    }
  });

  it('answers CORS preflight on every served path without calling a function, so a 405 lists OPTIONS in Allow', () => {
    for (const path of new Set(routes.map((route) => route.resource).filter((path) => path !== '/{proxy+}'))) {
      const options = methods.find((m) => m.path === path && m.httpMethod === 'OPTIONS');
      expect(options?.integration.type, path).toBe('mock');
      expect(allowedMethods(path), path).toContain('OPTIONS');
    }
  });

  it('answers preflight with the shared CORS settings (shared/http/cors.ts), as the local server does', () => {
    const preflights = methods.filter((m) => m.httpMethod === 'OPTIONS');
    expect(preflights.length).toBeGreaterThan(0);
    for (const preflight of preflights) {
      expect(preflight.integration.requestTemplates?.['application/json'], preflight.path).toMatch(/"statusCode": 200/);
      const response = preflight.integration.responses?.default;
      expect(response?.statusCode, preflight.path).toBe('204');
      expect(response?.responseParameters, preflight.path).toEqual({
        'method.response.header.Access-Control-Allow-Origin': `'${corsPreflight.allowOrigin}'`,
        'method.response.header.Access-Control-Allow-Methods': `'${corsPreflight.allowMethods.join(',')}'`,
        'method.response.header.Access-Control-Allow-Headers': `'${corsPreflight.allowHeaders.join(',')}'`,
        'method.response.header.Access-Control-Max-Age': `'${corsPreflight.maxAgeSeconds}'`,
      });
    }
  });

  it('names each operation once, on its unprefixed and unlabelled route', () => {
    const ids = methods.flatMap((m) => (m.operationId ? [m.operationId] : []));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(
      [...new Set(routes.flatMap((route) => (route.operation ? [route.operation.id] : [])))].sort(),
    );
  });

  it('has one function per handler module, not one per route (and one per scheduled task)', () => {
    const functions = ofType('AWS::Lambda::Function')
      .map(([id]) => id)
      .sort();
    expect(functions).toEqual(
      [...handlers, ...backgroundTasks.map((task) => task.handler)].map(functionLogicalId).sort(),
    );
  });

  it('lets API Gateway invoke each function (in prod its alias) through one permission scoped to this API', () => {
    const permissions = ofType('AWS::Lambda::Permission').filter(
      ([, permission]) => permission.Properties.Principal !== 'events.amazonaws.com',
    );
    expect(permissions).toHaveLength(handlers.size);
    const apiId = ofType('AWS::ApiGateway::RestApi')[0]![0];
    const invoked = new Set<string>();
    for (const [, permission] of permissions) {
      expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
      expect(permission.Properties.Action).toBe('lambda:InvokeFunction');
      const sourceArn = JSON.stringify(permission.Properties.SourceArn);
      expect(sourceArn).toContain(`{"Ref":"${apiId}"},"/*/*/*"]]}`);
      expect(sourceArn).toContain(':execute-api:');
      const target = permission.Properties.FunctionName as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
      if (stage === 'prod') {
        const alias = resources[target.Ref!]!;
        expect(alias.Type).toBe('AWS::Lambda::Alias');
        invoked.add((alias.Properties.FunctionName as { Ref: string }).Ref);
      } else invoked.add(target['Fn::GetAtt']![0]);
    }
    expect([...invoked].sort()).toEqual([...handlers].map(functionLogicalId).sort());
  });

  it('stays inside CloudFormation and API Gateway limits, far from them', () => {
    // 500 resources per stack (kept to half), 300 resources per REST API (default quota), 1 MB template via S3.
    expect(Object.keys(resources).length).toBeLessThanOrEqual(250);
    const apiResources = new Set(Object.keys(document.paths));
    expect(apiResources.size).toBeLessThan(300);
    expect(JSON.stringify(template.toJSON()).length).toBeLessThan(1_000_000);
  });

  it('names each write method, and nothing else, in the publisher policy', () => {
    const writes = routes.filter((route) => ['POST', 'PUT', 'DELETE'].includes(route.method));
    const policies = ofType('AWS::IAM::ManagedPolicy');
    expect(policies).toHaveLength(1);
    const policy = policies[0]![1].Properties.PolicyDocument as {
      Statement: { Action: string; Resource: unknown[] }[];
    };
    const statements = policy.Statement;
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
