import type { Template } from 'aws-cdk-lib/assertions';

export type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string }
>;

export const resourcesOf = (template: Template) => template.toJSON().Resources as Resources;

/** The stage's access log line, as its format names each field. */
export const accessLogFormat = (template: Template): Record<string, string> => {
  const stage = Object.values(resourcesOf(template)).find((r) => r.Type === 'AWS::ApiGateway::Stage');
  if (!stage) throw new Error('The template has no stage.');
  return JSON.parse((stage.Properties.AccessLogSetting as { Format: string }).Format) as Record<string, string>;
};

interface Integration {
  readonly type: string;
  readonly httpMethod?: string;
  readonly uri?: unknown;
  readonly requestTemplates?: Record<string, string>;
  readonly responses?: Record<string, { statusCode: string; responseParameters?: Record<string, string> }>;
}

interface DocumentMethod {
  readonly security?: Record<string, string[]>[];
  readonly operationId?: string;
  readonly responses: Record<string, unknown>;
  readonly 'x-amazon-apigateway-integration': Integration;
}

export interface ApiDocument {
  readonly paths: Record<string, Record<string, DocumentMethod>>;
  readonly components: { securitySchemes: Record<string, Record<string, string>> };
  readonly 'x-amazon-apigateway-gateway-responses': Record<
    string,
    { statusCode: string; responseParameters: Record<string, string>; responseTemplates: Record<string, string> }
  >;
}

/** The REST API's OpenAPI document, as API Gateway imports it from the template. */
export const apiDocumentOf = (template: Template): ApiDocument => {
  const apis = Object.values(resourcesOf(template)).filter((r) => r.Type === 'AWS::ApiGateway::RestApi');
  if (apis.length !== 1) throw new Error(`expected one REST API, found ${apis.length}`);
  return apis[0]!.Properties.Body as ApiDocument;
};

/** One method as API Gateway builds it from the document: its path, HTTP method, authorisation and integration. */
export interface ApiMethod {
  readonly path: string;
  readonly httpMethod: string;
  /** `AWS_IAM` where the method requires the SigV4 scheme, else `NONE` (API Gateway's names). */
  readonly authorization: 'AWS_IAM' | 'NONE';
  readonly operationId: string | undefined;
  readonly integration: Integration;
}

export const methodsOf = (document: ApiDocument): ApiMethod[] => {
  const sigV4 = Object.entries(document.components.securitySchemes)
    .filter(([, scheme]) => scheme['x-amazon-apigateway-authtype'] === 'awsSigv4')
    .map(([name]) => name);
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([key, method]) => ({
      path,
      httpMethod: key === 'x-amazon-apigateway-any-method' ? 'ANY' : key.toUpperCase(),
      authorization: method.security?.some((requirement) => sigV4.some((name) => name in requirement))
        ? 'AWS_IAM'
        : 'NONE',
      operationId: method.operationId,
      integration: method['x-amazon-apigateway-integration'],
    })),
  );
};

/**
 * The function a proxy integration reaches, by its logical id: the function named in the URI, or
 * the function behind the alias named there (with the alias's name).
 */
export const integrationTarget = (
  resources: Resources,
  integration: Integration,
): { function: string | undefined; alias: string | undefined } => {
  const uri = JSON.stringify(integration.uri);
  const direct = /"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/.exec(uri)?.[1];
  if (direct) return { function: direct, alias: undefined };
  const aliasId = /"Ref":"([A-Za-z0-9]+)"/.exec(uri.replace(/"Ref":"AWS::[A-Za-z]+"/g, ''))?.[1];
  const alias = aliasId ? resources[aliasId] : undefined;
  if (alias?.Type !== 'AWS::Lambda::Alias') return { function: undefined, alias: undefined };
  return {
    function: (alias.Properties.FunctionName as { Ref?: string }).Ref,
    alias: alias.Properties.Name as string,
  };
};
