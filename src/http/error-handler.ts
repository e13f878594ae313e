import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, isTransactionConflict, refusedValueReason, uniqueViolation } from './database-errors.js';
import { bodyTooLarge, HttpError, NotFoundError, UnavailableError, unreadableBody, unsupportedBodyEncoding, ValidationError } from './errors.js';
import { writeJson } from './reply-writer.js';

type BodyParserError = { type?: string; code?: unknown; errno?: unknown; status?: number; statusCode?: number; expose?: boolean; message: string; limit?: number };

// zlib's errors (Z_DATA_ERROR, ERR__ERROR_FORMAT_PADDING_2 from brotli, ...): the bytes are not what Content-Encoding says.
function isDecompressionError(error: BodyParserError): boolean {
  return typeof error.errno === 'number' && typeof error.code === 'string' && /^(Z_|ERR_)/.test(error.code);
}

function fromBodyParser(error: BodyParserError): HttpError | undefined {
  if (error.type === 'entity.parse.failed') return new HttpError(400, 'malformed JSON body', undefined, error.message);
  if (error.type === 'entity.too.large') return bodyTooLarge(error.limit);
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') return unsupportedBodyEncoding(error.message);
  if (isDecompressionError(error)) return unreadableBody(error.message);
  return undefined;
}

// Express's router and body parser mark errors caused by the request itself with a 4xx status
// (http-errors sets `expose` on those); the path decoder's URIError carries 400 without `expose`.
function fromExpress(error: BodyParserError): HttpError | undefined {
  const status = error.status ?? error.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) return new HttpError(400, 'malformed path', undefined, 'a path segment holds an invalid percent-escape');
  if (error.expose !== true) return undefined;
  return new HttpError(status, String(STATUS_CODES[status] ?? 'bad request').toLowerCase(), undefined, error.message);
}

// A safety net behind the input checks: a value the database refused is the caller's mistake, not an outage.
function fromDataException(error: unknown): HttpError | undefined {
  const reason = refusedValueReason(error);
  if (reason === undefined) return undefined;
  return new ValidationError(undefined, `a value of this request cannot be stored (${reason})`);
}

// A safety net behind the services' own duplicate checks (write locks, inserts that skip a taken key): storage refused a duplicate.
function fromUniqueViolation(error: unknown): HttpError | undefined {
  const duplicate = uniqueViolation(error);
  return duplicate && new ValidationError(duplicate.field, 'a record with this value already exists', 'duplicate value');
}

function fromPrisma(error: { code?: unknown; meta?: { modelName?: unknown } }): HttpError | undefined {
  if (error.code === 'P2025') return new NotFoundError(String(error.meta?.modelName ?? 'record').toLowerCase());
  return undefined;
}

/** Maps anything thrown to the HTTP error the caller sees (500 for the unexpected). */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isDatabaseUnavailable(error)) return new UnavailableError('database unavailable', 'the database cannot be reached; retry shortly');
  if (isTransactionConflict(error)) return new HttpError(503, 'write conflict', undefined, 'the write conflicted with a concurrent one and was rolled back; retry it', undefined, { 'Retry-After': '1' });
  if (!error || typeof error !== 'object') return new HttpError(500, 'internal error');
  const known = fromBodyParser(error as BodyParserError) ?? fromExpress(error as BodyParserError) ?? fromUniqueViolation(error) ?? fromPrisma(error as { code?: unknown }) ?? fromDataException(error);
  return known ?? new HttpError(500, 'internal error');
}

/** The one error funnel: writes `{error, field?, detail?}` and logs 5xx at error level, the rest at warn. */
export function writeError(res: ServerResponse, error: unknown, log: Logger | undefined): void {
  const http = toHttpError(error);
  if (http.status >= 500) log?.error({ err: error, status: http.status }, http.message);
  else log?.warn({ status: http.status, error: http.message, field: http.field }, 'request rejected');
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(http.headers ?? {})) res.setHeader(name, value);
  const body: Record<string, unknown> = { ...http.extra, error: http.message };
  if (http.field !== undefined) body.field = http.field;
  if (http.detail !== undefined) body.detail = http.detail;
  writeJson(res, http.status, body);
}

/** The express end of the funnel. */
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => writeError(res, error, req.log);

/** 404 for any path no route claimed. */
export const unknownRoute: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, 'route not found', undefined, `${req.method} ${req.path} is not an endpoint of this API`));
};
