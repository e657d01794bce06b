/**
 * The pow chain's emission schedule, exactly as the QRL node computes it:
 *
 *   remaining(n) = floor(40e6 * 1e9 * exp(-coeff * n)),  coeff = ln(40e6) / TOTAL_BLOCKS
 *   reward(n)    = floor(factor * (remaining(n - 1) - remaining(n))),  factor 0.4 from height 1,938,000 (1 before)
 *
 * `40e6 * 1e9` is 4e16, past the 2^53 a float can count exactly, so a float `exp` is off by several
 * shor. Everything here is bigint fixed-point arithmetic with 256 fractional bits: the results are
 * the exact floors of the real-valued formula (the node uses 28-digit decimals, which agree).
 */

/** Shor per quanta. */
const POW_SHOR_PER_QUANTA = 10n ** 9n;
/** The most quanta that will ever exist: genesis plus everything mined. */
export const POW_MAX_SUPPLY_SHOR = 105_000_000n * POW_SHOR_PER_QUANTA;
/** Allocated by the genesis block. */
export const POW_GENESIS_SUPPLY_SHOR = 65_000_000n * POW_SHOR_PER_QUANTA;
/** Left to mine at genesis (the decay curve's start). */
export const POW_EMISSION_SUPPLY_SHOR = POW_MAX_SUPPLY_SHOR - POW_GENESIS_SUPPLY_SHOR;
/** Minutes from 2018-04-01 to 2218-04-01: one block a minute for 200 years. */
export const POW_TOTAL_BLOCKS = (Date.UTC(2218, 3, 1) - Date.UTC(2018, 3, 1)) / 60_000;
/** From this height on, blocks pay 0.4 of the decay curve's difference (a hard fork). */
export const POW_REWARD_FACTOR_HEIGHT = 1_938_000;

const FRAC_BITS = 256n;
const ONE = 1n << FRAC_BITS;
/** Extra bits carried while summing series, dropped at the end. */
const GUARD_BITS = 64n;

/** ln(p / q) for integers p > q > 0, as a fixed-point number, by the series 2 * atanh((p - q) / (p + q)). */
function lnRatio(p: bigint, q: bigint): bigint {
  const bits = FRAC_BITS + GUARD_BITS;
  const z = ((p - q) << bits) / (p + q);
  const z2 = (z * z) >> bits;
  let power = z;
  let sum = 0n;
  for (let k = 1n; power !== 0n; k += 2n) {
    sum += power / k;
    power = (power * z2) >> bits;
  }
  return (2n * sum) >> GUARD_BITS;
}

/** exp(x) for a small fixed-point x >= 0, by its Taylor series. */
function expSmall(x: bigint): bigint {
  const bits = FRAC_BITS + GUARD_BITS;
  const xg = x << GUARD_BITS;
  let term = 1n << bits;
  let sum = term;
  for (let k = 1n; term !== 0n; k += 1n) {
    term = (term * xg) / (k << bits);
    sum += term;
  }
  return sum >> GUARD_BITS;
}

/** ln(40e6) = 25 ln 2 + ln(40e6 / 2^25). */
const LN_EMISSION_QUANTA = 25n * lnRatio(2n, 1n) + lnRatio(40_000_000n, 1n << 25n);
/** The decay constant, per block. */
const COEFF = LN_EMISSION_QUANTA / BigInt(POW_TOTAL_BLOCKS);
/** exp(-coeff): the curve shrinks by this factor every block. */
const DECAY_PER_BLOCK = (ONE * ONE) / expSmall(COEFF);

/**
 * What the node debits the zero address (the coinbase sentinel) for the genesis block's coinbase:
 * its state charges every coinbase its reward formula's value at the block's height, and at height
 * 0 that is the curve's step before block 1, remaining(-1) - remaining(0) = 6,656,350,568 shor
 * (factor 1 on mainnet), not the premine the genesis coinbase pays (docs/indexing-pow.md, "Genesis").
 */
export const POW_GENESIS_COINBASE_DEBIT_SHOR = ((POW_EMISSION_SUPPLY_SHOR * expSmall(COEFF)) >> FRAC_BITS) - POW_EMISSION_SUPPLY_SHOR;

/**
 * QRL's testnet, by its network id (`genesis_prev_headerhash` in qrl/network/testnet/config.yml,
 * which the genesis block carries as `hash_header_prev` and GetNodeState as `network_id`). A node
 * started with `--network-type testnet` has every hard fork at height 0 (`testnet_hard_fork_heights`),
 * so the 0.4 reward factor applies from genesis.
 */
export const POW_TESTNET_NETWORK_ID = 'Final Testnet';
const POW_TESTNET_PARENT_HASH = Buffer.from(POW_TESTNET_NETWORK_ID, 'utf8').toString('hex');

/** The testnet's genesis debit: 0.4 of mainnet's, rounded down (2,662,540,227 shor). */
export const POW_TESTNET_GENESIS_COINBASE_DEBIT_SHOR = (2n * POW_GENESIS_COINBASE_DEBIT_SHOR) / 5n;

/**
 * What a pow block's coinbase takes from the zero address, by the node's rule: the block's reward
 * (its header's `reward_block`, fees excluded: the senders pay those), and at height 0 the
 * formula's value above, by the network the genesis block names in its parent hash (the network
 * id's bytes): the testnet's, or mainnet's for any other network.
 */
export function powCoinbaseDebit(block: { height: number; reward: bigint; parentHash: string }): bigint {
  if (block.height !== 0) return block.reward;
  return block.parentHash === POW_TESTNET_PARENT_HASH ? POW_TESTNET_GENESIS_COINBASE_DEBIT_SHOR : POW_GENESIS_COINBASE_DEBIT_SHOR;
}

/** exp(-coeff * n) as a fixed-point number, by squaring and multiplying. */
function decayAt(height: number): bigint {
  let result = ONE;
  let base = DECAY_PER_BLOCK;
  let n = height;
  while (n > 0) {
    if (n % 2 === 1) result = (result * base) >> FRAC_BITS;
    base = (base * base) >> FRAC_BITS;
    n = Math.floor(n / 2);
  }
  return result;
}

function checkHeight(height: number): void {
  if (!Number.isSafeInteger(height) || height < 0) throw new RangeError(`pow height must be a non-negative integer, got ${height}`);
}

/** Shor still to be mined after block `height` (`remaining(n)` of the formula). */
export function powRemaining(height: number): bigint {
  checkHeight(height);
  return (POW_EMISSION_SUPPLY_SHOR * decayAt(height)) >> FRAC_BITS;
}

function rewardFromRemaining(height: number, before: bigint, after: bigint): bigint {
  const difference = before - after;
  // 0.4 * difference, rounded down: 2 * difference / 5 in integers.
  return height >= POW_REWARD_FACTOR_HEIGHT ? (2n * difference) / 5n : difference;
}

/** The block reward of block `height` in shor (0 for the genesis block). */
export function powBlockReward(height: number): bigint {
  checkHeight(height);
  if (height === 0) return 0n;
  return rewardFromRemaining(height, powRemaining(height - 1), powRemaining(height));
}

/**
 * Rewards of consecutive heights at one multiplication each (a generator pays a reward every
 * block; `powBlockReward` would square-and-multiply from scratch every time). The result equals
 * `powBlockReward` at every height: the truncation error of the running product stays below
 * 2^-200 of a shor for any height this chain will reach.
 */
export interface PowEmissionCursor {
  /** The height whose reward `next()` returns. */
  readonly height: number;
  /** Returns the reward of `height` and moves on to the next height. */
  next(): bigint;
}

export function createPowEmissionCursor(fromHeight: number): PowEmissionCursor {
  checkHeight(fromHeight);
  let height = fromHeight;
  let decay = height === 0 ? ONE : decayAt(height - 1);
  let remainingBefore = (POW_EMISSION_SUPPLY_SHOR * decay) >> FRAC_BITS;
  return {
    get height() {
      return height;
    },
    next() {
      if (height === 0) {
        height = 1;
        return 0n;
      }
      decay = (decay * DECAY_PER_BLOCK) >> FRAC_BITS;
      const remainingAfter = (POW_EMISSION_SUPPLY_SHOR * decay) >> FRAC_BITS;
      const reward = rewardFromRemaining(height, remainingBefore, remainingAfter);
      remainingBefore = remainingAfter;
      height += 1;
      return reward;
    },
  };
}
