import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  POW_EMISSION_SUPPLY_SHOR,
  POW_GENESIS_COINBASE_DEBIT_SHOR,
  POW_REWARD_FACTOR_HEIGHT,
  POW_TOTAL_BLOCKS,
  createPowEmissionCursor,
  powBlockReward,
  powCoinbaseDebit,
  powRemaining,
} from './pow-emission.ts';

// An independent computation in floats. 4e16 is past 2^53, so a float is only good to a few units
// (ulp(4e16) = 8): we compare within a tolerance and check exact values against the node's own.
const FLOAT_COEFF = Math.log(40e6) / (73_048 * 24 * 60);
const floatRemaining = (n: number) => 40e6 * 1e9 * Math.exp(-FLOAT_COEFF * n);
const floatReward = (n: number) => (n >= 1_938_000 ? 0.4 : 1) * (floatRemaining(n - 1) - floatRemaining(n));

describe('pow emission', () => {
  it('counts 200 years of minutes from 2018-04-01 (48 leap days)', () => {
    assert.equal(POW_TOTAL_BLOCKS, 73_048 * 24 * 60);
    assert.equal(POW_REWARD_FACTOR_HEIGHT, 1_938_000);
  });

  // The QRL node's doctests (qrl/core/formulas.py) give these exact values.
  it('matches the node at the first heights', () => {
    assert.equal(powRemaining(0), 40_000_000_000_000_000n);
    assert.equal(powRemaining(1), 39_999_993_343_650_538n);
    assert.equal(powRemaining(2), 39_999_986_687_302_185n);
    assert.equal(powRemaining(100), 39_999_334_370_536_850n);
    assert.equal(powBlockReward(1), 6_656_349_462n);
    assert.equal(powBlockReward(2), 6_656_348_353n);
    assert.equal(powBlockReward(3), 6_656_347_246n);
    assert.equal(powBlockReward(0), 0n);
  });

  // formulas.block_reward(0) of the node (28-digit decimals): remaining(-1) - remaining(0).
  it('debits the zero address by the formula at genesis and by the block reward after', () => {
    assert.equal(POW_GENESIS_COINBASE_DEBIT_SHOR, 6_656_350_568n);
    const mainnet = Buffer.from('The sleeper must awaken').toString('hex');
    assert.equal(powCoinbaseDebit({ height: 0, reward: 65_000_000n * 10n ** 9n, parentHash: mainnet }), 6_656_350_568n);
    assert.equal(powCoinbaseDebit({ height: 1, reward: 6_656_349_462n, parentHash: 'ab'.repeat(32) }), 6_656_349_462n);
  });

  // QRL's testnet ("Final Testnet", qrl/network/testnet/config.yml) has its reward fork at height 0:
  // block_reward(0) = floor(0.4 x 6,656,350,568) = floor(2,662,540,227.2).
  it('debits by the testnet\'s factor at the genesis of the testnet', () => {
    const testnet = Buffer.from('Final Testnet').toString('hex');
    assert.equal(powCoinbaseDebit({ height: 0, reward: 65_000_000n * 10n ** 9n, parentHash: testnet }), 2_662_540_227n);
    assert.equal(powCoinbaseDebit({ height: 0, reward: 65_000_000n * 10n ** 9n, parentHash: Buffer.from('Quarry demo network').toString('hex') }), 6_656_350_568n);
    assert.equal(powCoinbaseDebit({ height: 1, reward: 2_662_539_784n, parentHash: 'ab'.repeat(32) }), 2_662_539_784n);
  });

  it('agrees with a float computation within float precision', () => {
    for (const n of [1, 10, 1000, 100_000, 576_000, 1_000_000, 1_937_999, 1_938_000, 1_938_001, 2_500_000, 10_000_000, 105_000_000]) {
      const remaining = powRemaining(n);
      assert.ok(Math.abs(Number(remaining) - floatRemaining(n)) <= 64, `remaining(${n}) = ${remaining}, float ${floatRemaining(n)}`);
      const reward = powBlockReward(n);
      // The difference of two floats near 4e16 carries their errors: allow 2 x 64 shor.
      assert.ok(Math.abs(Number(reward) - floatReward(n)) <= 128, `reward(${n}) = ${reward}, float ${floatReward(n)}`);
    }
  });

  it('drops to 0.4 of the curve at height 1,938,000, rounding down', () => {
    const before = powBlockReward(1_937_999);
    const at = powBlockReward(1_938_000);
    const difference = powRemaining(1_937_999) - powRemaining(1_938_000);
    assert.equal(at, (difference * 4n) / 10n);
    assert.ok(before > at * 2n && before < at * 3n);
  });

  it('sums rewards to the decay of the curve before the fork', () => {
    let sum = 0n;
    for (let n = 1; n < 40; n++) sum += powBlockReward(n);
    assert.equal(sum, powRemaining(0) - powRemaining(39));
  });

  it('never mines more than the emission supply', () => {
    assert.ok(powRemaining(POW_TOTAL_BLOCKS) >= 0n && powRemaining(POW_TOTAL_BLOCKS) < 2n * 10n ** 9n);
    assert.ok(powRemaining(0) === POW_EMISSION_SUPPLY_SHOR);
  });

  it('steps a cursor through the same rewards as the direct formula', () => {
    for (const start of [0, 1, 576_000, 1_937_990]) {
      const cursor = createPowEmissionCursor(start);
      for (let n = start; n < start + 20; n++) {
        assert.equal(cursor.height, n);
        assert.equal(cursor.next(), powBlockReward(n), `height ${n}`);
      }
    }
  });

  it('rejects heights that are not non-negative integers', () => {
    assert.throws(() => powRemaining(-1), RangeError);
    assert.throws(() => powBlockReward(1.5), RangeError);
  });
});
