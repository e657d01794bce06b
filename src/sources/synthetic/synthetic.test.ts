/**
 * The synthetic world, checked from the outside: an independent ledger replays the emitted blocks
 * as the pipeline would (rolling back on reorgs, taking the block after a garbled answer) and checks every
 * rule of the chains; the rest checks determinism, resumption and that each phenomenon the API
 * reports on is there.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { parseAddress, powAddressFromParts } from '../../chain/addresses.ts';
import { POS_ZERO_ADDRESS, POW_COINBASE_SENTINEL } from '../../chain/chains.ts';
import type { CanonicalBlock, CanonicalTx, SourceItem } from '../../chain/model.ts';
import { powAddress } from './hex.ts';
import { collect, createSyntheticWorld, type SyntheticOptions, type SyntheticWorld } from './index.ts';
import { MAINNET_POW_GENESIS } from './options.ts';
import { Rng } from './rng.ts';

const END = new Date('2026-03-01T12:00:00Z');
const BASE: SyntheticOptions = { seed: 7, end: END, powDays: 3, posDays: 2, scale: 600, reorgEvery: 250, malformedEvery: 400 };
const SHOR_PER_QUANTA = 10n ** 9n;
const PLANCK_PER_SHOR = 10n ** 9n;

const stringify = (value: unknown) => JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${v}n` : v));
const blocksOf = (items: SourceItem[]) => items.flatMap((i) => (i.kind === 'block' ? [i.block] : []));

// ---- an independent ledger ----

/** Float model of the pow emission: good to a few shor (the values themselves are near 4e16). */
function floatReward(height: number): number {
  const coeff = Math.log(40e6) / (73_048 * 1440);
  const remaining = (n: number) => 4e16 * Math.exp(-coeff * n);
  return (height >= 1_938_000 ? 0.4 : 1) * (remaining(height - 1) - remaining(height));
}

interface Applied {
  hash: string;
  timestamp: number;
  undo: (() => void)[];
  baseFee: bigint | null;
  gasUsed: number;
}

/** Replays a chain's items as an indexer would, asserting the chain's rules on the way. */
class ReplayLedger {
  readonly balances = new Map<string, bigint>();
  readonly counters = new Map<string, number>();
  readonly stored: Applied[] = [];
  readonly touches = new Map<string, number>();
  reorgDepths: number[] = [];
  orphanThenCanonical = 0;
  undecodable = 0;
  /** The height of a garbled answer whose block must come next. */
  private garbled: number | null = null;
  withdrawalIndex = -1;
  private undo: (() => void)[] = [];

  constructor(readonly chain: 'pow' | 'pos') {}

  private setBalance(address: string, value: bigint): void {
    const before = this.balances.get(address) ?? 0n;
    this.undo.push(() => this.balances.set(address, before));
    this.balances.set(address, value);
  }

  credit(address: string, amount: bigint): void {
    assert.ok(amount >= 0n, `negative credit to ${address}`);
    this.setBalance(address, (this.balances.get(address) ?? 0n) + amount);
  }

  /** The pow coinbase sentinel pays each block's reward out of its genesis reserve. */
  debitSentinel(amount: bigint): void {
    const balance = (this.balances.get(POW_COINBASE_SENTINEL) ?? 0n) - amount;
    assert.ok(balance >= 0n, `the coinbase sentinel's reserve goes negative (${balance})`);
    this.setBalance(POW_COINBASE_SENTINEL, balance);
  }

  debit(address: string, amount: bigint, what: string): void {
    if (address === POW_COINBASE_SENTINEL || address === POS_ZERO_ADDRESS) return; // sentinels mint (token creations, pos mints)
    const balance = (this.balances.get(address) ?? 0n) - amount;
    assert.ok(balance >= 0n, `${this.chain} ${what}: ${address} goes negative (${balance})`);
    this.setBalance(address, balance);
  }

  private nextCounter(key: string, value: number, what: string): void {
    const expected = this.counters.get(key) ?? 0;
    assert.equal(value, expected, `${this.chain} ${what}: counter of ${key} is ${value}, expected ${expected}`);
    this.undo.push(() => this.counters.set(key, expected));
    this.counters.set(key, expected + 1);
  }

  apply(item: SourceItem): void {
    if (item.kind === 'caught-up') return;
    if (item.kind === 'undecodable') {
      // A garbled answer: the pipeline fetches the block again, and the canonical block comes next.
      this.undecodable++;
      this.garbled = item.height;
      return;
    }
    const height = item.block.height;
    if (this.garbled !== null) {
      assert.equal(height, this.garbled, `${this.chain}: the block after a garbled answer is the one fetched again`);
      this.garbled = null;
    }
    const tip = this.stored.length - 1;
    if (height <= tip) {
      // A block at a height we have: roll back to its parent, as the pipeline does.
      const depth = tip - height + 1;
      for (let i = 0; i < depth; i++) for (const step of this.stored.pop()!.undo.reverse()) step();
      this.reorgDepths.push(depth);
    }
    assert.equal(height, this.stored.length, `${this.chain}: heights must be contiguous`);
    this.undo = [];
    const block = item.block;
    const parent = this.stored.at(-1);
    if (parent) {
      assert.equal(block.parentHash, parent.hash, `${this.chain} ${height}: parent hash`);
      assert.ok(block.timestamp > parent.timestamp, `${this.chain} ${height}: timestamps strictly increase`);
    }
    assert.match(block.hash, this.chain === 'pow' ? /^[0-9a-f]{64}$/ : /^0x[0-9a-f]{64}$/);
    if (this.chain === 'pow') this.applyPow(block);
    else this.applyPos(block, parent);
    this.stored.push({ hash: block.hash, timestamp: block.timestamp, undo: this.undo, baseFee: block.baseFeePerGas, gasUsed: block.gasUsed ?? 0 });
  }

  private touch(tx: CanonicalTx): void {
    const addresses = new Set<string>([tx.from]);
    if (tx.to) addresses.add(tx.to);
    for (const r of tx.recipients ?? []) addresses.add(r.to);
    for (const a of addresses) this.touches.set(a, (this.touches.get(a) ?? 0) + 1);
  }

  private applyPow(block: CanonicalBlock): void {
    const genesis = block.height === 0;
    if (genesis) {
      // Like mainnet's: the network id's bytes as the previous hash, the reserve to the zero address.
      assert.match(Buffer.from(block.parentHash, 'hex').toString('utf8'), /^[ -~]{4,64}$/, 'pow genesis: a network id as previous hash');
      assert.deepEqual(block.allocations, [{ address: POW_COINBASE_SENTINEL, amount: 105_000_000n * SHOR_PER_QUANTA }], 'pow genesis: one genesis_balance entry, the reserve');
      assert.equal(block.reward, 65_000_000n * SHOR_PER_QUANTA, 'pow genesis: the premine is the reward');
    }
    for (const a of block.allocations) this.credit(a.address, a.amount);
    const [coinbase, ...rest] = block.transactions;
    assert.ok(coinbase !== undefined && coinbase.type === 'coinbase' && coinbase.index === 0, `pow ${block.height}: coinbase first`);
    assert.equal(coinbase.from, POW_COINBASE_SENTINEL);
    assert.equal(coinbase.to, block.miner);
    const fees = rest.reduce((sum, tx) => sum + tx.fee, 0n);
    assert.equal(coinbase.value, block.reward + fees, `pow ${block.height}: coinbase = reward + fees`);
    if (block.height > 0) assert.ok(Math.abs(Number(block.reward) - floatReward(block.height)) <= 128, `pow ${block.height}: reward ${block.reward}`);
    this.credit(coinbase.to!, coinbase.value);
    // The node pays the reward out of the zero address's reserve; at genesis it charges its
    // formula's reward of height 0, remaining(-1) - remaining(0) (qrl/core/formulas.py, 28 digits).
    this.debitSentinel(genesis ? 6_656_350_568n : block.reward);
    this.touch(coinbase);
    rest.forEach((tx, i) => {
      assert.equal(tx.index, i + 1);
      if (genesis) assert.ok(tx.type === 'transfer' && tx.fee === 0n && tx.from === coinbase.to, `pow genesis ${tx.hash}: the premine's transfers, without fees`);
      else assert.ok(tx.fee > 0n, `pow ${tx.hash}: every non-coinbase transaction pays a fee`);
      assert.match(tx.hash, /^[0-9a-f]{64}$/);
      const recipients = tx.recipients ?? [];
      assert.ok(recipients.length <= 100, `${tx.hash}: at most 100 recipients`);
      const sum = recipients.reduce((s, r) => s + r.amount, 0n);
      assert.equal(tx.value, sum, `pow ${tx.hash}: value = sum of recipients`);
      if (tx.type === 'transfer') {
        assert.ok(recipients.length >= 1, `${tx.hash} has recipients`);
        assert.equal(tx.to, recipients.length === 1 ? recipients[0]!.to : null);
      }
      if (tx.type === 'transfer_token') assert.ok(recipients.every((r) => r.amount === 0n) && tx.tokenTransfers.length === recipients.length, `${tx.hash}: token recipients`);
      if (tx.signer) assert.equal(tx.masterAddr, tx.from, 'a slave signs for its master');
      this.nextCounter(tx.signer ?? tx.from, tx.otsIndex!, `ots of ${tx.hash}`);
      this.debit(tx.from, tx.value + tx.fee, tx.hash);
      for (const r of recipients) this.credit(r.to, r.amount);
      this.touch(tx);
    });
  }

  private applyPos(block: CanonicalBlock, parent: Applied | undefined): void {
    for (const a of block.allocations) this.credit(a.address, a.amount);
    const baseFee = block.baseFeePerGas!;
    if (parent) {
      // EIP-1559, independently: target 15M, change at most 1/8, at least 1 when above target.
      const target = 15_000_000n;
      const used = BigInt(parent.gasUsed);
      const p = parent.baseFee!;
      const expected = used === target ? p : used > target ? p + [((p * (used - target)) / target / 8n), 1n].reduce((a, b) => (a > b ? a : b)) : p - (p * (target - used)) / target / 8n;
      assert.equal(baseFee, expected, `pos ${block.height}: base fee`);
    }
    assert.equal(block.gasLimit, 30_000_000);
    let gas = 0;
    block.transactions.forEach((tx, i) => {
      assert.equal(tx.index, i);
      assert.equal(tx.typeEvm, 2);
      assert.match(tx.hash, /^0x[0-9a-f]{64}$/);
      const used = BigInt(tx.gasUsed!);
      gas += tx.gasUsed!;
      const mint = tx.from === POS_ZERO_ADDRESS;
      if (mint) assert.equal(tx.fee, 0n);
      else assert.ok(tx.maxFeePerGas! >= baseFee, `pos ${tx.hash}: fee cap covers the base fee`);
      const tipCap = baseFee + tx.maxPriorityFeePerGas!;
      assert.equal(tx.effectiveGasPrice, tx.maxFeePerGas! < tipCap ? tx.maxFeePerGas : tipCap);
      assert.equal(tx.fee, used * tx.effectiveGasPrice!);
      assert.equal(tx.burned, used * baseFee);
      this.nextCounter(tx.from, tx.nonce!, `nonce of ${tx.hash}`);
      if (!mint) {
        const upfront = BigInt(tx.gas!) * tx.maxFeePerGas! + (tx.status === 1 ? tx.value : 0n);
        assert.ok((this.balances.get(tx.from) ?? 0n) >= upfront, `pos ${tx.hash}: sender covers gas x max fee + value`);
      }
      this.debit(tx.from, tx.fee, `fee of ${tx.hash}`);
      this.credit(block.miner!, tx.fee - tx.burned);
      if (tx.status === 0) {
        assert.equal(tx.internal.length + tx.tokenTransfers.length, 0, 'a reverted transaction has no effects');
      } else {
        this.debit(tx.from, tx.value, tx.hash);
        if (tx.to) this.credit(tx.to, tx.value);
        else if (tx.contractAddress) this.credit(tx.contractAddress, tx.value);
        for (const t of tx.internal) {
          this.debit(t.from, t.value, `internal ${tx.hash} ${t.traceAddress}`);
          this.credit(t.to, t.value);
        }
      }
      assert.equal(tx.type, tx.to === null ? 'contract_create' : tx.type);
      this.touch(tx);
    });
    assert.equal(block.gasUsed, gas, `pos ${block.height}: gas used is the sum`);
    assert.ok(gas <= 30_000_000, `pos ${block.height}: gas within the limit`);
    for (const w of block.withdrawals) {
      assert.equal(w.amount % PLANCK_PER_SHOR, 0n, 'withdrawals are whole gwei');
      assert.ok(w.index > this.withdrawalIndex, 'withdrawal indices increase');
      this.withdrawalIndex = w.index;
      this.credit(w.address, w.amount);
    }
  }
}

async function replay(world: SyntheticWorld, chain: 'pow' | 'pos') {
  const items = await collect(world[chain]);
  const ledger = new ReplayLedger(chain);
  let previousHeight = -1;
  for (const item of items) {
    if (item.kind === 'block' && item.block.height < previousHeight + 1 && previousHeight >= 0) ledger.orphanThenCanonical++;
    if (item.kind !== 'caught-up') previousHeight = item.kind === 'block' ? item.block.height : item.height;
    ledger.apply(item);
  }
  return { items, ledger };
}

// ---- the tests ----

describe('synthetic world', () => {
  let world: SyntheticWorld;
  let pow: Awaited<ReturnType<typeof replay>>;
  let pos: Awaited<ReturnType<typeof replay>>;
  before(async () => {
    world = createSyntheticWorld(BASE);
    pow = await replay(world, 'pow');
    pos = await replay(world, 'pos');
  });

  it('replays both chains without a negative balance or a broken rule', () => {
    for (const { ledger } of [pow, pos]) {
      for (const [address, balance] of ledger.balances) assert.ok(balance >= 0n || address === POS_ZERO_ADDRESS, `${address} ends at ${balance}`);
    }
    assert.equal(pow.ledger.stored.length, world.options.powLastHeight + 1);
    assert.equal(pow.ledger.stored.at(-1)!.timestamp, world.options.end);
    assert.equal(pos.ledger.stored.at(-1)!.timestamp, world.options.end);
  });

  it('pays out exactly 65,000,000 quanta at pow genesis, heavy-tailed, some dormant forever', () => {
    const genesis = blocksOf(pow.items).find((b) => b.height === 0)!;
    const [coinbase, ...transfers] = genesis.transactions;
    assert.equal(coinbase!.value, 65_000_000n * SHOR_PER_QUANTA);
    // What each holder has after the genesis block: the premine keeps what it does not hand out.
    const held = new Map<string, bigint>([[coinbase!.to!, coinbase!.value]]);
    for (const tx of transfers) {
      held.set(tx.from, held.get(tx.from)! - tx.value);
      for (const r of tx.recipients!) held.set(r.to, (held.get(r.to) ?? 0n) + r.amount);
    }
    assert.equal([...held.values()].reduce((a, b) => a + b, 0n), 65_000_000n * SHOR_PER_QUANTA);
    const amounts = [...held.values()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
    assert.ok(amounts[0]! >= 5_000_000n * SHOR_PER_QUANTA, 'a leviathan');
    assert.ok(amounts.filter((a) => a >= 100_000n * SHOR_PER_QUANTA).length >= 10, 'whales');
    const small = amounts.filter((a) => a < 100n * SHOR_PER_QUANTA).length;
    assert.ok(small > amounts.length / 4, `small holders: ${small} of ${amounts.length}`);
    // Touched once, by the genesis transfer that paid them.
    const neverMoved = [...held.keys()].filter((a) => pow.ledger.touches.get(a) === 1);
    assert.ok(neverMoved.length > held.size / 5, 'a share of genesis holders never transact');
  });

  it('leaves the coinbase sentinel its reserve less every reward, as a QRL node does', () => {
    const rewards = blocksOf(pow.items).filter((b) => b.height > 0 && pow.ledger.stored[b.height]?.hash === b.hash).reduce((sum, b) => sum + b.reward, 0n);
    assert.equal(pow.ledger.balances.get(POW_COINBASE_SENTINEL), 105_000_000n * SHOR_PER_QUANTA - 6_656_350_568n - rewards);
  });

  it('builds valid pow addresses with XMSS trees of several heights', () => {
    const heights = new Set<string>();
    for (const address of [...pow.ledger.balances.keys()].slice(0, 3000)) {
      if (address === POW_COINBASE_SENTINEL) continue;
      assert.ok(parseAddress('pow', address).ok, address);
      heights.add(address.slice(3, 5));
    }
    assert.ok(heights.size >= 4, `tree heights: ${[...heights]}`);
    const rng = new Rng(1, 'test');
    for (let i = 0; i < 50; i++) {
      const address = powAddress(rng, 10);
      const bytes = Buffer.from(address.slice(1), 'hex');
      assert.equal(powAddressFromParts(bytes.subarray(0, 3), bytes.subarray(3, 35)), address);
    }
  });

  it('has every pow transaction kind, multi-recipient payouts and slave-signed transactions', () => {
    const txs = blocksOf(pow.items).flatMap((b) => b.transactions);
    const types = new Set(txs.map((t) => t.type));
    for (const type of ['coinbase', 'transfer', 'message', 'token', 'transfer_token', 'slave', 'latticePK']) assert.ok(types.has(type as CanonicalTx['type']), type);
    assert.ok(txs.some((t) => t.type === 'transfer' && t.to === null && t.recipients!.length > 10), 'multi-recipient payouts');
    assert.ok(txs.some((t) => t.signer !== null && t.signer !== t.from), 'slave-signed transactions');
    assert.ok(txs.some((t) => t.type === 'token' && t.tokenTransfers.every((x) => x.from === POW_COINBASE_SENTINEL && x.contract === t.hash)), 'token creation');
    const blocks = blocksOf(pow.items);
    assert.ok(blocks.some((b) => b.tokens.some((tok) => tok.contract === world.describe().pow.token)), 'the system token');
  });

  it('has every pos phenomenon: contracts, internal transfers, reverts, tokens, withdrawals, a moving base fee', () => {
    const blocks = blocksOf(pos.items);
    const txs = blocks.flatMap((b) => b.transactions);
    const types = new Set(txs.map((t) => t.type));
    for (const type of ['transfer', 'contract_call', 'contract_create']) assert.ok(types.has(type as CanonicalTx['type']), type);
    assert.ok(txs.some((t) => t.status === 0), 'reverted transactions');
    assert.ok(txs.some((t) => t.internal.some((i) => i.traceAddress === '0.0')), 'nested internal transfers');
    assert.ok(txs.some((t) => t.tokenTransfers.some((x) => x.from === POS_ZERO_ADDRESS)), 'token mints');
    assert.ok(blocks.some((b) => b.tokens.length > 0), 'tokens');
    assert.ok(blocks.some((b) => b.withdrawals.length > 0), 'withdrawals');
    const fees = blocks.map((b) => b.baseFeePerGas!);
    assert.ok(fees.some((f) => f > 10n ** 9n), 'congestion lifts the base fee above 1 gwei');
    const slots = (blocks.at(-1)!.timestamp - blocks[0]!.timestamp) / 12 + 1;
    const missed = 1 - pos.ledger.stored.length / slots;
    assert.ok(missed > 0.005 && missed < 0.04, `missed slots ${missed}`);
  });

  it('reorganises with depths 1 to 3, orphans first, then the canonical branch from the fork', () => {
    for (const { ledger } of [pow, pos]) {
      assert.ok(ledger.reorgDepths.length >= 3, `${ledger.chain}: ${ledger.reorgDepths.length} reorgs`);
      assert.ok(ledger.reorgDepths.every((d) => d >= 1 && d <= 3), `depths ${ledger.reorgDepths}`);
    }
  });

  it('yields garbled answers (each followed by the block whole) and dead-lettered items', () => {
    assert.ok(pow.ledger.undecodable + pos.ledger.undecodable > 0, 'garbled answers');
    assert.ok([...blocksOf(pow.items), ...blocksOf(pos.items)].some((b) => b.deadLetters.length > 0), 'dead letters');
  });

  it('pairs every pos mint with a pow burn of the same account, x 10^9, later in time', () => {
    const burns = new Map<string, { value: bigint; ts: number }>();
    const migration = world.describe().pow.migrationAddress;
    for (const b of blocksOf(pow.items)) for (const tx of b.transactions) if (tx.migration) {
      assert.equal(tx.migration.role, 'burn');
      assert.equal(tx.to, migration);
      burns.set(tx.migration.accountId, { value: tx.value, ts: b.timestamp });
    }
    let mints = 0;
    for (const b of blocksOf(pos.items)) for (const tx of b.transactions) if (tx.migration) {
      const burn = burns.get(tx.migration.accountId);
      assert.ok(burn, `mint ${tx.migration.accountId} has a burn`);
      assert.equal(tx.value, burn.value * PLANCK_PER_SHOR);
      assert.ok(b.timestamp > burn.ts, 'mint after burn');
      assert.equal(tx.from, POS_ZERO_ADDRESS);
      mints++;
    }
    assert.ok(burns.size > 0 && mints > 0, `${burns.size} burns, ${mints} mints`);
    const settings = new Map(world.curated.settings.filter((s) => s.chain === 'pow').map((s) => [s.key, s.value]));
    assert.equal(settings.get('migration_address'), migration);
    assert.equal(Number(settings.get('migration_cutover_ts')), world.options.migrationCutover);
  });

  it('curates exchanges, pools, treasuries, custodians and the migration address', () => {
    const categories = new Set(world.curated.labels.map((l) => `${l.chain}:${l.category}`));
    for (const c of ['pow:exchange', 'pow:mining_pool', 'pow:treasury', 'pow:custodial', 'pow:migration', 'pos:exchange', 'pos:contract', 'pos:treasury']) assert.ok(categories.has(c), c);
    const roles = new Set(world.curated.exchangeWallets.map((w) => `${w.chain}:${w.role}`));
    for (const r of ['pow:hot', 'pow:cold', 'pow:deposit_relay', 'pos:hot', 'pos:cold', 'pos:deposit_relay']) assert.ok(roles.has(r), r);
    const exchanges = new Set(world.curated.exchangeWallets.map((w) => `${w.chain}:${w.exchange}`));
    assert.ok(exchanges.size >= 4 && exchanges.size <= 8, `${exchanges.size} exchanges`);
    const labelled = new Set(world.curated.labels.map((l) => `${l.chain}:${l.address}`));
    assert.ok(world.curated.exchangeWallets.every((w) => labelled.has(`${w.chain}:${w.address}`)), 'exchange wallets are labelled');
  });

  it('models staking: validators, daily rewards, slashings', () => {
    const { daily, validators } = world.staking;
    assert.equal(daily.length, 3); // 2 days ending at noon touch three calendar days
    assert.ok(daily.every((d) => d.activeValidators > 0 && d.totalStaked > 0n && d.nakamoto33 > 0), 'daily figures');
    assert.ok(validators.some((v) => v.slashed), 'a slashed validator');
    const longer = createSyntheticWorld({ ...BASE, posDays: 60, powDays: 60 });
    assert.ok(longer.staking.daily.some((d) => d.rewards < 0n), 'some days lose');
    assert.ok(longer.staking.daily.reduce((a, d) => a + d.slashings, 0) >= 1, 'slashings');
  });
});

describe('synthetic determinism', () => {
  const small: SyntheticOptions = { ...BASE, powDays: 1, posDays: 0.5 };

  it('gives the same blocks for the same seed and different ones for another', async () => {
    const a = stringify(await collect(createSyntheticWorld(small).pow));
    const b = stringify(await collect(createSyntheticWorld(small).pow));
    const c = stringify(await collect(createSyntheticWorld({ ...small, seed: 8 }).pow));
    assert.ok(a === b, 'same seed, same pow blocks');
    assert.ok(a !== c, 'another seed, other pow blocks');
    const p = stringify(await collect(createSyntheticWorld(small).pos));
    assert.ok(p === stringify(await collect(createSyntheticWorld(small).pos)), 'same seed, same pos blocks');
  });

  for (const chain of ['pow', 'pos'] as const) {
    it(`${chain}: resuming at height h yields the tail of a full run`, async () => {
      const world = createSyntheticWorld(small);
      const full = await collect(world[chain]);
      const heightOf = (item: SourceItem) => (item.kind === 'block' ? item.block.height : item.kind === 'undecodable' ? item.height : -1);
      // The segment of height h (its orphan branch, if a reorg forks there, then canonical h)
      // starts right after the last item of height h - 1: later orphans are all above h - 1.
      const lastIndex = new Map<number, number>();
      full.forEach((item, i) => lastIndex.set(heightOf(item), i));
      const startOf = (h: number) => (h === 0 ? 0 : lastIndex.get(h - 1)! + 1);
      const tip = Math.max(...lastIndex.keys());
      const forks = full.flatMap((item, i) => (i > 0 && heightOf(item) >= 0 && heightOf(item) <= heightOf(full[i - 1]!) ? [heightOf(item)] : []));
      const forkStarts = full.flatMap((item, i) => (i > 0 && heightOf(full[i - 1]!) >= heightOf(item) - 1 && startOf(heightOf(item)) === i && full[lastIndex.get(heightOf(item))!] !== item ? [heightOf(item)] : []));
      const candidates = [1, 137, Math.floor(tip / 2), tip, ...forks.slice(0, 2), ...forkStarts.slice(0, 2)];
      assert.ok(forks.length > 0, 'the run has reorgs to resume around');
      for (const h of candidates) {
        const resumed = await collect(createSyntheticWorld(small)[chain], h);
        const expected = full.slice(startOf(h));
        assert.equal(resumed.length, expected.length, `resume at ${h}: item count`);
        assert.ok(stringify(resumed) === stringify(expected), `resume at ${h}: items differ`);
      }
      const fifth = full[lastIndex.get(5)!]!;
      assert.equal(await world[chain].hashAt!(5), fifth.kind === 'block' ? fifth.block.hash : (fifth as { payload: { hash: string } }).payload.hash);
    });
  }

  it('keeps the canonical branch identical with reorgs on or off', async () => {
    const canonical = (items: SourceItem[]) => {
      const byHeight = new Map<number, string>();
      for (const item of items) if (item.kind === 'block') byHeight.set(item.block.height, item.block.hash);
      return [...byHeight.values()];
    };
    const withReorgs = canonical(await collect(createSyntheticWorld({ ...small, malformedEvery: 0 }).pow));
    const without = canonical(await collect(createSyntheticWorld({ ...small, malformedEvery: 0, reorgEvery: 0 }).pow));
    assert.deepEqual(withReorgs, without);
  });
});

describe('synthetic busiest address', () => {
  it('is the largest exchange hot wallet, by far', async () => {
    const world = createSyntheticWorld({ seed: 3, end: END, powDays: 1, posDays: 1, scale: 6000, reorgEvery: 0 });
    for (const chain of ['pow', 'pos'] as const) {
      const { ledger } = await replay(world, chain);
      const ranked = [...ledger.touches.entries()].filter(([a]) => a !== POW_COINBASE_SENTINEL && a !== POS_ZERO_ADDRESS).sort((a, b) => b[1] - a[1]);
      assert.equal(ranked[0]![0], world.describe()[chain].busiestHotWallet, `${chain}: busiest is ${ranked[0]![0]}`);
      assert.ok(ranked[0]![1] >= 1.5 * ranked[1]![1], `${chain}: ${ranked[0]![1]} vs ${ranked[1]![1]}`);
    }
  });
});

describe('synthetic mainnet-shaped pow history', () => {
  const genesis = MAINNET_POW_GENESIS.getTime() / 1000;
  const shaped: SyntheticOptions = { seed: 7, powGenesis: MAINNET_POW_GENESIS, powDays: 3, posDays: 1, scale: 3000, powCoinbaseOnlyShare: 0.8, reorgEvery: 0 };
  const powBlocks = async (options: SyntheticOptions) => blocksOf(await collect(createSyntheticWorld(options).pow));

  it('starts at mainnet genesis with 60 s blocks, and carries only a coinbase in the share of blocks asked for', async () => {
    const world = createSyntheticWorld(shaped);
    const { items } = await replay(world, 'pow');
    const blocks = blocksOf(items);
    assert.equal(blocks.length, 3 * 1440 + 1);
    assert.equal(blocks[0]!.timestamp, genesis);
    assert.equal(blocks.at(-1)!.timestamp, genesis + 3 * 1440 * 60);
    assert.equal(world.options.end, genesis + 3 * 1440 * 60);
    for (const b of blocks.slice(1, -1)) assert.ok(Math.abs(b.timestamp - (genesis + 60 * b.height)) <= 29, `block ${b.height} at ${b.timestamp}`);
    const coinbaseOnly = blocks.filter((b) => b.height > 0 && b.transactions.length === 1).length / (blocks.length - 1);
    assert.ok(Math.abs(coinbaseOnly - 0.8) <= 0.04, `coinbase-only share ${coinbaseOnly}`);
    assert.ok(blocks.some((b) => b.height === 3 && b.tokens.some((t) => t.contract === world.describe().pow.token)), 'the system token');
    // `scale` stays the daily mean: the same order of transactions as without coinbase-only blocks.
    const userTxs = (list: CanonicalBlock[]) => list.reduce((n, b) => n + b.transactions.length - 1, 0);
    const plain = userTxs(await powBlocks({ ...shaped, powCoinbaseOnlyShare: 0 }));
    assert.ok(Math.abs(userTxs(blocks) / plain - 1) <= 0.2, `${userTxs(blocks)} transactions against ${plain} without coinbase-only blocks`);
  });

  it('is deterministic, and a resumed run yields the tail of a full run', async () => {
    const full = await collect(createSyntheticWorld(shaped).pow);
    assert.ok(stringify(full) === stringify(await collect(createSyntheticWorld(shaped).pow)), 'same seed, same blocks');
    assert.ok(stringify(full) !== stringify(await collect(createSyntheticWorld({ ...shaped, powCoinbaseOnlyShare: 0.5 }).pow)), 'another share, other blocks');
    // Without reorgs item i is height i (and the last item says the source caught up).
    for (const h of [1, 4, 1000, 3 * 1440]) {
      const resumed = await collect(createSyntheticWorld(shaped).pow, h);
      assert.ok(stringify(resumed) === stringify(full.slice(h)), `resume at ${h}`);
    }
  });

  it('rejects a share outside [0, 1) and an end next to a genesis time', () => {
    assert.throws(() => createSyntheticWorld({ ...shaped, powCoinbaseOnlyShare: 1 }), RangeError);
    assert.throws(() => createSyntheticWorld({ ...shaped, powCoinbaseOnlyShare: -0.1 }), RangeError);
    assert.throws(() => createSyntheticWorld({ ...shaped, end: END }), RangeError);
  });
});

describe('synthetic pow multi-signature addresses and one-time key reuses', () => {
  const options: SyntheticOptions = { ...BASE, reorgEvery: 0, malformedEvery: 0, powMultiSig: 2, powOtsReuses: 3 };

  it('makes the multisig addresses and key reuses asked for, by QRL\'s rules', async () => {
    const blocks = blocksOf(await collect(createSyntheticWorld(options).pow));
    const txs = blocks.flatMap((b) => b.transactions.map((tx) => ({ tx, height: b.height })));
    const creates = txs.filter(({ tx }) => tx.type === 'multi_sig_create');
    assert.equal(creates.length, 2);
    const made = new Map<string, { signatories: string[]; received: bigint }>();
    for (const { tx } of creates) {
      const body = tx.multiSig!;
      assert.ok(body.kind === 'create');
      // QRL's derivation, by hand: descriptor 110000, SHA-256(descriptor + hash), checksum.
      const descriptor = Buffer.from('110000', 'hex');
      assert.equal(body.address, powAddressFromParts(descriptor, createHash('sha256').update(Buffer.concat([descriptor, Buffer.from(tx.hash, 'hex')])).digest()));
      const weights = body.signatories.map((s) => s.weight);
      assert.ok(body.signatories.length >= 2 && new Set(body.signatories.map((s) => s.address)).size === body.signatories.length, 'distinct signatories');
      assert.ok(body.threshold > Math.max(...weights) && body.threshold <= weights.reduce((a, b) => a + b, 0), `threshold ${body.threshold} of ${weights}`);
      assert.ok(body.signatories.some((s) => s.address === tx.from), 'made by a signatory');
      made.set(body.address, { signatories: body.signatories.map((s) => s.address), received: 0n });
    }
    // A spend is proposed by a signatory within what the address received; votes name its spends.
    const spends = new Map<string, string>();
    for (const { tx, height } of txs) {
      for (const r of tx.type === 'transfer' ? (tx.recipients ?? []) : []) if (made.has(r.to)) made.get(r.to)!.received += r.amount;
      if (tx.multiSig?.kind === 'spend') {
        const ms = made.get(tx.multiSig.multiSigAddress)!;
        assert.ok(ms.signatories.includes(tx.from), `${tx.hash}: proposed by a signatory`);
        assert.ok(tx.multiSig.recipients.reduce((sum, r) => sum + r.amount, 0n) <= ms.received, `${tx.hash}: within what the address received`);
        assert.ok(tx.multiSig.expiryHeight > height, `${tx.hash}: expires above its block`);
        assert.equal(tx.to, tx.multiSig.multiSigAddress);
        spends.set(tx.hash, tx.multiSig.multiSigAddress);
      }
      if (tx.multiSig?.kind === 'vote') {
        assert.ok(made.get(spends.get(tx.multiSig.sharedKey)!)!.signatories.includes(tx.from), `${tx.hash}: a signatory votes`);
        assert.equal(tx.input, tx.multiSig.sharedKey);
      }
    }
    assert.ok(spends.size >= 4, `${spends.size} spends`);
    // Every signature takes its key's next index, but the reuses: an index the key signed with before.
    const next = new Map<string, number>();
    let reuses = 0;
    for (const { tx } of txs) {
      if (tx.otsIndex === null) continue;
      const key = tx.signer ?? tx.from;
      const n = next.get(key) ?? 0;
      if (tx.otsIndex === n) next.set(key, n + 1);
      else {
        assert.ok(tx.otsIndex < n, `${tx.hash}: index ${tx.otsIndex}, ${n} expected or a used one`);
        reuses++;
      }
    }
    assert.equal(reuses, 3);
  });

  it('rejects counts that are not whole numbers of at least 0', () => {
    assert.throws(() => createSyntheticWorld({ ...options, powMultiSig: -1 }), RangeError);
    assert.throws(() => createSyntheticWorld({ ...options, powOtsReuses: 1.5 }), RangeError);
  });
});
