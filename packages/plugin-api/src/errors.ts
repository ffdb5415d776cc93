/**
 * The catalogue of API errors. Every failure a client can cause is one of these; the HTTP layer renders them as
 * RFC 9457 problem+json. Plugins throw them from custom route handlers and reconcilers too.
 *
 * Errors are recognised by shape (`isApiError`), not by `instanceof`, because a plugin may be loaded with its own copy
 * of this package.
 */
export interface FieldError {
  /** JSON Pointer into the request body, for example `/spec/age`. */
  path: string;
  message: string;
}

export type ErrorReason =
  | 'BadRequest'
  | 'Invalid'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'Timeout'
  | 'ServiceUnavailable'
  | 'InternalError';

const STATUS: Record<ErrorReason, number> = {
  BadRequest: 400,
  Invalid: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  TooManyRequests: 429,
  Timeout: 504,
  ServiceUnavailable: 503,
  InternalError: 500,
};

const TITLE: Record<ErrorReason, string> = {
  BadRequest: 'Bad Request',
  Invalid: 'Invalid',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'Not Found',
  MethodNotAllowed: 'Method Not Allowed',
  AlreadyExists: 'Already Exists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  PayloadTooLarge: 'Payload Too Large',
  UnsupportedMediaType: 'Unsupported Media Type',
  TooManyRequests: 'Too Many Requests',
  Timeout: 'Timeout',
  ServiceUnavailable: 'Service Unavailable',
  InternalError: 'Internal Server Error',
};

export class ApiError extends Error {
  readonly svcApiError = true as const;
  readonly status: number;
  readonly title: string;
  /** Extra response headers, for example `Retry-After` or `WWW-Authenticate`. */
  headers: Record<string, string> | undefined;

  constructor(
    readonly reason: ErrorReason,
    detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = STATUS[reason];
    this.title = TITLE[reason];
  }

  get detail(): string {
    return this.message;
  }

  withHeaders(headers: Record<string, string>): this {
    this.headers = { ...this.headers, ...headers };
    return this;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { svcApiError?: unknown }).svcApiError === true &&
    typeof (value as { status?: unknown }).status === 'number'
  );
}

/**
 * True for the 404 of an object (or anything else) that does not exist: what a caller checks to treat "absent" as an
 * answer rather than a failure.
 */
export function isNotFound(value: unknown): value is ApiError {
  return isApiError(value) && value.status === 404;
}

export const badRequest = (detail: string, errors?: FieldError[]) => new ApiError('BadRequest', detail, errors);
export const invalid = (detail: string, errors?: FieldError[]) => new ApiError('Invalid', detail, errors);
export const unauthorized = (detail: string) => new ApiError('Unauthorized', detail);
export const forbidden = (detail: string) => new ApiError('Forbidden', detail);
export const notFound = (detail: string) => new ApiError('NotFound', detail);
export const methodNotAllowed = (detail: string) => new ApiError('MethodNotAllowed', detail);
export const alreadyExists = (detail: string) => new ApiError('AlreadyExists', detail);
export const conflict = (detail: string, errors?: FieldError[]) => new ApiError('Conflict', detail, errors);
export const gone = (detail: string) => new ApiError('Gone', detail);
export const serviceUnavailable = (detail: string) => new ApiError('ServiceUnavailable', detail);
export const payloadTooLarge = (detail: string) => new ApiError('PayloadTooLarge', detail);
export const unsupportedMediaType = (detail: string) => new ApiError('UnsupportedMediaType', detail);
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new ApiError('TooManyRequests', detail).withHeaders({ 'retry-after': String(retryAfterSeconds) });
