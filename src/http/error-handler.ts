import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './database-errors.js';
import { HttpError, NotFoundError, UnavailableError, ValidationError } from './errors.js';
import { writeJson } from './reply-writer.js';

type BodyParserError = { type?: string; status?: number; message: string; limit?: number };

function fromBodyParser(error: BodyParserError): HttpError | undefined {
  if (error.type === 'entity.parse.failed') return new HttpError(400, 'malformed JSON body', undefined, error.message);
  if (error.type === 'entity.too.large') return new HttpError(413, 'request body too large', undefined, `the limit is ${error.limit} bytes`);
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') return new HttpError(415, 'unsupported body encoding', undefined, error.message);
  return undefined;
}

function fromPrisma(error: { code?: unknown; meta?: { target?: unknown; modelName?: unknown } }): HttpError | undefined {
  if (error.code === 'P2002') {
    const target = Array.isArray(error.meta?.target) ? String(error.meta.target.at(-1)) : undefined;
    return new ValidationError(target, 'a record with this value already exists', 'duplicate value');
  }
  if (error.code === 'P2025') return new NotFoundError(String(error.meta?.modelName ?? 'record').toLowerCase());
  return undefined;
}

/** Maps anything thrown to the HTTP error the caller sees (500 for the unexpected). */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isDatabaseUnavailable(error)) return new UnavailableError('database unavailable', 'the database cannot be reached; retry shortly');
  const known = fromBodyParser(error as BodyParserError) ?? fromPrisma(error as { code?: unknown });
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
