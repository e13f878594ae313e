import pg from 'pg';

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

// Reports a failed query, whichever form it was sent in (a promise, or a callback as last argument).
function reportingQuery(query: Query, onError: (error: unknown) => void): Query {
  return function (this: pg.Client, ...args) {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (error: unknown, ...rest: unknown[]) => void;
      args[last] = (error: unknown, ...rest: unknown[]) => {
        if (error) onError(error);
        callback(error, ...rest);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args);
    if (result instanceof Promise) result.catch(onError);
    return result;
  };
}

/**
 * A pg Client class whose queries call `onError` when they fail (Prisma's through the pg adapter
 * and raw SQL alike), for a pool's `Client` option. The caller's own handling of the error is
 * unchanged. A class, not a wrapper set on each connection: the transaction code (sql.ts) sets
 * and deletes its own per-checkout `query` on connections, which would drop such a wrapper.
 */
export function queryErrorReportingClient(onError: (error: unknown) => void): typeof pg.Client {
  const ReportingClient = class extends pg.Client {};
  ReportingClient.prototype.query = reportingQuery(pg.Client.prototype.query as Query, onError) as typeof pg.Client.prototype.query;
  return ReportingClient;
}
