/**
 * The pow chain: 60-second blocks with jitter, a coinbase first in every block (reward from the
 * real emission curve plus the block's fees), mining pools paying their miners in multi-recipient
 * transfers, users, exchanges (deposit relays forwarding to hot wallets, withdrawals, hot/cold
 * rebalancing), slave keys, messages, tokens, lattice keys, and the burn leg of migrations.
 *
 * Every sender signs with an XMSS one-time key: the signing address's next OTS index, never reused;
 * busy entities sign with slave keys they registered (from = master, signer = slave).
 */
import { POW_COINBASE_SENTINEL } from '../../chain/chains.ts';
import type { CanonicalBlock, CanonicalTx, TokenTransfer, TxType } from '../../chain/model.ts';
import { createPowEmissionCursor, powBlockReward, type PowEmissionCursor } from '../../chain/pow-emission.ts';
import { DEPOSIT_SHARE, userTreeHeight, type ExchangePlan } from './actors.ts';
import { ActivityCurve } from './activity.ts';
import { ChainRun, NONE, newTx, own } from './generator.ts';
import { powAddress, powHash, randomHex, utf8Hex } from './hex.ts';
import { Ledger, Role, Tier, isCustomer } from './ledger.ts';
import { POW_BLOCK_SECONDS } from './options.ts';
import { FOREVER, Population, lifetimeDays, newUserTier } from './population.ts';
import { Rng, coins, coinsMilli, fractionOf } from './rng.ts';
import type { WorldPlan } from './world-plan.ts';

const SHOR = 10n ** 9n;
const SLAVE_TREE_HEIGHT = 12;
/** Typical fees in shor: mostly 0.001 quanta, sometimes more or less. */
const FEES = [1_000_000n, 1_000_000n, 1_000_000n, 1_000_000n, 2_000_000n, 5_000_000n, 10_000_000n, 100_000n, 500_000n, 50_000_000n];
/** Approximate serialized sizes: an XMSS signature and public key dominate every transaction. */
const TX_BASE_SIZE = 2_600;
const RECIPIENT_SIZE = 47;
const COINBASE_SIZE = 180;
const BLOCK_HEADER_SIZE = 450;

/** The random activity model's actions and their shares (scheduled transactions come on top, within the budget). */
const ACTIONS = ['p2p', 'p2pMulti', 'airdrop', 'deposit', 'withdraw', 'message', 'tokenTransfer', 'tokenCreate', 'latticePK', 'slave', 'whale', 'grant'] as const;
type Action = (typeof ACTIONS)[number];
const ACTION_WEIGHTS: Record<Action, number> = {
  p2p: 0.42,
  p2pMulti: 0.05,
  airdrop: 0.001,
  deposit: DEPOSIT_SHARE,
  withdraw: 0.16,
  message: 0.025,
  tokenTransfer: 0.05,
  tokenCreate: 0.0015,
  latticePK: 0.008,
  slave: 0.004,
  whale: 0.0015,
  grant: 0.002,
};
const ACTION_CUMULATIVE = ACTIONS.reduce<number[]>((acc, a) => [...acc, (acc.at(-1) ?? 0) + ACTION_WEIGHTS[a]], []);

const MESSAGES = ['gm', 'to the moon', 'quantum safe', 'hello from the chain', 'paid invoice #', 'thanks!', 'lunch', 'rent', 'XMSS ftw', 'order '];
const TOKEN_WORDS = ['Ore', 'Lattice', 'Shard', 'Quartz', 'Nexus', 'Vertex', 'Cipher', 'Merkle', 'Ember', 'Drift', 'Pulse', 'Atlas'];

interface ExchangeState {
  plan: ExchangePlan;
  index: number;
  relayNext: number;
}

interface PoolState {
  id: number;
  members: number[];
  nextPayout: number;
}

interface SlaveSet {
  slaves: number[];
  cursor: number;
}

interface PowToken {
  hash: string;
  holders: number[];
  balances: Map<number, bigint>;
}

export class PowRun extends ChainRun {
  private readonly rng: Rng;
  private readonly pop: Population;
  private readonly emission: PowEmissionCursor;
  private readonly activity: ActivityCurve;
  private readonly exchanges: ExchangeState[];
  private readonly exchangeCumulative: number[];
  private readonly pools: PoolState[];
  private readonly minerCumulative: number[];
  private readonly miners: number[];
  private readonly slaveMasters = new Map<number, SlaveSet>();
  private readonly tokens: PowToken[] = [];
  private readonly floors = new Map<number, bigint>();
  private readonly forwardsDue = new Map<number, number[]>();
  private readonly forwardPending = new Set<number>();
  private migrationCursor = 0;
  private day = -1;
  private debt = 0;
  // The block being built.
  private txs: CanonicalTx[] = [];
  private fees = 0n;
  private size = 0;

  constructor(private readonly world: WorldPlan) {
    const options = world.options;
    super('pow', options, new Ledger(false), options.powLastHeight);
    this.rng = new Rng(options.seed, 'pow', 'canonical');
    this.pop = new Population(this.ledger);
    this.emission = createPowEmissionCursor(0);
    this.activity = new ActivityCurve(options.seed, 'pow', options.powStart, options.end);
    const plan = world.pow;
    for (const account of plan.accounts) {
      const id = this.ledger.create(account.address, account.role, account.signatures);
      this.pop.join(id, account.tier, account.retireDay);
    }
    this.exchanges = plan.exchanges.map((e, index) => {
      for (const relay of e.relays) this.ledger.link[relay] = index;
      for (const hot of e.hot) this.slaveMasters.set(hot, { slaves: [], cursor: 0 });
      return { plan: e, index, relayNext: 0 };
    });
    this.exchangeCumulative = cumulative(plan.exchanges.map((e) => e.share));
    this.pools = plan.pools.map((p) => {
      this.slaveMasters.set(p.id, { slaves: [], cursor: 0 });
      return { id: p.id, members: [], nextPayout: 60 + this.rng.int(120) };
    });
    this.miners = [...plan.pools.map((p) => p.id), ...plan.soloMiners];
    const soloShare = 1 - plan.pools.reduce((a, p) => a + p.share, 0);
    this.minerCumulative = cumulative([...plan.pools.map((p) => p.share), ...plan.soloMiners.map(() => soloShare / plan.soloMiners.length)]);
    // Named whales stay whales, treasuries keep half of their genesis.
    plan.whales.forEach((w, i) => this.floors.set(w, i === 0 ? 5_050_000n * SHOR : maxBig(plan.accounts[w]!.genesis / 2n, 100_500n * SHOR)));
    for (const t of plan.treasury) this.floors.set(t, plan.accounts[t]!.genesis / 2n);
  }

  private timestamp(height: number): number {
    const { powStart, end } = this.options;
    if (height === 0) return powStart;
    if (height === this.lastHeight) return end;
    return powStart + height * POW_BLOCK_SECONDS + this.rng.range(-29, 29);
  }

  protected skip(height: number) {
    const timestamp = this.timestamp(height);
    this.emission.next();
    const due = this.forwardsDue.get(height);
    if (due) {
      this.forwardsDue.delete(height);
      this.scheduleForwards(height + 1, due);
    }
    const hash = powHash(this.rng);
    return { hash, timestamp, payload: { hash, parentHash: this.parentHash, timestamp, raw: randomHex(this.rng, 24) } };
  }

  protected produce(height: number): CanonicalBlock {
    const ts = this.timestamp(height);
    const reward = this.emission.next();
    this.startDay(ts);
    this.txs = [];
    this.fees = 0n;
    this.size = BLOCK_HEADER_SIZE + COINBASE_SIZE;
    const block: CanonicalBlock = {
      chain: 'pow',
      height,
      hash: powHash(this.rng),
      parentHash: height === 0 ? '0'.repeat(64) : this.parentHash,
      timestamp: ts,
      size: 0,
      miner: null,
      reward,
      gasUsed: null,
      gasLimit: null,
      baseFeePerGas: null,
      transactions: this.txs,
      withdrawals: NONE,
      allocations: NONE,
      tokens: NONE,
      deadLetters: NONE,
    };
    if (height === 0) {
      block.allocations = this.world.pow.accounts
        .map((a, id) => ({ id, address: a.address, amount: a.genesis }))
        .filter((a) => a.amount > 0n)
        .map(({ id, address, amount }) => {
          this.ledger.credit(id, amount);
          return { address, amount };
        });
      // Like every block, genesis opens with a coinbase (it pays nothing).
      const coinbase = newTx(powHash(this.rng), 0, 'coinbase', POW_COINBASE_SENTINEL);
      coinbase.to = this.ledger.address[this.world.pow.treasury[0]!]!;
      this.txs.push(coinbase);
      block.miner = coinbase.to;
      block.size = BLOCK_HEADER_SIZE + COINBASE_SIZE + block.allocations.length * 47;
      return block;
    }
    this.txs.push(null as unknown as CanonicalTx); // the coinbase, once fees are known
    const scheduledBefore = this.txs.length;
    if (height === Math.min(3, this.lastHeight)) this.createSystemToken(block);
    this.migrationBurns(ts);
    this.forwards(height);
    this.poolPayouts(height);
    if (height % 30 === 0) this.rebalanceExchanges();
    this.debt += this.txs.length - scheduledBefore;
    let count = this.rng.poisson((this.options.scale * this.activity.factor(ts) * POW_BLOCK_SECONDS) / 86_400);
    const paid = Math.min(count, this.debt);
    count -= paid;
    this.debt -= paid;
    for (let i = 0; i < count; i++) {
      const action = ACTIONS[this.rng.weighted(ACTION_CUMULATIVE)]!;
      if (!this.act(action, block) && action !== 'p2p') this.act('p2p', block);
    }
    if (this.deadLetterDue) {
      const hash = powHash(this.rng);
      block.deadLetters = own(block.deadLetters);
      block.deadLetters.push({ item: hash, error: 'synthetic: transaction does not decode', payload: { hash, raw: randomHex(this.rng, 12) } });
    }
    const miner = this.miners[this.rng.weighted(this.minerCumulative)]!;
    const coinbase = newTx(powHash(this.rng), 0, 'coinbase', POW_COINBASE_SENTINEL);
    coinbase.to = this.ledger.address[miner]!;
    coinbase.value = reward + this.fees;
    this.txs[0] = coinbase;
    this.ledger.credit(miner, reward + this.fees);
    block.miner = coinbase.to;
    block.size = this.size;
    return block;
  }

  protected produceOrphan(height: number, parentHash: string, parentTs: number, _previous: CanonicalBlock | null, rng: Rng): CanonicalBlock {
    const txs: CanonicalTx[] = [];
    let fees = 0n;
    const count = rng.int(4);
    for (let i = 0; i < count; i++) {
      const from = this.pop.pick(rng);
      const to = this.pop.pick(rng);
      const fee = FEES[rng.int(FEES.length)]!;
      if (from < 0 || to < 0 || from === to || this.slaveMasters.has(from) || !this.ledger.canSign(from)) continue;
      const balance = this.ledger.balance[from]!;
      if (balance <= fee + 1n) continue;
      const amount = 1n + fractionOf(balance - fee - 1n, rng.float() * 0.5);
      const tx = newTx(powHash(rng), txs.length + 1, 'transfer', this.ledger.address[from]!);
      tx.to = this.ledger.address[to]!;
      tx.value = amount;
      tx.recipients = [{ to: tx.to, amount }];
      tx.fee = fee;
      tx.otsIndex = this.ledger.useCounter(from);
      this.ledger.debit(from, amount + fee);
      this.ledger.credit(to, amount);
      fees += fee;
      txs.push(tx);
    }
    const miner = this.miners[rng.int(this.miners.length)]!;
    const reward = powBlockReward(height);
    const coinbase = newTx(powHash(rng), 0, 'coinbase', POW_COINBASE_SENTINEL);
    coinbase.to = this.ledger.address[miner]!;
    coinbase.value = reward + fees;
    this.ledger.credit(miner, reward + fees);
    return {
      chain: 'pow',
      height,
      hash: powHash(rng),
      parentHash,
      timestamp: parentTs + 20 + rng.int(80),
      size: BLOCK_HEADER_SIZE + COINBASE_SIZE + txs.length * (TX_BASE_SIZE + RECIPIENT_SIZE),
      miner: coinbase.to,
      reward,
      gasUsed: null,
      gasLimit: null,
      baseFeePerGas: null,
      transactions: [coinbase, ...txs],
      withdrawals: NONE,
      allocations: NONE,
      tokens: NONE,
      deadLetters: NONE,
    };
  }

  private startDay(ts: number): void {
    const day = this.activity.day(ts);
    while (this.day < day) {
      this.day++;
      this.pop.retireBefore(this.day);
    }
  }

  // ---- accounts ----

  private newUser(tier: Tier = newUserTier(this.rng, 0.35)): number {
    const height = userTreeHeight(this.rng, tier);
    const id = this.ledger.create(powAddress(this.rng, height), Role.User, 2 ** height);
    this.pop.join(id, tier, tier === Tier.None ? FOREVER : this.day + lifetimeDays(this.rng, tier));
    return id;
  }

  /** An existing active account (not `exclude`), or a new one with probability `pNew`. */
  private recipient(pNew: number, exclude: number): number {
    if (!this.rng.chance(pNew)) {
      const id = this.pop.pick(this.rng);
      if (id >= 0 && id !== exclude) return id;
    }
    return this.newUser();
  }

  /** An active account that can sign and holds at least `min` shor, or -1. */
  private sender(min: bigint): number {
    for (let tries = 0; tries < 8; tries++) {
      const id = this.pop.pick(this.rng);
      if (id >= 0 && this.ledger.balance[id]! >= min && this.canSign(id)) return id;
    }
    return -1;
  }

  private canSign(id: number): boolean {
    return this.slaveMasters.has(id) || this.ledger.canSign(id);
  }

  private fee(recipients = 1): bigint {
    const base = FEES[this.rng.int(FEES.length)]!;
    return recipients > 1 ? base * BigInt(1 + Math.floor(recipients / 10)) : base;
  }

  // ---- signing ----

  /** The account that signs for `from` (a slave when `from` has them), registering new slaves when all are used up; -1 if none can. */
  private signerFor(from: number): number {
    const set = this.slaveMasters.get(from);
    if (!set) return this.ledger.canSign(from) ? from : -1;
    while (set.slaves.length > 0) {
      const i = set.cursor++ % set.slaves.length;
      const slave = set.slaves[i]!;
      if (this.ledger.canSign(slave)) return slave;
      set.slaves.splice(i, 1);
    }
    const fee = this.fee();
    if (!this.ledger.canSign(from) || this.ledger.balance[from]! < fee * 2n) return -1;
    const count = this.ledger.role[from] === Role.User ? 1 + this.rng.int(3) : 4 + this.rng.int(12);
    this.registerSlaves(from, count, fee);
    return set.slaves[0]!;
  }

  private registerSlaves(master: number, count: number, fee: bigint): void {
    const set = this.slaveMasters.get(master) ?? { slaves: [], cursor: 0 };
    this.slaveMasters.set(master, set);
    const tx = this.begin('slave', master, master, fee);
    tx.slaves = own(tx.slaves);
    for (let i = 0; i < count; i++) {
      const slave = this.ledger.create(powAddress(this.rng, SLAVE_TREE_HEIGHT), Role.Slave, 2 ** SLAVE_TREE_HEIGHT);
      set.slaves.push(slave);
      tx.slaves.push({ slave: this.ledger.address[slave]!, accessType: 0 });
    }
    this.size += count * 100;
  }

  /**
   * Starts a signed transaction: takes the signer's next OTS index, charges `fee + value` to
   * `from` in one step, and appends the transaction to the block.
   */
  private begin(type: TxType, from: number, signer: number, fee: bigint, value = 0n): CanonicalTx {
    const tx = newTx(powHash(this.rng), this.txs.length, type, this.ledger.address[from]!);
    tx.fee = fee;
    tx.value = value;
    tx.otsIndex = this.ledger.useCounter(signer);
    if (signer !== from) {
      tx.signer = this.ledger.address[signer]!;
      tx.masterAddr = tx.from;
    }
    this.ledger.debit(from, fee + value);
    this.fees += fee;
    this.size += TX_BASE_SIZE;
    this.txs.push(tx);
    return tx;
  }

  /** A transfer to one recipient; null (nothing happens) if `from` cannot afford or sign it. */
  private transfer1(from: number, to: number, amount: bigint, fee: bigint): CanonicalTx | null {
    const cost = amount + fee;
    if (amount <= 0n || this.ledger.balance[from]! < cost) return null;
    const signer = this.signerFor(from);
    // Registering slaves (inside signerFor) costs a fee: check again.
    if (signer < 0 || (signer !== from && this.ledger.balance[from]! < cost)) return null;
    const tx = this.begin('transfer', from, signer, fee, amount);
    const address = this.ledger.address[to]!;
    tx.to = address;
    tx.recipients = [{ to: address, amount }];
    this.ledger.credit(to, amount);
    this.size += RECIPIENT_SIZE;
    return tx;
  }

  /** A transfer to one or more recipients; null (nothing happens) if `from` cannot afford or sign it. */
  private transfer(from: number, to: number[], amounts: bigint[], fee: bigint): CanonicalTx | null {
    if (to.length === 1) return this.transfer1(from, to[0]!, amounts[0]!, fee);
    let total = 0n;
    for (const a of amounts) {
      if (a <= 0n) return null;
      total += a;
    }
    if (this.ledger.balance[from]! < total + fee) return null;
    const signer = this.signerFor(from);
    if (signer < 0 || this.ledger.balance[from]! < total + fee) return null;
    const tx = this.begin('transfer', from, signer, fee, total);
    tx.recipients = to.map((id, i) => ({ to: this.ledger.address[id]!, amount: amounts[i]! }));
    for (let i = 0; i < to.length; i++) this.ledger.credit(to[i]!, amounts[i]!);
    this.size += RECIPIENT_SIZE * to.length;
    return tx;
  }

  // ---- amounts ----

  /** What a user sends out of `available` shor: fractions, round amounts, everything, or dust. */
  private userAmount(available: bigint): bigint {
    if (available <= 0n) return 0n;
    const x = this.rng.float();
    let amount: bigint;
    if (x < 0.45) amount = fractionOf(available, this.rng.float() ** 2.5);
    else if (x < 0.7) amount = coins(10 ** (this.rng.float() * 4), SHOR);
    else if (x < 0.85) amount = available;
    else if (x < 0.96) amount = coinsMilli(100 + this.rng.int(10_000), SHOR);
    else amount = BigInt(1 + this.rng.int(1_000_000));
    if (amount > available) amount = fractionOf(available, this.rng.float());
    return amount > 0n ? amount : 1n;
  }

  // ---- actions ----

  private act(action: Action, block: CanonicalBlock): boolean {
    switch (action) {
      case 'p2p':
        return this.p2p(1, 0.18);
      case 'p2pMulti':
        return this.p2p(2 + Math.min(98, Math.floor(this.rng.pareto(1, 1.3)) * 2), 0.1);
      case 'airdrop':
        return this.airdrop();
      case 'deposit':
        return this.deposit(-1, 0n);
      case 'withdraw':
        return this.withdraw();
      case 'message':
        return this.message();
      case 'tokenTransfer':
        return this.tokenTransfer();
      case 'tokenCreate':
        return this.tokenCreate(block);
      case 'latticePK':
        return this.simple('latticePK');
      case 'slave':
        return this.userSlaves();
      case 'whale':
        return this.whaleMove();
      case 'grant':
        return this.grant();
    }
  }

  private p2p(recipients: number, pNew: number): boolean {
    const fee = this.fee(recipients);
    const from = this.sender(fee + 1n);
    if (from < 0) return false;
    const available = this.ledger.balance[from]! - fee;
    if (recipients === 1) return this.transfer1(from, this.recipient(pNew, from), this.userAmount(available), fee) !== null;
    const to: number[] = [];
    const amounts: bigint[] = [];
    const total = fractionOf(available, 0.05 + 0.9 * this.rng.float());
    if (total <= 0n) return false;
    for (let i = 0; i < recipients; i++) to.push(this.recipient(pNew, from));
    splitInto(amounts, total, recipients, this.rng);
    return this.transfer(from, to, amounts, fee) !== null;
  }

  /** Dust to many fresh addresses at once (promotions, faucets, spam). */
  private airdrop(): boolean {
    const count = 10 + this.rng.int(91);
    const fee = this.fee(count);
    const each = BigInt(1 + this.rng.int(100_000));
    const from = this.sender(fee + each * BigInt(count));
    if (from < 0) return false;
    const to = Array.from({ length: count }, () => this.recipient(0.9, from));
    return this.transfer(from, to, to.map(() => each), fee) !== null;
  }

  private pickExchange(): ExchangeState {
    return this.exchanges[this.rng.weighted(this.exchangeCumulative)]!;
  }

  /** A customer pays into its deposit relay at its exchange; the relay forwards later. */
  private deposit(customer: number, amount: bigint): boolean {
    const fee = this.fee();
    const from = customer >= 0 ? customer : this.sender(fee + SHOR);
    if (from < 0) return false;
    let relay = this.ledger.link[from]!;
    const keepsRelay = isCustomer(this.ledger.role[from]!);
    if (relay < 0 || !keepsRelay) {
      const exchange = this.pickExchange();
      const relays = exchange.plan.relays;
      relay = exchange.relayNext < relays.length ? relays[exchange.relayNext++]! : relays[this.rng.int(relays.length)]!;
      if (keepsRelay) this.ledger.link[from] = relay;
    }
    const available = this.ledger.balance[from]! - fee;
    const value = amount > 0n ? amount : this.rng.chance(0.55) ? available : fractionOf(available, 0.3 + 0.65 * this.rng.float());
    if (value <= 0n || !this.transfer1(from, relay, value, fee)) return false;
    if (!this.forwardPending.has(relay)) {
      this.forwardPending.add(relay);
      this.scheduleForwards(this.height + 1 + Math.floor(this.rng.exponential(30)), [relay]);
    }
    return true;
  }

  private scheduleForwards(height: number, relays: number[]): void {
    const list = this.forwardsDue.get(height);
    if (list) list.push(...relays);
    else this.forwardsDue.set(height, [...relays]);
  }

  /** Relays due now pass everything they hold to their exchange's hot wallet. */
  private forwards(height: number): void {
    const due = this.forwardsDue.get(height);
    if (!due) return;
    this.forwardsDue.delete(height);
    for (const relay of due) {
      this.forwardPending.delete(relay);
      const exchange = this.exchanges[this.ledger.link[relay]!]!;
      const hot = exchange.plan.hot.length > 1 && this.rng.chance(0.1) ? exchange.plan.hot[1]! : exchange.plan.hot[0]!;
      const fee = this.fee();
      const value = this.ledger.balance[relay]! - fee;
      if (value > 0n) this.transfer1(relay, hot, value, fee);
    }
  }

  private withdraw(): boolean {
    const exchange = this.pickExchange();
    const hot = exchange.plan.hot.length > 1 && this.rng.chance(0.1) ? exchange.plan.hot[1]! : exchange.plan.hot[0]!;
    const batch = this.rng.chance(0.08) ? 2 + this.rng.int(24) : 1;
    const fee = this.fee(batch);
    const available = this.ledger.balance[hot]! - fee;
    if (available <= 0n) return false;
    const cap = available / BigInt(4 * batch);
    if (batch === 1) {
      const amount = coinsMilli(10 ** (this.rng.float() ** 1.3 * 4.3) * 1000, SHOR);
      return this.transfer1(hot, this.recipient(0.3, hot), amount < cap ? amount : cap, fee) !== null;
    }
    const to: number[] = [];
    const amounts: bigint[] = [];
    for (let i = 0; i < batch; i++) {
      to.push(this.recipient(0.3, hot));
      const amount = coinsMilli(10 ** (this.rng.float() ** 1.3 * 4.3) * 1000, SHOR);
      amounts.push(amount < cap ? amount : cap);
    }
    if (amounts.some((a) => a <= 0n)) return false;
    return this.transfer(hot, to, amounts, fee) !== null;
  }

  /** Keeps each hot wallet near its working balance by moving coins from or to cold storage. */
  private rebalanceExchanges(): void {
    for (const exchange of this.exchanges) {
      const cold = exchange.plan.cold[0]!;
      for (const hot of exchange.plan.hot) {
        const target = maxBig(this.world.pow.accounts[hot]!.genesis, 1_000n * SHOR);
        const balance = this.ledger.balance[hot]!;
        const fee = this.fee();
        if (balance < (target * 3n) / 10n) {
          const source = exchange.plan.cold.reduce((best, c) => (this.ledger.balance[c]! > this.ledger.balance[best]! ? c : best), cold);
          const amount = minBig(target - balance, this.ledger.balance[source]! - fee);
          if (amount > 0n) this.transfer1(source, hot, amount, fee);
        } else if (balance > target * 3n) {
          this.transfer1(hot, cold, balance - target - fee, fee);
        }
      }
    }
  }

  private poolPayouts(height: number): void {
    for (const pool of this.pools) {
      if (height < pool.nextPayout) continue;
      pool.nextPayout = height + 90 + this.rng.int(60);
      const reserve = 1_000n * SHOR;
      const count = Math.min(100, 5 + Math.floor(this.rng.pareto(1, 1.1) * 4));
      const fee = this.fee(count);
      const available = this.ledger.balance[pool.id]! - reserve - fee;
      if (available < 20n * SHOR) continue;
      while (pool.members.length < count || this.rng.chance(0.3)) pool.members.push(this.newUser(this.rng.chance(0.6) ? Tier.Regular : Tier.Casual));
      const start = this.rng.int(pool.members.length);
      const to = Array.from({ length: count }, (_, i) => pool.members[(start + i) % pool.members.length]!);
      const amounts: bigint[] = [];
      splitInto(amounts, fractionOf(available, 0.98), count, this.rng);
      this.transfer(pool.id, to, amounts, fee);
    }
  }

  private migrationBurns(ts: number): void {
    const plan = this.world.migrations;
    const migrationAddress = this.world.pow.migration;
    while (this.migrationCursor < plan.length && plan[this.migrationCursor]!.burnTs <= ts) {
      const item = plan[this.migrationCursor++]!;
      const fee = this.fee();
      const need = item.amountShor + fee;
      let from = -1;
      for (let tries = 0; tries < 40 && from < 0; tries++) {
        const id = tries % 4 === 3 ? this.pop.pickFrom(this.rng, Tier.Whale) : this.pop.pick(this.rng);
        if (id >= 0 && this.ledger.balance[id]! >= need + (this.floors.get(id) ?? 0n) && this.canSign(id)) from = id;
      }
      // Holders that can always afford it: the plan caps the total burn well below their balances.
      if (from < 0) from = [...this.world.pow.treasury, ...this.world.pow.custodial].find((id) => this.ledger.balance[id]! >= need && this.canSign(id)) ?? -1;
      if (from < 0) throw new Error(`synthetic pow: no holder can afford migration ${item.accountId}`);
      const tx = this.transfer1(from, migrationAddress, item.amountShor, fee);
      if (!tx) throw new Error(`synthetic pow: migration ${item.accountId} could not be signed`);
      tx.migration = { accountId: item.accountId, role: 'burn' };
    }
  }

  private message(): boolean {
    const fee = this.fee();
    const from = this.sender(fee);
    const signer = from < 0 ? -1 : this.signerFor(from);
    if (signer < 0 || this.ledger.balance[from]! < fee) return false;
    const tx = this.begin('message', from, signer, fee);
    const text = this.rng.pick(MESSAGES) + (this.rng.chance(0.5) ? String(this.rng.int(100_000)) : '');
    tx.input = utf8Hex(text);
    return true;
  }

  /** A transaction that only costs a fee (latticePK). */
  private simple(type: TxType): boolean {
    const fee = this.fee();
    const from = this.sender(fee);
    const signer = from < 0 ? -1 : this.signerFor(from);
    if (signer < 0 || this.ledger.balance[from]! < fee) return false;
    this.begin(type, from, signer, fee);
    return true;
  }

  private userSlaves(): boolean {
    const fee = this.fee();
    const from = this.sender(fee * 3n);
    if (from < 0 || this.slaveMasters.has(from) || !this.ledger.canSign(from)) return false;
    this.registerSlaves(from, 1 + this.rng.int(3), fee);
    return true;
  }

  private createSystemToken(block: CanonicalBlock): void {
    const plan = this.world.pow;
    const creator = plan.treasury[1]!;
    const holders = [plan.tokenHolder, plan.ordinary, ...plan.whales.slice(2, 6)];
    const shares = [50n, 5n, 10n, 10n, 10n, 10n];
    this.mintToken(block, creator, plan.systemTokenHash, 'Quarry Ore', 'ORE', 6, 21_000_000n * 10n ** 6n, holders, shares);
  }

  private tokenCreate(block: CanonicalBlock): boolean {
    const fee = this.fee();
    const creator = this.sender(fee * 2n);
    if (creator < 0) return false;
    const word = this.rng.pick(TOKEN_WORDS);
    const symbol = word.slice(0, 3).toUpperCase() + String.fromCharCode(65 + this.rng.int(26));
    const decimals = this.rng.pick([0, 2, 6, 8, 9]);
    const supply = BigInt(10 ** (3 + this.rng.int(7))) * 10n ** BigInt(decimals);
    const holders = Array.from({ length: this.rng.int(8) }, () => this.recipient(0.3, creator));
    return this.mintToken(block, creator, powHash(this.rng), `${word} Token`, symbol, decimals, supply, holders, holders.map(() => BigInt(1 + this.rng.int(20))));
  }

  /** A token transaction: its hash is the token's id; the initial balances come from the coinbase sentinel. */
  private mintToken(block: CanonicalBlock, creator: number, hash: string, name: string, symbol: string, decimals: number, supply: bigint, holders: number[], shares: bigint[]): boolean {
    const fee = this.fee(holders.length + 1);
    const signer = this.signerFor(creator);
    if (signer < 0 || this.ledger.balance[creator]! < fee) return false;
    const tx = this.begin('token', creator, signer, fee);
    tx.hash = hash;
    tx.tokenTransfers = own(tx.tokenTransfers);
    const token: PowToken = { hash, holders: [], balances: new Map() };
    const totalShares = shares.reduce((a, b) => a + b, 0n) + 20n;
    let given = 0n;
    const give = (id: number, amount: bigint) => {
      if (amount <= 0n) return;
      tx.tokenTransfers.push({ logIndex: tx.tokenTransfers.length, contract: hash, from: POW_COINBASE_SENTINEL, to: this.ledger.address[id]!, amount });
      this.creditToken(token, id, amount);
      given += amount;
    };
    holders.forEach((id, i) => give(id, (supply * shares[i]!) / totalShares));
    give(creator, supply - given);
    this.tokens.push(token);
    block.tokens = own(block.tokens);
    block.tokens.push({ contract: hash, name, symbol, decimals, creator: tx.from, createdTx: hash });
    this.size += 120 + 47 * tx.tokenTransfers.length;
    return true;
  }

  private creditToken(token: PowToken, id: number, amount: bigint): void {
    const before = token.balances.get(id);
    if (before === undefined) token.holders.push(id);
    token.balances.set(id, (before ?? 0n) + amount);
  }

  private tokenTransfer(): boolean {
    if (this.tokens.length === 0) return false;
    const token = this.tokens[Math.floor(this.tokens.length * this.rng.float() ** 2)]!;
    const fee = this.fee();
    let from = -1;
    for (let tries = 0; tries < 6 && from < 0; tries++) {
      const id = token.holders[this.rng.int(token.holders.length)]!;
      if (this.ledger.tier[id] !== Tier.None && token.balances.get(id)! > 0n && this.ledger.balance[id]! >= fee && this.canSign(id)) from = id;
    }
    if (from < 0) return false;
    const signer = this.signerFor(from);
    if (signer < 0 || this.ledger.balance[from]! < fee) return false;
    const count = this.rng.chance(0.85) ? 1 : 2 + this.rng.int(11);
    const amounts: bigint[] = [];
    splitInto(amounts, fractionOf(token.balances.get(from)!, 0.05 + 0.95 * this.rng.float()), count, this.rng);
    if (amounts.some((a) => a <= 0n)) return false;
    const tx = this.begin('transfer_token', from, signer, fee);
    tx.recipients = [];
    tx.tokenTransfers = [];
    let spent = 0n;
    for (let i = 0; i < count; i++) {
      const to = this.rng.chance(0.25) ? token.holders[this.rng.int(token.holders.length)]! : this.recipient(0.35, from);
      const transfer: TokenTransfer = { logIndex: i, contract: token.hash, from: tx.from, to: this.ledger.address[to]!, amount: amounts[i]! };
      tx.recipients.push({ to: transfer.to, amount: 0n });
      tx.tokenTransfers.push(transfer);
      this.creditToken(token, to, amounts[i]!);
      spent += amounts[i]!;
    }
    if (count === 1) tx.to = tx.recipients[0]!.to;
    token.balances.set(from, token.balances.get(from)! - spent);
    this.size += (RECIPIENT_SIZE + 8) * count;
    return true;
  }

  /** Whales move slices of their holdings: to exchanges, to new wallets (new whales), or to users. */
  private whaleMove(): boolean {
    const whale = this.pop.pickFrom(this.rng, Tier.Whale);
    if (whale < 0 || !this.canSign(whale)) return false;
    const fee = this.fee();
    const available = this.ledger.balance[whale]! - (this.floors.get(whale) ?? 0n) - fee;
    if (available <= SHOR) return false;
    const amount = fractionOf(available, 0.02 + 0.3 * this.rng.float() ** 2);
    const x = this.rng.float();
    if (x < 0.4) return this.deposit(whale, amount);
    const to = x < 0.7 ? this.newUser(this.rng.chance(0.5) ? Tier.Whale : Tier.None) : this.recipient(0, whale);
    return this.transfer1(whale, to, amount, fee) !== null;
  }

  /** Treasuries pay grants; custodians move between custody and exchanges. */
  private grant(): boolean {
    const plan = this.world.pow;
    const fee = this.fee();
    if (this.rng.chance(0.7)) {
      const from = this.rng.pick(plan.treasury);
      const available = this.ledger.balance[from]! - this.floors.get(from)! - fee;
      const amount = coins(1_000 + this.rng.pareto(1, 1.2) * 1_000, SHOR);
      if (amount > available) return false;
      return this.transfer1(from, this.recipient(0.5, from), amount, fee) !== null;
    }
    const from = this.rng.pick(plan.custodial);
    const exchange = this.pickExchange();
    const amount = fractionOf(this.ledger.balance[from]! - fee, 0.01 + 0.05 * this.rng.float());
    return amount > 0n && this.transfer1(from, exchange.plan.cold[0]!, amount, fee) !== null;
  }
}

export function cumulative(weights: number[]): number[] {
  let sum = 0;
  return weights.map((w) => (sum += w));
}

/** Splits `total` into `count` positive-ish parts with random weights (integer arithmetic). */
export function splitInto(out: bigint[], total: bigint, count: number, rng: Rng): void {
  if (count === 1) {
    out.push(total);
    return;
  }
  // Skewed weights (u^3: a few large parts, many small ones), summed as numbers; each part is
  // then total * weight / sum in integers, and the last takes the rounding remainder.
  const weights: number[] = [];
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const w = 1 + Math.floor(rng.float() ** 3 * 10_000);
    weights.push(w);
    sum += w;
  }
  const sumBig = BigInt(sum);
  let given = 0n;
  for (let i = 0; i < count - 1; i++) {
    const part = (total * BigInt(weights[i]!)) / sumBig;
    out.push(part);
    given += part;
  }
  out.push(total - given);
}

export function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

export function createPowGenerator(world: WorldPlan): PowRun {
  return new PowRun(world);
}
