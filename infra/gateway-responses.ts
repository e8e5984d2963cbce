import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { errorCatalogue, type ErrorCode } from '../shared/http/error-catalogue';
import { gatewayErrors, type GatewayError } from '../shared/http/gateway-errors';

/** Header values in gateway responses are static strings, written in single quotes. */
const quoted = (value: string) => `'${value}'`;

/**
 * `{base_url}` is the fixed base URL when one is configured, else the domain and stage the request
 * came in on (never the `Host` header).
 */
export const moreInfoUrl = (code: ErrorCode, baseUrl: string | undefined) =>
  `${baseUrl ?? 'https://$context.domainName/$context.stage'}/v1/documentation/errors/${code}.html`;

/** The body template: a JSON object with `$context` variables, and no other template syntax. */
export const errorTemplate = (error: GatewayError, baseUrl: string | undefined) =>
  JSON.stringify({
    developerMessage: error.developerMessage ?? errorCatalogue[error.code].developerMessage,
    userMessage: errorCatalogue[error.code].userMessage,
    errorCode: error.code,
    moreInfo: moreInfoUrl(error.code, baseUrl),
  });

export const addGatewayResponses = (api: RestApi, baseUrl: string | undefined) => {
  for (const error of gatewayErrors) {
    api.addGatewayResponse(`GatewayResponse${error.responseType}`, {
      type: ResponseType.of(error.responseType),
      statusCode: String(errorCatalogue[error.code].status),
      responseHeaders: Object.fromEntries(
        Object.entries({
          'Content-Type': 'application/json; charset=utf-8',
          Vary: 'Accept',
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Expose-Headers': 'Retry-After',
          ...error.headers,
        }).map(([name, value]) => [name, quoted(value)]),
      ),
      templates: { 'application/json': errorTemplate(error, baseUrl) },
    });
  }
};
