/**
 * The pos chain: slots of the world's slot time (options.posSlotSeconds; 1-3% missed), type-2 transactions with EIP-1559 fees (base fee
 * from the parent's gas, burned; the tip to the block's fee recipient), sequential nonces, EOAs,
 * exchanges, ERC-20 tokens, contracts with internal value transfers, reverted transactions,
 * validator withdrawals, congestion episodes that move the base fee, and the mint leg of
 * pow-to-pos migrations (from the zero address, no fee).
 */
import { PLANCK_PER_SHOR, POS_ZERO_ADDRESS } from '../../chain/chains.ts';
import type { CanonicalBlock, CanonicalTx, InternalTransfer } from '../../chain/model.ts';
import { DEPOSIT_SHARE, type SystemContractPlan } from './actors.ts';
import { ActivityCurve } from './activity.ts';
import { Economy } from './economy.ts';
import { ChainRun, NONE, addDeadLetter, newTx, own } from './generator.ts';
import { hex32, posAddress, posHash, randomHex } from './hex.ts';
import { Ledger, Role, Tier } from './ledger.ts';
import { mintedPlanck, type MigrationPlanItem } from './migration.ts';
import { DAY_SECONDS } from '../../time.ts';
import { POS_SLOT_SECONDS as POS_SPEC_SLOT_SECONDS } from './options.ts';
import { newUserTier } from './population.ts';
import { Rng, coinsMilli, cumulative, fractionOf, minBig, splitInto } from './rng.ts';
import type { WorldPlan } from './world-plan.ts';

const PLANCK = 10n ** 18n;
const GWEI = PLANCK_PER_SHOR;
const POS_GAS_LIMIT = 30_000_000;
const POS_GAS_TARGET = POS_GAS_LIMIT / 2;
/** EIP-1559: the base fee moves by at most 1/8 per block. */
const BASE_FEE_CHANGE_DENOMINATOR = 8n;
/** EIP-1559's initial base fee (1 gwei), used at genesis. */
const INITIAL_BASE_FEE = GWEI;
/** Approximate sizes: an ML-DSA-87 signature and public key dominate every transaction. */
const TX_BASE_SIZE = 7_350;
const BLOCK_HEADER_SIZE = 640;
const WITHDRAWAL_SIZE = 44;
const TRANSFER_SELECTOR = 'a9059cbb';

const ACTIONS = ['p2p', 'deposit', 'withdraw', 'tokenTransfer', 'swap', 'disperse', 'vault', 'deploy', 'call', 'whale', 'grant'] as const;
type Action = (typeof ACTIONS)[number];
const ACTION_WEIGHTS: Record<Action, number> = {
  p2p: 0.4,
  deposit: DEPOSIT_SHARE,
  withdraw: 0.16,
  tokenTransfer: 0.12,
  swap: 0.05,
  disperse: 0.006,
  vault: 0.03,
  deploy: 0.003,
  call: 0.04,
  whale: 0.0015,
  grant: 0.002,
};
const ACTION_CUMULATIVE = cumulative(ACTIONS.map((a) => ACTION_WEIGHTS[a]));
/** Tips senders choose (mostly 1 gwei, some less, some 2, a few none), with their shares. */
const TIPS: readonly bigint[] = [GWEI, GWEI / 10n, GWEI / 4n, GWEI / 2n, (3n * GWEI) / 4n, 2n * GWEI, GWEI / 100n, 0n];
const TIP_CUMULATIVE = cumulative([0.5, 0.05, 0.05, 0.05, 0.05, 0.15, 0.1, 0.05]);
/** Share of new users who only ever receive (pos: also the claimants of migrations). */
const HODLER_SHARE = 0.3;
/** Share of contract calls that revert. */
const REVERT_SHARE = 0.03;

/** The next block's base fee from its parent's, as EIP-1559 (and go-ethereum) computes it. */
function nextBaseFee(parentBaseFee: bigint, parentGasUsed: number): bigint {
  const target = BigInt(POS_GAS_TARGET);
  const used = BigInt(parentGasUsed);
  if (used === target) return parentBaseFee;
  if (used > target) {
    const delta = (parentBaseFee * (used - target)) / target / BASE_FEE_CHANGE_DENOMINATOR;
    return parentBaseFee + (delta > 1n ? delta : 1n);
  }
  const delta = (parentBaseFee * (target - used)) / target / BASE_FEE_CHANGE_DENOMINATOR;
  return parentBaseFee - delta > 0n ? parentBaseFee - delta : 0n;
}

interface PosToken {
  id: number;
  holders: number[];
  balances: Map<number, bigint>;
}

interface Fees {
  maxFee: bigint;
  priority: bigint;
  effective: bigint;
}

export class PosRun extends ChainRun {
  private readonly rng: Rng;
  private readonly economy: Economy;
  private readonly tokens: PosToken[] = [];
  private readonly tokenById = new Map<number, PosToken>();
  private readonly userContracts: number[] = [];
  private readonly system = new Map<SystemContractPlan['kind'] | string, number>();
  private readonly settlements: number[] = [];
  private readonly claims: MigrationPlanItem[];
  private readonly zero: number;
  private claimCursor = 0;
  private withdrawalCursor = 0;
  private baseFee = INITIAL_BASE_FEE;
  private parentGasUsed = 0;
  private busyUntil = 0;
  private busyLevel = 0n;
  /** Per block: the usual bids (cap 2 x base fee + tip) for each tip, built when first used. */
  private readonly standardBids: (Fees | null)[] = TIPS.map(() => null);
  /** Per block: the highest price a usual bid can pay, and what a plain transfer must keep for gas. */
  private worstGasPrice = 0n;
  private transferReserve = 0n;
  // The block being built.
  private txs: CanonicalTx[] = [];
  private gasUsed = 0;
  private logIndex = 0;
  private tips = 0n;
  private size = 0;

  constructor(private readonly world: WorldPlan) {
    const options = world.options;
    super('pos', options, new Ledger(true), world.posSlots.length - 1);
    this.rng = new Rng(options.seed, 'pos', 'canonical');
    const rng = this.rng;
    const ledger = this.ledger;
    this.economy = new Economy({
      plan: world.pos,
      ledger,
      rng,
      activity: new ActivityCurve(options.seed, 'pos', options.posStart, options.end),
      flavour: {
        hodlerShare: HODLER_SHARE,
        dust: GWEI,
        forwardDelay: 100,
        treasuryKeeps: 4n,
        createUser: () => ledger.create(posAddress(rng), Role.User),
        canSend: () => true,
        upfrontFee: () => 0n,
        spendable: (from) => this.spendable(from),
        sweepMargin: () => PLANCK,
        send: (from, to, value) => this.transfer(from, to, value),
        forwardAll: (relay, to) => {
          const fees = this.bid();
          const value = ledger.balance[relay]! - this.reserve(21_000, fees);
          if (value > 0n) this.begin('transfer', relay, to, value, 21_000, 21_000, fees, null);
        },
        custodyToExchange: (custodian) => {
          const amount = fractionOf(this.spendable(custodian), 0.01 + 0.05 * rng.float());
          return this.transfer(custodian, this.economy.pickExchange().plan.cold[0]!, amount);
        },
      },
    });
    this.zero = ledger.create(POS_ZERO_ADDRESS, Role.Sentinel);
    this.claims = world.migrations.filter((m) => m.claimTs !== null).sort((a, b) => a.claimTs! - b.claimTs!);
  }

  private timestamp(height: number): number {
    return this.options.posStart + this.world.posSlots[height]! * this.options.posSlotSeconds;
  }

  protected produce(height: number): CanonicalBlock {
    const ts = this.timestamp(height);
    this.economy.startBlock(height, ts);
    if (height > 0) this.baseFee = nextBaseFee(this.baseFee, this.parentGasUsed);
    this.standardBids.fill(null);
    this.worstGasPrice = this.baseFee * 2n + 2n * GWEI;
    this.transferReserve = 21_000n * this.worstGasPrice;
    this.txs = [];
    this.gasUsed = 0;
    this.logIndex = 0;
    this.tips = 0n;
    this.size = BLOCK_HEADER_SIZE;
    const staking = this.world.staking;
    const dayIndex = Math.min(staking.activeByDay.length - 1, Math.floor((ts - staking.firstDayStart) / DAY_SECONDS));
    const active = staking.activeByDay[dayIndex]!;
    const miner = staking.feeRecipient[active[this.rng.int(active.length)]!]!;
    const block: CanonicalBlock = {
      chain: 'pos',
      height,
      hash: posHash(this.rng),
      parentHash: height === 0 ? '0x' + '0'.repeat(64) : this.parentHash,
      timestamp: ts,
      size: 0,
      miner: this.ledger.address[miner]!,
      reward: 0n,
      gasUsed: 0,
      gasLimit: POS_GAS_LIMIT,
      baseFeePerGas: this.baseFee,
      transactions: this.txs,
      withdrawals: NONE,
      allocations: NONE,
      tokens: NONE,
      deadLetters: NONE,
    };
    if (height === 0) {
      block.allocations = this.economy.allocateGenesis();
      block.size = BLOCK_HEADER_SIZE + block.allocations.length * 52;
      this.parentGasUsed = 0;
      return block;
    }
    const scheduledBefore = this.txs.length;
    this.deploySystemContracts(height, block);
    this.migrationMints(ts);
    this.economy.forwards(height);
    if (height % 150 === 0) this.economy.rebalanceExchanges();
    const slotsPerBlock = (this.options.posLastSlot + 1) / this.world.posSlots.length;
    const mean = (this.options.scale * this.economy.activity.factor(ts) * this.options.posSlotSeconds * slotsPerBlock) / DAY_SECONDS;
    const count = this.economy.randomActions(mean, this.txs.length - scheduledBefore);
    for (let i = 0; i < count && this.gasUsed < POS_GAS_LIMIT - 2_000_000; i++) {
      const action = ACTIONS[this.rng.weighted(ACTION_CUMULATIVE)]!;
      if (!this.act(action, block) && action !== 'p2p') this.act('p2p', block);
    }
    this.congestion(height);
    if (this.deadLetterDue) {
      const hash = posHash(this.rng);
      addDeadLetter(block, hash, '0x' + randomHex(this.rng, 12));
    }
    this.ledger.credit(miner, this.tips);
    const withdrawals = staking.withdrawals;
    while (this.withdrawalCursor < withdrawals.length && withdrawals[this.withdrawalCursor]!.ts <= ts) {
      const w = withdrawals[this.withdrawalCursor]!;
      block.withdrawals = own(block.withdrawals);
      block.withdrawals.push({ index: this.withdrawalCursor, validatorIndex: w.validatorIndex, address: this.ledger.address[w.account]!, amount: w.amount });
      this.ledger.credit(w.account, w.amount);
      this.withdrawalCursor++;
    }
    block.gasUsed = this.gasUsed;
    block.size = this.size + block.withdrawals.length * WITHDRAWAL_SIZE;
    this.parentGasUsed = this.gasUsed;
    return block;
  }

  protected produceOrphan(height: number, parentHash: string, parentTs: number, previous: CanonicalBlock | null, rng: Rng): CanonicalBlock {
    const baseFee = previous ? nextBaseFee(previous.baseFeePerGas!, previous.gasUsed!) : nextBaseFee(this.baseFee, this.parentGasUsed);
    const staking = this.world.staking;
    const dayIndex = Math.min(staking.activeByDay.length - 1, Math.floor((parentTs - staking.firstDayStart) / DAY_SECONDS));
    const active = staking.activeByDay[dayIndex]!;
    const miner = staking.feeRecipient[active[rng.int(active.length)]!]!;
    const txs: CanonicalTx[] = [];
    let tips = 0n;
    const count = rng.int(4);
    for (let i = 0; i < count; i++) {
      const from = this.economy.pop.pick(rng);
      const to = this.economy.pop.pick(rng);
      if (from < 0 || to < 0 || from === to) continue;
      const priority = GWEI;
      const maxFee = baseFee * 2n + priority;
      const balance = this.ledger.balance[from]!;
      if (balance <= 21_000n * maxFee + 1n) continue;
      const value = 1n + fractionOf(balance - 21_000n * maxFee - 1n, rng.float() * 0.5);
      const effective = minBig(maxFee, baseFee + priority);
      const tx = newTx(posHash(rng), txs.length, 'transfer', this.ledger.address[from]!);
      fillFees(tx, 21_000, 21_000, maxFee, priority, effective, baseFee);
      tx.to = this.ledger.address[to]!;
      tx.value = value;
      tx.status = 1;
      tx.nonce = this.ledger.useCounter(from);
      this.ledger.debit(from, value + tx.fee);
      this.ledger.credit(to, value);
      tips += tx.fee - tx.burned;
      txs.push(tx);
    }
    this.ledger.credit(miner, tips);
    return {
      chain: 'pos',
      height,
      hash: posHash(rng),
      parentHash,
      timestamp: parentTs + this.options.posSlotSeconds * (1 + (rng.chance(0.2) ? 1 : 0)),
      size: BLOCK_HEADER_SIZE + txs.length * TX_BASE_SIZE,
      miner: this.ledger.address[miner]!,
      reward: 0n,
      gasUsed: txs.length * 21_000,
      gasLimit: POS_GAS_LIMIT,
      baseFeePerGas: baseFee,
      transactions: txs,
      withdrawals: NONE,
      allocations: NONE,
      tokens: NONE,
      deadLetters: NONE,
    };
  }

  // ---- fees ----

  /** What a sender bids: a tip, and a fee cap usually well above the base fee (sometimes tight). */
  private bid(): Fees {
    const tip = this.rng.weighted(TIP_CUMULATIVE);
    const priority = TIPS[tip]!;
    if (this.rng.chance(0.2)) {
      // A tight cap: between the base fee and base fee + tip, so the cap sets the price.
      const maxFee = this.baseFee + fractionOf(priority, this.rng.float());
      return { maxFee, priority, effective: minBig(maxFee, this.baseFee + priority) };
    }
    // The usual bids are the same for everyone in a block: build each once (bigint arithmetic is the cost here).
    let fees = this.standardBids[tip];
    if (!fees) {
      const maxFee = this.baseFee * 2n + priority;
      fees = { maxFee, priority, effective: minBig(maxFee, this.baseFee + priority) };
      this.standardBids[tip] = fees;
    }
    return fees;
  }

  /** Worst-case cost of `gas` at the bid: what the sender must hold besides the value. */
  private reserve(gas: number, fees: Fees): bigint {
    return BigInt(gas) * fees.maxFee;
  }

  /**
   * Appends a transaction from `from`: takes the nonce, charges gasUsed x effective price
   * (burning the base fee part, tipping the rest to the block's fee recipient) and moves `value`
   * to `to` unless it reverted.
   */
  private begin(type: CanonicalTx['type'], from: number, to: number | null, value: bigint, gas: number, gasUsed: number, fees: Fees, input: string | null, status: 0 | 1 = 1): CanonicalTx {
    const tx = newTx(posHash(this.rng), this.txs.length, type, this.ledger.address[from]!);
    fillFees(tx, gas, gasUsed, fees.maxFee, fees.priority, fees.effective, this.baseFee);
    tx.nonce = this.ledger.useCounter(from);
    tx.to = to === null ? null : this.ledger.address[to]!;
    tx.status = status;
    tx.input = input;
    this.ledger.debit(from, tx.fee);
    if (status === 1 && value > 0n) {
      tx.value = value;
      this.ledger.debit(from, value);
      if (to !== null) this.ledger.credit(to, value);
    } else if (status === 0) {
      tx.value = value; // a reverted transaction still shows what it tried to send; none of it moved
    }
    this.tips += tx.fee - tx.burned;
    this.gasUsed += gasUsed;
    this.size += TX_BASE_SIZE + (input ? (input.length - 2) / 2 : 0);
    this.txs.push(tx);
    return tx;
  }

  /** A plain value transfer between EOAs; false if `from` cannot afford it. */
  private transfer(from: number, to: number, value: bigint): boolean {
    const fees = this.bid();
    if (value <= 0n || this.ledger.balance[from]! < value + this.reserve(21_000, fees)) return false;
    this.begin('transfer', from, to, value, 21_000, 21_000, fees, null);
    return true;
  }

  /** What `from` can send after keeping enough for the gas of a simple transfer. */
  private spendable(from: number, gas = 21_000): bigint {
    return this.ledger.balance[from]! - (gas === 21_000 ? this.transferReserve : BigInt(gas) * this.worstGasPrice);
  }

  // ---- scheduled ----

  private deploySystemContracts(height: number, block: CanonicalBlock): void {
    const contracts = this.world.pos.contracts;
    const index = height - 1;
    if (index >= contracts.length) return;
    const plan = this.world.pos;
    const contract = contracts[index]!;
    const deployer = plan.treasury[1]!;
    const fees = this.bid();
    const value = contract.kind === 'dex_pool' ? 200_000n * PLANCK : 0n;
    const gas = 2_500_000;
    const tx = this.begin('contract_create', deployer, contract.id, value, gas, 1_200_000 + this.rng.int(1_000_000), fees, '0x60806040' + randomHex(this.rng, 16));
    tx.to = null;
    tx.contractAddress = this.ledger.address[contract.id]!;
    this.system.set(contract.kind === 'token' ? contract.symbol! : contract.kind, contract.id);
    if (contract.kind === 'settlement') this.settlements.push(contract.id);
    if (contract.kind !== 'token') return;
    const token = this.registerToken(block, tx, contract.id, contract.name, contract.symbol, contract.decimals!);
    const unit = 10n ** BigInt(contract.decimals!);
    const mints: [number, bigint][] =
      contract.symbol === 'QUSD'
        ? [
            [deployer, 50_000_000n * unit],
            [contracts.find((c) => c.kind === 'dex_pool')!.id, 10_000_000n * unit],
            [plan.tokenHolder, 100_000n * unit],
          ]
        : [
            [deployer, 1_000_000n * unit],
            [plan.tokenHolder, 25_000n * unit],
            [plan.ordinary, 500n * unit],
          ];
    for (const [to, amount] of mints) this.tokenTransferLog(tx, token, this.zero, to, amount);
  }

  private registerToken(block: CanonicalBlock, tx: CanonicalTx, id: number, name: string, symbol: string | null, decimals: number): PosToken {
    const token: PosToken = { id, holders: [], balances: new Map() };
    this.tokens.push(token);
    this.tokenById.set(id, token);
    block.tokens = own(block.tokens);
    block.tokens.push({ contract: this.ledger.address[id]!, name, symbol, decimals, creator: tx.from, createdTx: tx.hash });
    return token;
  }

  /** A Transfer log: moves `amount` of `token` (mints when `from` is the zero address). */
  private tokenTransferLog(tx: CanonicalTx, token: PosToken, from: number, to: number, amount: bigint): void {
    if (from !== this.zero) token.balances.set(from, token.balances.get(from)! - amount);
    const before = token.balances.get(to);
    if (before === undefined) token.holders.push(to);
    token.balances.set(to, (before ?? 0n) + amount);
    tx.tokenTransfers = own(tx.tokenTransfers);
    tx.tokenTransfers.push({ logIndex: this.logIndex++, contract: this.ledger.address[token.id]!, from: this.ledger.address[from]!, to: this.ledger.address[to]!, amount });
  }

  private migrationMints(ts: number): void {
    while (this.claimCursor < this.claims.length && this.claims[this.claimCursor]!.claimTs! <= ts) {
      const item = this.claims[this.claimCursor++]!;
      const claimant = this.economy.enrol(this.ledger.create(item.claimant, Role.User), newUserTier(this.rng, HODLER_SHARE));
      // A protocol mint: from the zero address, no gas and no fee; the value is the burned shor in planck.
      const tx = this.begin('transfer', this.zero, null, 0n, 0, 0, { maxFee: 0n, priority: 0n, effective: 0n }, null);
      tx.to = item.claimant;
      tx.value = mintedPlanck(item);
      tx.migration = { accountId: item.accountId, role: 'mint' };
      this.ledger.credit(claimant, tx.value);
    }
  }

  /**
   * Congestion episodes (about one a day, a couple of hours each): block-filling batch transactions
   * from bots whenever the base fee is below the episode's level, which pushes the base fee up
   * the way EIP-1559 does on a busy chain; between episodes it decays towards zero.
   */
  private congestion(height: number): void {
    if (height >= this.busyUntil) {
      if (!this.rng.chance(1 / (DAY_SECONDS / this.options.posSlotSeconds))) return;
      // Episodes last the same time (in 12 s slots: 120 + about 600) whatever the slot time.
      this.busyUntil = height + Math.round(((120 + Math.floor(this.rng.exponential(600))) * POS_SPEC_SLOT_SECONDS) / this.options.posSlotSeconds);
      this.busyLevel = coinsMilli(this.rng.logUniform(2, 40) * 1000, GWEI);
    }
    if (!this.rng.chance(this.baseFee < this.busyLevel ? 0.9 : 0.35)) return;
    if (this.settlements.length === 0) return;
    const settlement = this.settlements[this.rng.int(this.settlements.length)]!;
    const bot = this.rng.pick(this.world.pos.bots);
    const room = POS_GAS_LIMIT - this.gasUsed;
    const gasUsed = Math.min(room, POS_GAS_LIMIT - this.rng.int(3_000_000) - this.gasUsed);
    if (gasUsed < 100_000) return;
    const gas = Math.min(POS_GAS_LIMIT, gasUsed + 50_000);
    const fees = this.bid();
    if (this.ledger.balance[bot]! < this.reserve(gas, fees)) return;
    this.begin('contract_call', bot, settlement, 0n, gas, gasUsed, fees, '0x' + hex32(this.rng.u32()) + randomHex(this.rng, 8));
  }

  // ---- actions ----

  private act(action: Action, block: CanonicalBlock): boolean {
    switch (action) {
      case 'p2p':
        return this.p2p();
      case 'deposit':
        return this.economy.deposit(-1, 0n);
      case 'withdraw':
        return this.withdraw();
      case 'tokenTransfer':
        return this.tokenTransfer();
      case 'swap':
        return this.swap();
      case 'disperse':
        return this.disperse();
      case 'vault':
        return this.vault();
      case 'deploy':
        return this.deploy(block);
      case 'call':
        return this.genericCall();
      case 'whale':
        return this.economy.whaleMove();
      case 'grant':
        return this.economy.grant();
    }
  }

  private p2p(): boolean {
    const from = this.economy.sender(PLANCK / 1000n);
    if (from < 0) return false;
    const value = this.economy.userAmount(this.spendable(from));
    return value > 0n && this.transfer(from, this.economy.recipient(0.18, from), value);
  }

  /** An exchange pays a customer out of a hot wallet. */
  private withdraw(): boolean {
    const hot = this.economy.hotWallet(this.economy.pickExchange());
    const cap = this.spendable(hot) / 4n;
    let value = this.economy.withdrawalAmount();
    if (value > cap) value = cap;
    return value > 0n && this.transfer(hot, this.economy.recipient(0.3, hot), value);
  }

  private contractCallGas(min: number, max: number): [number, number, 0 | 1] {
    const gasUsed = this.rng.range(min, max);
    const gas = Math.floor(gasUsed * (1.1 + 0.4 * this.rng.float()));
    if (this.rng.chance(REVERT_SHARE)) return [gas, Math.floor(gasUsed * (0.3 + 0.6 * this.rng.float())), 0];
    return [gas, gasUsed, 1];
  }

  private tokenTransfer(): boolean {
    if (this.tokens.length === 0) return false;
    const token = this.tokens[Math.floor(this.tokens.length * this.rng.float() ** 2)]!;
    let from = -1;
    for (let tries = 0; tries < 6 && from < 0; tries++) {
      const id = token.holders[this.rng.int(token.holders.length)]!;
      const role = this.ledger.role[id];
      if ((this.ledger.tier[id] !== Tier.None || role === Role.Treasury) && token.balances.get(id)! > 0n && this.spendable(id, 65_000) > 0n) from = id;
    }
    if (from < 0) return false;
    const to = this.rng.chance(0.2) ? token.holders[this.rng.int(token.holders.length)]! : this.economy.recipient(0.3, from);
    if (to === from || this.ledger.role[to] === Role.Contract) return false;
    const amount = fractionOf(token.balances.get(from)!, this.ledger.role[from] === Role.Treasury ? 0.001 * this.rng.float() : 0.05 + 0.95 * this.rng.float());
    if (amount <= 0n) return false;
    const [gas, gasUsed, status] = this.contractCallGas(34_000, 52_000);
    const input = '0x' + TRANSFER_SELECTOR + '0'.repeat(24) + this.ledger.address[to]!.slice(1) + amount.toString(16).padStart(64, '0');
    const tx = this.begin('contract_call', from, token.id, 0n, gas, gasUsed, this.bid(), input, status);
    if (status === 1) this.tokenTransferLog(tx, token, from, to, amount);
    return true;
  }

  /** Swaps on the constant-product pool (native <-> QUSD) through the router: nested internal calls. */
  private swap(): boolean {
    const router = this.system.get('router');
    const pool = this.system.get('dex_pool');
    const qusd = this.system.get('QUSD');
    if (router === undefined || pool === undefined || qusd === undefined) return false;
    const token = this.tokenById.get(qusd)!;
    const from = this.economy.sender(PLANCK);
    if (from < 0) return false;
    const [gas, gasUsed, status] = this.contractCallGas(110_000, 190_000);
    const fees = this.bid();
    const reserveNative = this.ledger.balance[pool]!;
    const reserveToken = token.balances.get(pool) ?? 0n;
    const held = token.balances.get(from) ?? 0n;
    if (held > 0n && this.rng.chance(0.5)) {
      // Tokens in, native out: pool -> router -> user.
      const amountIn = fractionOf(held, 0.1 + 0.9 * this.rng.float());
      const out = (reserveNative * amountIn * 997n) / (reserveToken * 1000n + amountIn * 997n);
      if (out <= 0n || this.ledger.balance[from]! < this.reserve(gas, fees)) return false;
      const tx = this.begin('contract_call', from, router, 0n, gas, gasUsed, fees, '0x18cbafe5' + randomHex(this.rng, 16), status);
      if (status === 0) return true;
      this.tokenTransferLog(tx, token, from, pool, amountIn);
      this.internal(tx, '0.0', pool, router, out);
      this.internal(tx, '1', router, from, out);
      return true;
    }
    // Native in, tokens out: user -> router -> pool, with a protocol fee from the pool to the fund.
    const value = fractionOf(this.spendable(from, gas), 0.02 + 0.3 * this.rng.float());
    const amountOut = (reserveToken * value * 997n) / (reserveNative * 1000n + value * 997n);
    if (value <= 0n || amountOut <= 0n) return false;
    const tx = this.begin('contract_call', from, router, value, gas, gasUsed, fees, '0x7ff36ab5' + randomHex(this.rng, 16), status);
    if (status === 0) return true;
    this.internal(tx, '0', router, pool, value);
    this.internal(tx, '0.0', pool, this.world.pos.treasury[1]!, value / 500n);
    this.tokenTransferLog(tx, token, pool, from, amountOut);
    return true;
  }

  private internal(tx: CanonicalTx, traceAddress: string, from: number, to: number, value: bigint): void {
    if (value <= 0n) return;
    this.ledger.transfer(from, to, value);
    const transfer: InternalTransfer = { traceAddress, callType: 'call', from: this.ledger.address[from]!, to: this.ledger.address[to]!, value };
    tx.internal = own(tx.internal);
    tx.internal.push(transfer);
  }

  /** One payment fanned out to many addresses by a contract (internal transfers '0', '1', ...). */
  private disperse(): boolean {
    const contract = this.system.get('disperse');
    if (contract === undefined) return false;
    const from = this.economy.sender(10n * PLANCK);
    if (from < 0) return false;
    const count = 5 + this.rng.int(46);
    const [gas, gasUsed, status] = this.contractCallGas(30_000 + 9_000 * count, 30_000 + 11_000 * count);
    const value = fractionOf(this.spendable(from, gas), 0.05 + 0.4 * this.rng.float());
    if (value <= 0n) return false;
    const amounts: bigint[] = [];
    splitInto(amounts, value, count, this.rng);
    const tx = this.begin('contract_call', from, contract, value, gas, gasUsed, this.bid(), '0xe63d38ed' + randomHex(this.rng, 16), status);
    if (status === 0) return true;
    for (let i = 0; i < count; i++) this.internal(tx, String(i), contract, this.economy.recipient(0.3, from), amounts[i]!);
    // Rounding leaves nothing behind: splitInto's parts sum to value exactly.
    return true;
  }

  /** Savings vault: deposits stay in the contract; withdrawals come back as an internal transfer. */
  private vault(): boolean {
    const contract = this.system.get('vault');
    if (contract === undefined) return false;
    const from = this.economy.sender(PLANCK);
    if (from < 0) return false;
    const [gas, gasUsed, status] = this.contractCallGas(45_000, 90_000);
    const held = this.ledger.balance[contract]!;
    if (held > PLANCK && this.rng.chance(0.45)) {
      const amount = fractionOf(held, 0.01 + 0.1 * this.rng.float());
      const fees = this.bid();
      if (this.ledger.balance[from]! < this.reserve(gas, fees)) return false;
      const tx = this.begin('contract_call', from, contract, 0n, gas, gasUsed, fees, '0x2e1a7d4d' + amount.toString(16).padStart(64, '0'), status);
      if (status === 1) this.internal(tx, '0', contract, from, amount);
      return true;
    }
    const value = fractionOf(this.spendable(from, gas), 0.1 + 0.5 * this.rng.float());
    if (value <= 0n) return false;
    this.begin('contract_call', from, contract, value, gas, gasUsed, this.bid(), '0xd0e30db0', status);
    return true;
  }

  /** A user deploys a contract; about a third are ERC-20 tokens minting their supply to the deployer. */
  private deploy(block: CanonicalBlock): boolean {
    const from = this.economy.sender(PLANCK);
    if (from < 0) return false;
    const gas = 3_000_000;
    const fees = this.bid();
    if (this.ledger.balance[from]! < this.reserve(gas, fees)) return false;
    const contract = this.ledger.create(posAddress(this.rng), Role.Contract);
    const tx = this.begin('contract_create', from, contract, 0n, gas, 500_000 + this.rng.int(2_400_000), fees, '0x60806040' + randomHex(this.rng, 24));
    tx.to = null;
    tx.contractAddress = this.ledger.address[contract]!;
    this.userContracts.push(contract);
    if (this.rng.chance(0.35)) {
      const name = `${this.rng.pick(['Moon', 'Quantum', 'Lattice', 'Stellar', 'Photon', 'Nova', 'Zen'])} ${this.rng.pick(['Coin', 'Token', 'Cash', 'Credits'])}`;
      const symbol = name.split(' ').map((w) => w.slice(0, 2).toUpperCase()).join('');
      const token = this.registerToken(block, tx, contract, name, symbol, 18);
      this.tokenTransferLog(tx, token, this.zero, from, BigInt(10 ** (4 + this.rng.int(6))) * PLANCK);
    }
    return true;
  }

  /** Calls into user contracts that move nothing we track (state changes, approvals, games...), some of them heavy. */
  private genericCall(): boolean {
    if (this.userContracts.length === 0) return false;
    const to = this.userContracts[this.rng.int(this.userContracts.length)]!;
    const from = this.economy.sender(PLANCK / 10n);
    if (from < 0) return false;
    const heavy = this.rng.chance(0.05);
    const [gas, gasUsed, status] = heavy ? this.contractCallGas(1_000_000, 3_000_000) : this.contractCallGas(40_000, 400_000);
    const fees = this.bid();
    if (this.ledger.balance[from]! < this.reserve(gas, fees)) return false;
    this.begin('contract_call', from, to, 0n, gas, gasUsed, fees, '0x' + hex32(this.rng.u32()) + randomHex(this.rng, 8), status);
    return true;
  }

}

/** Fills the EIP-1559 fields: fee = gasUsed x effective price, burned = gasUsed x base fee. */
function fillFees(tx: CanonicalTx, gas: number, gasUsed: number, maxFee: bigint, priority: bigint, effective: bigint, baseFee: bigint): void {
  const used = BigInt(gasUsed);
  tx.typeEvm = 2;
  tx.gas = gas;
  tx.gasUsed = gasUsed;
  tx.maxFeePerGas = maxFee;
  tx.maxPriorityFeePerGas = priority;
  tx.effectiveGasPrice = effective;
  tx.gasPrice = effective;
  tx.fee = used * effective;
  tx.burned = gasUsed === 0 ? 0n : used * baseFee;
}

export function createPosGenerator(world: WorldPlan): PosRun {
  return new PosRun(world);
}
