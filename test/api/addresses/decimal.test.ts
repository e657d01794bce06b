import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatUnits } from '../../../src/api/routes/addresses/feed/decimal.ts';

describe('formatUnits', () => {
  for (const [raw, decimals, expected] of [
    ['0', 18, '0'],
    ['1', 18, '0.000000000000000001'],
    ['1500000000000000000', 18, '1.5'],
    ['1000000000000000000', 18, '1'],
    ['123456789', 0, '123456789'],
    ['123456789', 3, '123456.789'],
    ['120', 1, '12'],
    ['000120', 2, '1.2'],
    ['115792089237316195423570985008687907853269984665640564039457584007913129639935', 18,
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935'],
    ['5', 30, '0.000000000000000000000000000005'],
    ['-25', 1, '-2.5'],
    ['-0', 3, '0'],
  ] as const) {
    it(`${raw} with ${decimals} decimals is ${expected}`, () => assert.equal(formatUnits(raw, decimals), expected));
  }

  it('refuses what is not an integer', () => {
    assert.throws(() => formatUnits('1.5', 2));
    assert.throws(() => formatUnits('', 2));
  });
});
