import { errorCatalogue } from '../shared/http/error-catalogue';
import {
  type GatewayError,
  gatewayErrorHeaders,
  gatewayErrorObject,
  gatewayErrors,
} from '../shared/http/gateway-errors';

/** Header values in gateway responses are static strings, written in single quotes. */
export const quoted = (value: string) => `'${value}'`;

/**
 * `{base_url}` is the fixed base URL when one is configured, else the domain and stage the request
 * came in on (never the `Host` header).
 */
const requestBaseUrl = 'https://$context.domainName/$context.stage';

/** The body template: a JSON object with `$context` variables, and no other template syntax. */
export const errorTemplate = (error: GatewayError, baseUrl: string | undefined) =>
  JSON.stringify(gatewayErrorObject(error, baseUrl ?? requestBaseUrl));

/**
 * API Gateway's own answers (`x-amazon-apigateway-gateway-responses` of the REST API's document),
 * each with the status of its catalogue code, the API's error object, `Vary` and CORS headers.
 */
export const gatewayResponses = (baseUrl: string | undefined) =>
  Object.fromEntries(
    gatewayErrors.map((error) => [
      error.responseType,
      {
        statusCode: String(errorCatalogue[error.code].status),
        responseParameters: Object.fromEntries(
          Object.entries(gatewayErrorHeaders(error)).map(([name, value]) => [
            `gatewayresponse.header.${name}`,
            quoted(value),
          ]),
        ),
        responseTemplates: { 'application/json': errorTemplate(error, baseUrl) },
      },
    ]),
  );
