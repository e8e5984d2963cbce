import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { errorCatalogue } from '../shared/http/error-catalogue';
import {
  type GatewayError,
  gatewayErrorHeaders,
  gatewayErrorObject,
  gatewayErrors,
} from '../shared/http/gateway-errors';

/** Header values in gateway responses are static strings, written in single quotes. */
const quoted = (value: string) => `'${value}'`;

/**
 * `{base_url}` is the fixed base URL when one is configured, else the domain and stage the request
 * came in on (never the `Host` header).
 */
const requestBaseUrl = 'https://$context.domainName/$context.stage';

/** The body template: a JSON object with `$context` variables, and no other template syntax. */
export const errorTemplate = (error: GatewayError, baseUrl: string | undefined) =>
  JSON.stringify(gatewayErrorObject(error, baseUrl ?? requestBaseUrl));

export const addGatewayResponses = (api: RestApi, baseUrl: string | undefined) => {
  for (const error of gatewayErrors) {
    api.addGatewayResponse(`GatewayResponse${error.responseType}`, {
      type: ResponseType.of(error.responseType),
      statusCode: String(errorCatalogue[error.code].status),
      responseHeaders: Object.fromEntries(
        Object.entries(gatewayErrorHeaders(error)).map(([name, value]) => [name, quoted(value)]),
      ),
      templates: { 'application/json': errorTemplate(error, baseUrl) },
    });
  }
};
