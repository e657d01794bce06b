/**
 * The pow chain: 60-second blocks with jitter, a coinbase first in every block (reward from the
 * real emission curve plus the block's fees), mining pools paying their miners in multi-recipient
 * transfers, users, exchanges (deposit relays forwarding to hot wallets, withdrawals, hot/cold
 * rebalancing), slave keys, messages, tokens, lattice keys, and the burn leg of migrations.
 *
 * Every sender signs with an XMSS one-time key: the signing address's next OTS index, never reused
 * (unless `powOtsReuses` asks for a few reuses); busy entities sign with slave keys they registered
 * (from = master, signer = slave). With `powMultiSig`, a few multi-signature addresses are made,
 * funded, and spent from by their signatories' votes, by QRL's rules (see `MultiSigRun`).
 */
import { hash } from 'node:crypto';
import { multiSigAddress } from '../../chain/addresses.ts';
import { POW_COINBASE_SENTINEL } from '../../chain/chains.ts';
import type { CanonicalBlock, CanonicalTx, TokenTransfer, TxType } from '../../chain/model.ts';
import { createPowEmissionCursor, powBlockReward, POW_GENESIS_SUPPLY_SHOR, POW_MAX_SUPPLY_SHOR, type PowEmissionCursor } from '../../chain/pow-emission.ts';
import { DEPOSIT_SHARE, userTreeHeight } from './actors.ts';
import { ActivityCurve } from './activity.ts';
import { Economy } from './economy.ts';
import { ChainRun, NONE, addDeadLetter, newTx, own } from './generator.ts';
import { powAddress, powHash, randomHex, utf8Hex } from './hex.ts';
import { Ledger, Role, Tier } from './ledger.ts';
import { POW_BLOCK_SECONDS } from './options.ts';
import { DAY_SECONDS } from '../../time.ts';
import { Rng, cumulative, fractionOf, splitInto } from './rng.ts';
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
/** Recipients a transfer may name. */
const MAX_RECIPIENTS = 100;
/**
 * The generated chain's network id: its genesis block's previous hash is these bytes, as mainnet's
 * are "The sleeper must awaken" (docs/indexing-pow.md, "Genesis").
 */
export const POW_DEMO_NETWORK_ID = 'Quarry demo network';

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
const ACTION_CUMULATIVE = cumulative(ACTIONS.map((a) => ACTION_WEIGHTS[a]));

const MESSAGES = ['gm', 'to the moon', 'quantum safe', 'hello from the chain', 'paid invoice #', 'thanks!', 'lunch', 'rent', 'XMSS ftw', 'order '];
const TOKEN_WORDS = ['Ore', 'Lattice', 'Shard', 'Quartz', 'Nexus', 'Vertex', 'Cipher', 'Merkle', 'Ember', 'Drift', 'Pulse', 'Atlas'];

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

/**
 * A multi-signature address the generator made, and what a QRL node knows of it. Its spends follow
 * the node's rules (theQRL/QRL MultiSigSpend, MultiSigVote, VoteStats): a spend needs a signatory
 * to propose it, within what the address holds, with an expiry above the block; each vote by a
 * signatory adds its weight (an unvote takes it back) in a block up to the expiry; a vote after
 * which the approving weight reaches the threshold executes the spend if the address can pay it;
 * nobody votes on an executed spend. The ledger never moves an executed spend's value (Quarry's
 * balances do not either: docs/api-ots.md), so `nodeBalance` keeps the node's balance beside it.
 */
interface MultiSigRun {
  /** Its ledger account: transfers credit it; it never signs. */
  id: number;
  address: string;
  signatories: number[];
  weights: number[];
  threshold: number;
  createdAt: number;
  /** What it received less what its executed spends paid. */
  nodeBalance: bigint;
  fundings: number;
  nextSpendAt: number;
  spendsLeft: number;
  spends: SpendRun[];
}

interface SpendRun {
  hash: string;
  height: number;
  total: bigint;
  expiry: number;
  /** The signatories (positions) that approve it at some time; the others never vote on it. */
  willing: number[];
  approving: boolean[];
  weight: number;
  executed: boolean;
}

export class PowRun extends ChainRun {
  private readonly rng: Rng;
  private readonly economy: Economy;
  private readonly emission: PowEmissionCursor;
  private readonly pools: PoolState[];
  private readonly minerCumulative: number[];
  private readonly miners: number[];
  private readonly slaveMasters = new Map<number, SlaveSet>();
  private readonly tokens: PowToken[] = [];
  /** Which blocks carry only their coinbase: a stream of its own, drawn only when the share is set. */
  private readonly coinbaseOnlyRng: Rng;
  private migrationCursor = 0;
  /** The multisig activity and one-time key reuses draw from a stream of their own. */
  private readonly keysRng: Rng;
  /** Heights at which the next multisig addresses and key reuses are due (options.powMultiSig, powOtsReuses). */
  private readonly multiSigDue: number[];
  private readonly reusesDue: number[];
  private readonly multiSigs: MultiSigRun[] = [];
  // The block being built.
  private txs: CanonicalTx[] = [];
  private fees = 0n;
  private size = 0;

  constructor(private readonly world: WorldPlan) {
    const options = world.options;
    super('pow', options, new Ledger(false), options.powLastHeight);
    this.rng = new Rng(options.seed, 'pow', 'canonical');
    this.coinbaseOnlyRng = new Rng(options.seed, 'pow', 'coinbase-only');
    this.keysRng = new Rng(options.seed, 'pow', 'keys');
    // Multisig addresses in the first half of the history (time for their spends), reuses all along.
    const spread = (count: number, span: number, min: number) => Array.from({ length: count }, (_, i) => Math.max(min, Math.floor((span * (i + 1)) / (count + 1))));
    this.multiSigDue = spread(options.powMultiSig, this.lastHeight / 2, 4);
    this.reusesDue = spread(options.powOtsReuses, this.lastHeight, 5);
    this.emission = createPowEmissionCursor(0);
    const plan = world.pow;
    const rng = this.rng;
    const ledger = this.ledger;
    this.economy = new Economy({
      plan,
      ledger,
      rng,
      activity: new ActivityCurve(options.seed, 'pow', options.powStart, options.end),
      flavour: {
        hodlerShare: 0.35,
        dust: 1n,
        forwardDelay: 30,
        treasuryKeeps: 2n,
        createUser: (tier) => {
          const height = userTreeHeight(rng, tier);
          return ledger.create(powAddress(rng, height), Role.User, 2 ** height);
        },
        canSend: (id) => this.canSign(id),
        upfrontFee: () => this.fee(),
        spendable: (from, fee) => ledger.balance[from]! - fee,
        sweepMargin: (fee) => fee,
        send: (from, to, value, fee) => this.transfer1(from, to, value, fee) !== null,
        forwardAll: (relay, to) => {
          const fee = this.fee();
          const value = ledger.balance[relay]! - fee;
          if (value > 0n) this.transfer1(relay, to, value, fee);
        },
        custodyToExchange: (custodian, fee) => {
          const exchange = this.economy.pickExchange();
          const amount = fractionOf(ledger.balance[custodian]! - fee, 0.01 + 0.05 * rng.float());
          return amount > 0n && this.transfer1(custodian, exchange.plan.cold[0]!, amount, fee) !== null;
        },
      },
    });
    // Exchange hot wallets and pools sign with slave keys.
    for (const e of plan.exchanges) for (const hot of e.hot) this.slaveMasters.set(hot, { slaves: [], cursor: 0 });
    this.pools = plan.pools.map((p) => {
      this.slaveMasters.set(p.id, { slaves: [], cursor: 0 });
      return { id: p.id, members: [], nextPayout: 60 + this.rng.int(120) };
    });
    this.miners = [...plan.pools.map((p) => p.id), ...plan.soloMiners];
    const soloShare = 1 - plan.pools.reduce((a, p) => a + p.share, 0);
    this.minerCumulative = cumulative([...plan.pools.map((p) => p.share), ...plan.soloMiners.map(() => soloShare / plan.soloMiners.length)]);
  }

  private timestamp(height: number): number {
    const { powStart, end } = this.options;
    if (height === 0) return powStart;
    if (height === this.lastHeight) return end;
    return powStart + height * POW_BLOCK_SECONDS + this.rng.range(-29, 29);
  }

  protected produce(height: number): CanonicalBlock {
    const ts = this.timestamp(height);
    const reward = this.emission.next();
    this.economy.startBlock(height, ts);
    this.txs = [];
    this.fees = 0n;
    this.size = BLOCK_HEADER_SIZE + COINBASE_SIZE;
    const block: CanonicalBlock = {
      chain: 'pow',
      height,
      hash: powHash(this.rng),
      parentHash: height === 0 ? utf8Hex(POW_DEMO_NETWORK_ID) : this.parentHash,
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
      this.genesis(block);
      return block;
    }
    this.txs.push(null as unknown as CanonicalTx); // the coinbase, once fees are known
    const scheduledBefore = this.txs.length;
    const systemToken = height === Math.min(3, this.lastHeight);
    if (systemToken) this.createSystemToken(block);
    const share = this.options.powCoinbaseOnlyShare;
    if (share > 0 && !systemToken && this.coinbaseOnlyRng.chance(share)) {
      // Nothing but the coinbase: what is scheduled waits for the next block that carries transactions.
      this.economy.postponeForwards(height);
    } else {
      this.migrationBurns(ts);
      this.economy.forwards(height);
      this.poolPayouts(height);
      if (height % 30 === 0) this.economy.rebalanceExchanges();
      // The transactions of the coinbase-only blocks land in the others: `scale` stays the daily mean.
      const mean = (this.options.scale * this.economy.activity.factor(ts) * POW_BLOCK_SECONDS) / DAY_SECONDS / (1 - share);
      const count = this.economy.randomActions(mean, this.txs.length - scheduledBefore);
      for (let i = 0; i < count; i++) {
        const action = ACTIONS[this.rng.weighted(ACTION_CUMULATIVE)]!;
        if (!this.act(action, block) && action !== 'p2p') this.act('p2p', block);
      }
      this.keyActivity(height);
    }
    // A transaction of a kind the decoder does not know: kept with its sender and fee, its body set aside.
    const unknown = this.deadLetterDue ? this.simple('unknown') : null;
    if (unknown) addDeadLetter(block, unknown.hash, randomHex(this.rng, 12));
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

  /**
   * The genesis block, shaped like mainnet's (docs/indexing-pow.md, "Genesis"): one genesis_balance
   * entry gives the coinbase sentinel its reserve (the maximum supply, out of which the node pays
   * every reward); the coinbase pays the premine (the header's reward) to the first treasury; and
   * transfers from it, without fees, hand the plan's genesis shares to their holders.
   */
  private genesis(block: CanonicalBlock): void {
    const premine = this.world.pow.treasury[0]!;
    block.reward = POW_GENESIS_SUPPLY_SHOR;
    block.allocations = [{ address: POW_COINBASE_SENTINEL, amount: POW_MAX_SUPPLY_SHOR }];
    const coinbase = newTx(powHash(this.rng), 0, 'coinbase', POW_COINBASE_SENTINEL);
    coinbase.to = this.ledger.address[premine]!;
    coinbase.value = POW_GENESIS_SUPPLY_SHOR;
    this.txs.push(coinbase);
    this.ledger.credit(premine, POW_GENESIS_SUPPLY_SHOR);
    block.miner = coinbase.to;
    const shares = this.economy.genesisShares().filter((share) => share.id !== premine);
    for (let i = 0; i < shares.length; i += MAX_RECIPIENTS) {
      const batch = shares.slice(i, i + MAX_RECIPIENTS);
      const tx = this.begin('transfer', premine, premine, 0n, batch.reduce((sum, share) => sum + share.amount, 0n));
      tx.recipients = batch.map((share) => ({ to: this.ledger.address[share.id]!, amount: share.amount }));
      if (batch.length === 1) tx.to = tx.recipients[0]!.to;
      for (const share of batch) this.ledger.credit(share.id, share.amount);
      this.size += RECIPIENT_SIZE * batch.length;
    }
    block.size = this.size;
  }

  protected produceOrphan(height: number, parentHash: string, parentTs: number, _previous: CanonicalBlock | null, rng: Rng): CanonicalBlock {
    const txs: CanonicalTx[] = [];
    let fees = 0n;
    const count = rng.int(4);
    for (let i = 0; i < count; i++) {
      const from = this.economy.pop.pick(rng);
      const to = this.economy.pop.pick(rng);
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

  // ---- fees and signing ----

  private canSign(id: number): boolean {
    return this.slaveMasters.has(id) || this.ledger.canSign(id);
  }

  private fee(recipients = 1): bigint {
    const base = FEES[this.rng.int(FEES.length)]!;
    return recipients > 1 ? base * BigInt(1 + Math.floor(recipients / 10)) : base;
  }

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
        return this.economy.deposit(-1, 0n);
      case 'withdraw':
        return this.withdraw();
      case 'message':
        return this.message();
      case 'tokenTransfer':
        return this.tokenTransfer();
      case 'tokenCreate':
        return this.tokenCreate(block);
      case 'latticePK':
        return this.latticePK();
      case 'slave':
        return this.userSlaves();
      case 'whale':
        return this.economy.whaleMove();
      case 'grant':
        return this.economy.grant();
    }
  }

  private p2p(recipients: number, pNew: number): boolean {
    const fee = this.fee(recipients);
    const from = this.economy.sender(fee + 1n);
    if (from < 0) return false;
    const available = this.ledger.balance[from]! - fee;
    if (recipients === 1) return this.transfer1(from, this.economy.recipient(pNew, from), this.economy.userAmount(available), fee) !== null;
    const to: number[] = [];
    const amounts: bigint[] = [];
    const total = fractionOf(available, 0.05 + 0.9 * this.rng.float());
    if (total <= 0n) return false;
    for (let i = 0; i < recipients; i++) to.push(this.economy.recipient(pNew, from));
    splitInto(amounts, total, recipients, this.rng);
    return this.transfer(from, to, amounts, fee) !== null;
  }

  /** Dust to many fresh addresses at once (promotions, faucets, spam). */
  private airdrop(): boolean {
    const count = 10 + this.rng.int(91);
    const fee = this.fee(count);
    const each = BigInt(1 + this.rng.int(100_000));
    const from = this.economy.sender(fee + each * BigInt(count));
    if (from < 0) return false;
    const to = Array.from({ length: count }, () => this.economy.recipient(0.9, from));
    return this.transfer(from, to, to.map(() => each), fee) !== null;
  }

  /** An exchange pays out from a hot wallet: one customer, or a batch of them in one transfer. */
  private withdraw(): boolean {
    const hot = this.economy.hotWallet(this.economy.pickExchange());
    const batch = this.rng.chance(0.08) ? 2 + this.rng.int(24) : 1;
    const fee = this.fee(batch);
    const available = this.ledger.balance[hot]! - fee;
    if (available <= 0n) return false;
    const cap = available / BigInt(4 * batch);
    if (batch === 1) {
      const amount = this.economy.withdrawalAmount();
      return this.transfer1(hot, this.economy.recipient(0.3, hot), amount < cap ? amount : cap, fee) !== null;
    }
    const to: number[] = [];
    const amounts: bigint[] = [];
    for (let i = 0; i < batch; i++) {
      to.push(this.economy.recipient(0.3, hot));
      const amount = this.economy.withdrawalAmount();
      amounts.push(amount < cap ? amount : cap);
    }
    if (amounts.some((a) => a <= 0n)) return false;
    return this.transfer(hot, to, amounts, fee) !== null;
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
      while (pool.members.length < count || this.rng.chance(0.3)) pool.members.push(this.economy.newUser(this.rng.chance(0.6) ? Tier.Regular : Tier.Casual));
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
        const id = tries % 4 === 3 ? this.economy.pop.pickFrom(this.rng, Tier.Whale) : this.economy.pop.pick(this.rng);
        if (id >= 0 && this.ledger.balance[id]! >= need + (this.economy.floors.get(id) ?? 0n) && this.canSign(id)) from = id;
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
    const from = this.economy.sender(fee);
    const signer = from < 0 ? -1 : this.signerFor(from);
    if (signer < 0 || this.ledger.balance[from]! < fee) return false;
    const tx = this.begin('message', from, signer, fee);
    const text = this.rng.pick(MESSAGES) + (this.rng.chance(0.5) ? String(this.rng.int(100_000)) : '');
    tx.input = utf8Hex(text);
    return true;
  }

  /** A transaction that only costs a fee (latticePK, and the kind the decoder does not know); null if no sender can afford it. */
  private simple(type: TxType): CanonicalTx | null {
    const fee = this.fee();
    const from = this.economy.sender(fee);
    const signer = from < 0 ? -1 : this.signerFor(from);
    if (signer < 0 || this.ledger.balance[from]! < fee) return null;
    return this.begin(type, from, signer, fee);
  }

  /**
   * A latticePK transaction. Its keys are 32-byte stand-ins derived from its hash (no draw from the
   * generator's stream), not real Kyber and Dilithium keys; no ECDSA key.
   */
  private latticePK(): boolean {
    const tx = this.simple('latticePK');
    if (!tx) return false;
    tx.lattice = { kyberPk: hash('sha256', `kyber${tx.hash}`), dilithiumPk: hash('sha256', `dilithium${tx.hash}`), ecdsaPk: '' };
    return true;
  }

  private userSlaves(): boolean {
    const fee = this.fee();
    const from = this.economy.sender(fee * 3n);
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
    const creator = this.economy.sender(fee * 2n);
    if (creator < 0) return false;
    const word = this.rng.pick(TOKEN_WORDS);
    const symbol = word.slice(0, 3).toUpperCase() + String.fromCharCode(65 + this.rng.int(26));
    const decimals = this.rng.pick([0, 2, 6, 8, 9]);
    const supply = BigInt(10 ** (3 + this.rng.int(7))) * 10n ** BigInt(decimals);
    const holders = Array.from({ length: this.rng.int(8) }, () => this.economy.recipient(0.3, creator));
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
      const to = this.rng.chance(0.25) ? token.holders[this.rng.int(token.holders.length)]! : this.economy.recipient(0.35, from);
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

  // ---- multi-signature addresses and reused one-time keys (options.powMultiSig, powOtsReuses) ----

  /** What is due in this block: key reuses, new multisig addresses, and the live ones' funding, spends and votes. */
  private keyActivity(height: number): void {
    while (this.reusesDue.length > 0 && this.reusesDue[0]! <= height && this.reuseOneTimeKey()) this.reusesDue.shift();
    while (this.multiSigDue.length > 0 && this.multiSigDue[0]! <= height && this.createMultiSig(height)) this.multiSigDue.shift();
    for (const ms of this.multiSigs) this.multiSigStep(ms, height);
  }

  private keysFee(): bigint {
    return FEES[this.keysRng.int(FEES.length)]!;
  }

  /** An active account that signs with its own key and holds at least `min`, or -1. */
  private ownKeySigner(min: bigint): number {
    for (let tries = 0; tries < 10; tries++) {
      const id = this.economy.pop.pick(this.keysRng);
      if (id >= 0 && !this.slaveMasters.has(id) && this.ledger.canSign(id) && this.ledger.balance[id]! >= min) return id;
    }
    return -1;
  }

  /** A transfer signed with a one-time key index its signer used before (the next signature takes the next unused one). */
  private reuseOneTimeKey(): boolean {
    const rng = this.keysRng;
    const fee = this.keysFee();
    const from = this.ownKeySigner(fee + 1n);
    const to = this.economy.pop.pick(rng);
    if (from < 0 || to < 0 || to === from || this.ledger.counter[from]! < 1) return false;
    const used = this.ledger.counter[from]!;
    const amount = 1n + fractionOf(this.ledger.balance[from]! - fee - 1n, rng.float() * 0.5);
    const tx = this.begin('transfer', from, from, fee, amount);
    tx.to = this.ledger.address[to]!;
    tx.recipients = [{ to: tx.to, amount }];
    this.ledger.credit(to, amount);
    this.size += RECIPIENT_SIZE;
    tx.otsIndex = rng.int(used);
    this.ledger.returnCounter(from);
    return true;
  }

  /** A multi_sig_create by one of its 2 to 5 signatories; threshold above the largest weight, at most their sum. */
  private createMultiSig(height: number): boolean {
    const rng = this.keysRng;
    const count = 2 + rng.int(4);
    const signatories: number[] = [];
    for (let tries = 0; tries < 10 && signatories.length < count; tries++) {
      const id = this.ownKeySigner(100n * SHOR);
      if (id >= 0 && !signatories.includes(id)) signatories.push(id);
    }
    if (signatories.length < 2) return false;
    const weights = signatories.map(() => 1 + rng.int(3));
    const total = weights.reduce((a, b) => a + b, 0);
    const max = Math.max(...weights);
    const threshold = max + 1 + rng.int(total - max);
    const tx = this.begin('multi_sig_create', signatories[0]!, signatories[0]!, this.keysFee());
    const address = multiSigAddress(tx.hash);
    tx.multiSig = { kind: 'create', address, signatories: signatories.map((id, i) => ({ address: this.ledger.address[id]!, weight: weights[i]! })), threshold };
    this.size += 47 * signatories.length;
    const id = this.ledger.create(address, Role.MultiSig);
    this.multiSigs.push({ id, address, signatories, weights, threshold, createdAt: height, nodeBalance: 0n, fundings: 0, nextSpendAt: height + 2 + rng.int(5), spendsLeft: 3 + rng.int(3), spends: [] });
    return true;
  }

  private multiSigStep(ms: MultiSigRun, height: number): void {
    if (height <= ms.createdAt) return;
    const rng = this.keysRng;
    if (ms.fundings === 0 || (ms.fundings < 3 && rng.chance(0.02))) this.fundMultiSig(ms);
    if (ms.spendsLeft > 0 && height >= ms.nextSpendAt) this.proposeSpend(ms, height);
    for (const spend of ms.spends) {
      if (!spend.executed && height > spend.height && height <= spend.expiry && rng.chance(0.3)) this.voteOn(ms, spend);
    }
  }

  /** A signatory sends the address part of its balance. */
  private fundMultiSig(ms: MultiSigRun): void {
    const rng = this.keysRng;
    const from = ms.signatories[rng.int(ms.signatories.length)]!;
    const fee = this.keysFee();
    if (!this.ledger.canSign(from) || this.ledger.balance[from]! <= fee) return;
    const amount = fractionOf(this.ledger.balance[from]! - fee, 0.05 + 0.2 * rng.float());
    if (amount <= 0n) return;
    const tx = this.begin('transfer', from, from, fee, amount);
    tx.to = ms.address;
    tx.recipients = [{ to: ms.address, amount }];
    this.ledger.credit(ms.id, amount);
    this.size += RECIPIENT_SIZE;
    ms.nodeBalance += amount;
    ms.fundings++;
  }

  /** A signatory proposes paying part of what the address holds to 1 to 3 accounts; the last spend expires after the chain's end. */
  private proposeSpend(ms: MultiSigRun, height: number): void {
    const rng = this.keysRng;
    ms.nextSpendAt = height + 5 + rng.int(25);
    const proposer = ms.signatories[rng.int(ms.signatories.length)]!;
    const fee = this.keysFee();
    const count = 1 + rng.int(3);
    const total = fractionOf(ms.nodeBalance, 0.1 + 0.4 * rng.float());
    if (!this.ledger.canSign(proposer) || this.ledger.balance[proposer]! < fee || total < BigInt(count)) return;
    const amounts: bigint[] = [];
    splitInto(amounts, total, count, rng);
    if (amounts.some((a) => a <= 0n)) return;
    const recipients = amounts.map((amount) => {
      const to = this.economy.pop.pick(rng);
      return { to: this.ledger.address[to >= 0 ? to : proposer]!, amount };
    });
    ms.spendsLeft--;
    const expiry = ms.spendsLeft === 0 ? this.lastHeight + 50 + rng.int(50) : height + 10 + rng.int(60);
    const tx = this.begin('multi_sig_spend', proposer, proposer, fee);
    tx.to = ms.address;
    tx.multiSig = { kind: 'spend', multiSigAddress: ms.address, recipients, expiryHeight: expiry };
    this.size += RECIPIENT_SIZE * count + 40;
    // The last spend waits for one approval too many: still open at the end of the chain.
    const willing = ms.spendsLeft === 0 ? this.shortOfThreshold(ms) : ms.signatories.map((_, i) => i).filter(() => rng.chance(0.7));
    ms.spends.push({ hash: tx.hash, height, total, expiry, willing, approving: ms.signatories.map(() => false), weight: 0, executed: false });
  }

  /** Signatories in the create's order as long as their weights stay below the threshold. */
  private shortOfThreshold(ms: MultiSigRun): number[] {
    const willing: number[] = [];
    let weight = 0;
    for (const [i, w] of ms.weights.entries()) {
      if (weight + w >= ms.threshold) break;
      willing.push(i);
      weight += w;
    }
    return willing;
  }

  /** A willing signatory approves the spend, or now and then takes its approval back; the node's VoteStats.apply decides execution. */
  private voteOn(ms: MultiSigRun, spend: SpendRun): void {
    const rng = this.keysRng;
    if (spend.willing.length === 0) return;
    const i = spend.willing[rng.int(spend.willing.length)]!;
    const unvote = spend.approving[i]!;
    if (unvote && !rng.chance(0.2)) return;
    const voter = ms.signatories[i]!;
    const fee = this.keysFee();
    if (!this.ledger.canSign(voter) || this.ledger.balance[voter]! < fee) return;
    const tx = this.begin('multi_sig_vote', voter, voter, fee);
    tx.input = spend.hash;
    tx.multiSig = { kind: 'vote', sharedKey: spend.hash, unvote };
    this.size += 40;
    spend.approving[i] = !unvote;
    spend.weight += unvote ? -ms.weights[i]! : ms.weights[i]!;
    if (spend.weight >= ms.threshold && spend.total <= ms.nodeBalance) {
      spend.executed = true;
      ms.nodeBalance -= spend.total;
    }
  }
}

export function createPowGenerator(world: WorldPlan): PowRun {
  return new PowRun(world);
}
