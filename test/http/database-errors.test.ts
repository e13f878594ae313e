import { expect } from 'chai';
import { isDatabaseUnavailable, isTransactionConflict, refusedValueReason } from '../../src/http/database-errors.js';
import { toHttpError } from '../../src/http/error-handler.js';

// The shapes pg, the Prisma pg adapter and the Prisma client give the same database error.
const shapes = (sqlstate: string) => [
  { code: sqlstate, message: 'from pg' },
  { code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: sqlstate, kind: 'postgres' } } } },
  new Error('wrapped', { cause: { originalCode: sqlstate } }),
];

describe('database errors', () => {
  it('counts "too many connections" (53300) as the database being unavailable, in every shape', () => {
    for (const error of shapes('53300')) expect(isDatabaseUnavailable(error), JSON.stringify(error)).to.equal(true);
  });

  it('counts the values a caller can send wrong (NUL, out of range) as refused values', () => {
    for (const sqlstate of ['22021', '22P05', '22003', '22008']) {
      for (const error of shapes(sqlstate)) expect(refusedValueReason(error)).to.equal(`database code ${sqlstate}`);
    }
  });

  it('leaves other data exceptions, such as a failed cast the code built, to the 500 path', () => {
    for (const error of shapes('22P02')) expect(refusedValueReason(error)).to.equal(undefined);
    expect(isDatabaseUnavailable({ code: '22P02' })).to.equal(false);
  });

  it('answers a lost deadlock or serialization conflict with 503 and Retry-After, never 500', () => {
    for (const sqlstate of ['40P01', '40001']) {
      for (const error of shapes(sqlstate)) {
        expect(isTransactionConflict(error)).to.equal(true);
        expect(toHttpError(error)).to.include({ status: 503, message: 'write conflict' });
        expect(toHttpError(error).headers).to.deep.equal({ 'Retry-After': '1' });
      }
    }
    expect(isTransactionConflict({ code: 'P2034' })).to.equal(true);
    expect(isTransactionConflict({ code: '23505' })).to.equal(false);
  });

  it('answers a unique violation with 422 naming the key’s last column, from pg and from Prisma', () => {
    const fromPg = { code: '23505', detail: 'Key (domain_id, name)=(d1, www) already exists.', message: 'duplicate key value violates unique constraint' };
    expect(toHttpError(fromPg)).to.include({ status: 422, field: 'name', message: 'duplicate value' });
    expect(toHttpError({ code: 'P2002', meta: { target: ['domain'] } })).to.include({ status: 422, field: 'domain' });
    expect(toHttpError({ code: '23505', message: 'no detail' })).to.include({ status: 422, field: undefined });
  });
});
