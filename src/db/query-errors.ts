import type pg from 'pg';

type Query = (...args: unknown[]) => unknown;

// Reports a failed query, whichever form it was sent in (a promise, or a callback as last argument).
function reportingQuery(query: Query, onError: (error: unknown) => void): Query {
  return (...args) => {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (error: unknown, ...rest: unknown[]) => void;
      args[last] = (error: unknown, ...rest: unknown[]) => {
        if (error) onError(error);
        callback(error, ...rest);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) result.catch(onError);
    return result;
  };
}

/**
 * Calls `onError` for every query of `pool`'s connections that fails (Prisma's through the pg
 * adapter and raw SQL alike): each connection's `query` reports its failures once it is opened.
 * The caller's own handling of the error is unchanged.
 */
export function reportQueryErrors(pool: pg.Pool, onError: (error: unknown) => void): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as Query;
    (client as unknown as { query: Query }).query = reportingQuery(query, onError);
  });
}
