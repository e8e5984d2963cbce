import { errorCatalogue, type ErrorCode } from './error-catalogue';

/** An error a client can act on: it carries its catalogue code and a specific message. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, developerMessage?: string, headers: Record<string, string> = {}) {
    super(developerMessage ?? errorCatalogue[code].developerMessage);
    this.name = 'ApiError';
    this.code = code;
    this.status = errorCatalogue[code].status;
    this.headers = headers;
  }
}

export const invalidField = (message: string) => new ApiError('40001', message);
export const unknownField = (message: string) => new ApiError('40002', message);
export const malformedJson = (message: string) => new ApiError('40003', message);
export const invalidParameter = (message: string) => new ApiError('40004', message);
export const missingBody = () => new ApiError('40011');
export const magazineNotFound = (id: string) => new ApiError('40402', `No magazine has the id \`${id}\`.`);
export const articleNotFound = (id: string) => new ApiError('40403', `No article has the id \`${id}\`.`);
export const tagNotFound = (id: string) => new ApiError('40404', `No magazine carries a tag with the id \`${id}\`.`);
export const magazineExists = (id: string) =>
  new ApiError(
    '40502',
    `A magazine with the id \`${id}\` exists already; nothing was created. Replace it with PUT /magazines/${id}, or send another id.`,
  );
export const methodNotAllowed = (method: string, allow: readonly string[]) =>
  new ApiError('40501', `${method} is not supported on this resource. Supported methods: ${allow.join(', ')}.`, {
    Allow: allow.join(', '),
  });
export const notAcceptable = (message: string) => new ApiError('40601', message);
export const preconditionFailed = () => new ApiError('41201');
export const concurrentChange = () => new ApiError('40901');
export const storeBusy = () => new ApiError('50301', undefined, { 'Retry-After': '1' });
