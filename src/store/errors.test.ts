import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isClientTimeout, normaliseStoreError, QueryTimeoutError, StoreError, StoreUnavailableError } from './errors.ts';

const withCode = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('normaliseStoreError', () => {
  it('calls every way of losing the server StoreUnavailableError', () => {
    const lost = [
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('the database system is starting up', '57P03'),
      withCode('the database system is shutting down', '57P03'),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'), withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')], ''),
      withCode('read ETIMEDOUT', 'ETIMEDOUT'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('timeout expired'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Query read timeout'),
      new Error('Client has encountered a connection error and is not queryable'),
    ];
    for (const error of lost) {
      const normalised = normaliseStoreError(error, 'test.label');
      assert.ok(normalised instanceof StoreUnavailableError, `${error.message || 'AggregateError'} → ${normalised.name}`);
      assert.equal(normalised.retryable, true);
      assert.equal(normalised.label, 'test.label');
    }
  });

  it('keeps a server-side statement timeout and other failures apart', () => {
    assert.ok(normaliseStoreError(withCode('canceling statement due to statement timeout', '57014'), 'q') instanceof QueryTimeoutError);
    const bad = normaliseStoreError(withCode('relation "nope" does not exist', '42P01'), 'q');
    assert.ok(bad instanceof StoreError && !(bad instanceof StoreUnavailableError));
    assert.equal(bad.retryable, false);
  });

  it('tells the client giving up (a timeout) from the server refusing', () => {
    assert.equal(isClientTimeout(normaliseStoreError(new Error('Query read timeout'), 'q')), true);
    assert.equal(isClientTimeout(new Error('timeout expired')), true);
    assert.equal(isClientTimeout(normaliseStoreError(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'q')), false);
  });
});
