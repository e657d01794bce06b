import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../problem.ts';
import { parseWindow } from './window.ts';

const DAY = 86_400;

function rejects(raw: string, options = { fallback: '7d', allowAll: true }): ApiError {
  try {
    parseWindow(raw, options);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 400);
    assert.equal(error.errors?.[0]?.param, 'window');
    return error;
  }
  assert.fail(`expected ${JSON.stringify(raw)} to be rejected`);
}

describe('parseWindow', () => {
  it('reads every unit', () => {
    assert.deepEqual(parseWindow('90m', { fallback: '7d' }), { all: false, seconds: 5400, days: 1, rolling: true });
    assert.deepEqual(parseWindow('24h', { fallback: '7d' }), { all: false, seconds: DAY, days: 1, rolling: true });
    assert.deepEqual(parseWindow('25h', { fallback: '7d' }), { all: false, seconds: 25 * 3600, days: 2, rolling: true });
    assert.deepEqual(parseWindow('30d', { fallback: '7d' }), { all: false, seconds: 30 * DAY, days: 30, rolling: false });
    assert.deepEqual(parseWindow('2w', { fallback: '7d' }), { all: false, seconds: 14 * DAY, days: 14, rolling: false });
    assert.deepEqual(parseWindow('1y', { fallback: '7d' }), { all: false, seconds: 365 * DAY, days: 365, rolling: false });
  });

  it('uses the fallback when absent or empty', () => {
    assert.equal(parseWindow(undefined, { fallback: '30d' }).days, 30);
    assert.equal(parseWindow(null, { fallback: '30d' }).days, 30);
    assert.equal(parseWindow('', { fallback: '90d' }).days, 90);
  });

  it('accepts all only where allowed', () => {
    assert.deepEqual(parseWindow('all', { fallback: '7d', allowAll: true }), { all: true, seconds: null, days: null, rolling: false });
    rejects('all', { fallback: '7d', allowAll: false });
  });

  it('allows exactly ten years and no more', () => {
    assert.equal(parseWindow('3650d', { fallback: '7d' }).days, 3650);
    assert.equal(parseWindow('10y', { fallback: '7d' }).days, 3650);
    assert.match(rejects('3651d').message, /10 years/);
    assert.match(rejects('11y').message, /10 years/);
    assert.match(rejects('87601h').message, /10 years/);
    rejects('99999999999999999999d');
  });

  it('snaps day counts up to the UI tiers', () => {
    const snap = (raw: string) => parseWindow(raw, { fallback: '90d', snapToTier: true }).days;
    assert.equal(snap('1h'), 1);
    assert.equal(snap('2d'), 7);
    assert.equal(snap('7d'), 7);
    assert.equal(snap('8d'), 14);
    assert.equal(snap('31d'), 60);
    assert.equal(snap('200d'), 365);
    assert.equal(snap('2y'), 730);
    assert.equal(snap('1096d'), 1825);
    assert.equal(snap('3000d'), 3650);
    assert.equal(parseWindow('45d', { fallback: '90d', snapToTier: true }).seconds, 60 * DAY);
  });

  for (const raw of ['0d', '-1d', '7', 'd', '7D', '7days', ' 7d', '7d ', '1.5d', '07d', '7s', 'ALL', '1e3d', '७d', '7d;drop']) {
    it(`rejects ${JSON.stringify(raw)}`, () => {
      rejects(raw);
    });
  }
});
