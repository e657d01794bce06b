import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { answerAmounts, formatUnits } from './amounts.ts';

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

describe('answerAmounts', () => {
  const logged: { entry: Record<string, unknown>; message: string }[] = [];
  const log = { error: (entry: Record<string, unknown>, message: string) => logged.push({ entry, message }) } as unknown as FastifyBaseLogger;
  const amount = answerAmounts(log, 'pos');

  it('answers unsigned amounts as decimal strings and no value as null, logging nothing', () => {
    assert.equal(amount('0', 'Qa', 'balance'), '0');
    assert.equal(amount(123n, 'Qa', 'balance'), '123');
    assert.equal(amount('115792089237316195423570985008687907853269984665640564039457584007913129639935', 'Qa', 'value'), '115792089237316195423570985008687907853269984665640564039457584007913129639935');
    assert.equal(amount(null, 'Qa', 'balance'), null);
    assert.equal(amount(undefined, 'Qa', 'balance'), null);
    assert.equal(logged.length, 0);
  });

  it('answers a negative amount as null and logs a data-integrity error naming chain, address and field', () => {
    assert.equal(amount('-114', 'Qa', 'balance'), null);
    assert.equal(amount(-1n, 'Qb', 'fee', { tx_hash: '0xabc' }), null);
    assert.deepEqual(
      logged.map((l) => l.entry),
      [
        { integrity: 'negative-amount', chain: 'pos', address: 'Qa', field: 'balance', stored: '-114' },
        { integrity: 'negative-amount', chain: 'pos', address: 'Qb', field: 'fee', tx_hash: '0xabc', stored: '-1' },
      ],
    );
    assert.match(logged[0]!.message, /data integrity/);
  });
});
