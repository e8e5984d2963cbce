import { describe, expect, it } from 'vitest';
import { functionLogicalId } from '../../infra/api-function';
import { corsResponseHeaders } from '../../shared/http/cors';
import { errorCatalogue } from '../../shared/http/error-catalogue';
import { gatewayErrors } from '../../shared/http/gateway-errors';
import { apiDocumentOf, resourcesOf } from './api-document';
import { synthStack } from './stack';

/** API Gateway's own errors, as the stack configures them: each the API's error object, with its code and page. */
const dev = synthStack('dev');

/** The gateway responses of the REST API's document, in the shape of the resources CloudFormation would hold. */
const gatewayResponsesOf = (template: typeof dev.template) =>
  Object.entries(apiDocumentOf(template)['x-amazon-apigateway-gateway-responses']).map(([type, response]) => ({
    Properties: {
      ResponseType: type,
      StatusCode: response.statusCode,
      ResponseParameters: response.responseParameters,
      ResponseTemplates: response.responseTemplates,
    } as Record<string, unknown>,
  }));

describe('gateway responses', () => {
  const responses = gatewayResponsesOf(dev.template);

  it("cover API Gateway's own errors with the status of their catalogue code", () => {
    const expected: Record<string, string> = {
      DEFAULT_4XX: '40012',
      DEFAULT_5XX: '50201',
      MISSING_AUTHENTICATION_TOKEN: '40301',
      ACCESS_DENIED: '40301',
      INVALID_SIGNATURE: '40301',
      EXPIRED_TOKEN: '40301',
      THROTTLED: '42901',
      REQUEST_TOO_LARGE: '41301',
      INTEGRATION_TIMEOUT: '50401',
      INTEGRATION_FAILURE: '50201',
      RESOURCE_NOT_FOUND: '40401',
      // Its refusal of a request body's coding: the stack has no mapping template or validator to refuse a media type.
      UNSUPPORTED_MEDIA_TYPE: '41502',
      BAD_REQUEST_BODY: '40001',
    };
    for (const [type, code] of Object.entries(expected)) {
      const response = responses.find((r) => r.Properties.ResponseType === type);
      expect(response, type).toBeDefined();
      expect(response!.Properties.StatusCode).toBe(String(errorCatalogue[code as keyof typeof errorCatalogue].status));
      const body = JSON.parse(
        (response!.Properties.ResponseTemplates as Record<string, string>)['application/json']!,
      ) as Record<string, string>;
      expect(body.errorCode, type).toBe(code);
    }
    expect(responses).toHaveLength(gatewayErrors.length);
  });

  it('say on the 415 of a coding which codings a request body may have', () => {
    const response = responses.find((r) => r.Properties.ResponseType === 'UNSUPPORTED_MEDIA_TYPE');
    expect(response!.Properties.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Accept-Encoding': "'gzip, deflate, identity'",
    });
  });

  it("render the API's error object, with moreInfo from the request's domain and stage", () => {
    for (const response of responses) {
      const templates = response.Properties.ResponseTemplates as Record<string, string>;
      const body = JSON.parse(templates['application/json']!) as Record<string, string>;
      expect(Object.keys(body).sort()).toEqual(['developerMessage', 'errorCode', 'moreInfo', 'userMessage']);
      expect(body.errorCode!.startsWith(String(response.Properties.StatusCode))).toBe(true);
      expect(body.moreInfo).toBe(
        `https://$context.domainName/$context.stage/v1/documentation/errors/${body.errorCode}.html`,
      );
      expect(body.userMessage).toBe(errorCatalogue[body.errorCode as keyof typeof errorCatalogue].userMessage);
      // The template is VTL: nothing but `$context` variables may look like template syntax.
      expect(templates['application/json']!.replace(/\$context\.[A-Za-z.]+/g, '')).not.toMatch(/[$#]/);
    }
  });

  it('carry Content-Type, Vary: Accept and CORS headers', () => {
    for (const response of responses) {
      expect(response.Properties.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'",
        'gatewayresponse.header.Vary': "'Accept'",
        'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
        // Retry-After (THROTTLED) and the rest are readable cross-origin, as on the functions' answers.
        'gatewayresponse.header.Access-Control-Expose-Headers': `'${corsResponseHeaders['Access-Control-Expose-Headers']}'`,
      });
    }
  });

  it('use a configured base URL for moreInfo', () => {
    const custom = synthStack('prod', { baseUrl: 'https://api.example.com/' });
    const response = gatewayResponsesOf(custom.template).find((r) => r.Properties.ResponseType === 'THROTTLED')!;
    const body = JSON.parse(
      (response.Properties.ResponseTemplates as Record<string, string>)['application/json']!,
    ) as Record<string, string>;
    expect(body.moreInfo).toBe('https://api.example.com/v1/documentation/errors/42901.html');
    const fn = resourcesOf(custom.template)[functionLogicalId('get-magazine')]!;
    expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.BASE_URL).toBe(
      'https://api.example.com',
    );
  });
});
