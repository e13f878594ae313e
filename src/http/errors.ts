// Typed errors thrown by services and the HTTP kit. Exactly one place
// (error-handler.ts) maps them to status codes and the `{error, field, detail}` body.

/** Base class: an error with an HTTP status and a message safe to show to callers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
    readonly detail?: string,
    /** More properties of the error body (e.g. the per-line errors of an import). */
    readonly extra?: Record<string, unknown>,
    /** Response headers that go with the error (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** 422: the request is well-formed but a field breaks a rule. */
export class ValidationError extends HttpError {
  constructor(field: string | undefined, detail: string, message = 'validation failed', extra?: Record<string, unknown>) {
    super(422, message, field, detail, extra);
  }
}

/** 404: the addressed record (or route) does not exist. */
export class NotFoundError extends HttpError {
  constructor(what: string, id?: string) {
    super(404, `${what} not found`, undefined, id === undefined ? undefined : `no ${what} with id ${JSON.stringify(id)}`);
  }
}

/** 401: credentials are missing or invalid. */
export class AuthError extends HttpError {
  constructor(message = 'authentication required', detail?: string) {
    super(401, message, undefined, detail);
  }
}

/** 403: the caller is authenticated, but its credentials do not allow this (the API token on an admin-session endpoint). */
export class ForbiddenError extends HttpError {
  constructor(message: string, detail?: string) {
    super(403, message, undefined, detail);
  }
}

/** 409: the request conflicts with the current state. */
export class ConflictError extends HttpError {
  constructor(message: string, field?: string, detail?: string) {
    super(409, message, field, detail);
  }
}

/** 400: the body could not be read at all (e.g. malformed JSON). */
export class BadRequestError extends HttpError {
  constructor(message: string, detail?: string) {
    super(400, message, undefined, detail);
  }
}

/** 429: the caller must wait `retryAfterSeconds` before trying again (sent as Retry-After). */
export class TooManyRequestsError extends HttpError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(429, message, undefined, `try again in ${retryAfterSeconds} s`, { retry_after: retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 503: a dependency (the database) is unavailable right now; retrying later may succeed. */
export class UnavailableError extends HttpError {
  constructor(message: string, detail?: string) {
    super(503, message, undefined, detail);
  }
}

/** 413: the body is over the limit (express's parser and the edge body reader alike). */
export function bodyTooLarge(limit: number | undefined): HttpError {
  return new HttpError(413, 'request body too large', undefined, `the limit is ${limit} bytes`);
}

/** 415: a Content-Encoding or charset the server does not read. */
export function unsupportedBodyEncoding(detail: string): HttpError {
  return new HttpError(415, 'unsupported body encoding', undefined, detail);
}

/** 400: the body's bytes are not what its Content-Encoding says. */
export function unreadableBody(detail: string): HttpError {
  return new BadRequestError('unreadable request body', `the body does not match its Content-Encoding (${detail})`);
}
