import { type ErrorCode, errorCatalogue, type FunctionErrorCode, functionErrors } from './error-catalogue';

/** An error a client can act on: it carries its catalogue code and a specific message. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly userMessage: string;

  constructor(
    readonly code: FunctionErrorCode,
    developerMessage?: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(developerMessage ?? functionErrors[code].developerMessage);
    this.status = functionErrors[code].status;
    this.userMessage = functionErrors[code].userMessage;
  }
}

/** `{base_url}/v1/documentation/errors/{code}.html`: the page of a code. */
const errorPageUrl = (baseUrl: string, code: ErrorCode) => `${baseUrl}/v1/documentation/errors/${code}.html`;

const shaped = (errorCode: ErrorCode, developerMessage: string, userMessage: string, baseUrl: string) => ({
  developerMessage,
  userMessage,
  errorCode,
  moreInfo: errorPageUrl(baseUrl, errorCode),
});

/**
 * The error object every error response carries, built here only: by API Gateway's own responses
 * (with `$context` variables in `baseUrl`), and for the examples of the documentation.
 */
export const errorObject = (code: ErrorCode, developerMessage: string | undefined, baseUrl: string) =>
  shaped(code, developerMessage ?? errorCatalogue[code].developerMessage, errorCatalogue[code].userMessage, baseUrl);

/** The error object of an error a function answers with (its renderer's). */
export const apiErrorObject = (error: ApiError, baseUrl: string) =>
  shaped(error.code, error.message, error.userMessage, baseUrl);

export const invalidField = (message: string) => new ApiError('40001', message);
export const unknownField = (message: string) => new ApiError('40002', message);
export const malformedJson = (message: string) => new ApiError('40003', message);
export const invalidParameter = (message: string) => new ApiError('40004', message);
export const missingBody = () => new ApiError('40011');
export const methodNotAllowed = (method: string, allow: readonly string[]) =>
  new ApiError('40501', `${method} is not supported on this resource. Supported methods: ${allow.join(', ')}.`, {
    Allow: allow.join(', '),
  });
export const notAcceptable = (message: string) => new ApiError('40601', message);
