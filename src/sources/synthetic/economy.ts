/**
 * The behaviour both chains share, written once: who sends and who receives, exchange deposits
 * through relays and their forwards, hot/cold rebalancing, whale moves and grants. What differs
 * between the chains (units, address forms, how a transaction pays its fee) comes in through a
 * `ChainFlavour`; each chain's own phenomena stay in pow.ts and pos.ts.
 *
 * Every random draw happens in the order the chains' generators have always made it: a seed's
 * chains must not change (digest.test.ts pins them).
 */
import type { GenesisAllocation } from '../../chain/model.ts';
import type { ChainPlan, ExchangePlan } from './actors.ts';
import type { ActivityCurve } from './activity.ts';
import { Tier, isCustomer, type Ledger } from './ledger.ts';
import { FOREVER, Population, lifetimeDays, newUserTier } from './population.ts';
import { coins, coinsMilli, cumulative, fractionOf, maxBig, minBig, type Rng } from './rng.ts';

/** What the shared behaviour needs to know about a chain. */
export interface ChainFlavour {
  /** Share of new users who only ever receive (they never act). */
  hodlerShare: number;
  /** The step of dust amounts in the smallest unit (pow: 1 shor; pos: 1 gwei). */
  dust: bigint;
  /** Mean blocks between a deposit and its relay's forward. */
  forwardDelay: number;
  /** Treasuries keep 1/treasuryKeeps of their genesis. */
  treasuryKeeps: bigint;
  /** Creates a user account (its address form is the chain's) and returns its id. */
  createUser(tier: Tier): number;
  /** Whether the account can sign a transaction now (pow: one-time keys left, or slaves). */
  canSend(id: number): boolean;
  /** pow draws the fee before it chooses an amount (the fee limits it); pos bids when it sends: 0n. */
  upfrontFee(): bigint;
  /** What `from` can send after its fee: the up-front fee (pow), or gas for a transfer at the block's worst price (pos). */
  spendable(from: number, fee: bigint): bigint;
  /** What a hot wallet keeps back from the excess it sweeps to cold storage (pow: the fee; pos: a coin). */
  sweepMargin(fee: bigint): bigint;
  /** A plain transfer; false (nothing happens) if `from` cannot afford or sign it. */
  send(from: number, to: number, value: bigint, fee: bigint): boolean;
  /** A relay passes everything it holds, less the cost of doing so, to `to`. */
  forwardAll(relay: number, to: number): void;
  /** A custodian moves a slice of its holdings to an exchange's cold wallet. */
  custodyToExchange(custodian: number, fee: bigint): boolean;
}

export interface EconomyDeps {
  plan: ChainPlan;
  ledger: Ledger;
  /** The chain's canonical stream. */
  rng: Rng;
  activity: ActivityCurve;
  flavour: ChainFlavour;
}

interface ExchangeState {
  plan: ExchangePlan;
  relayNext: number;
}

export class Economy {
  readonly pop: Population;
  readonly activity: ActivityCurve;
  /** Balances some accounts never go below: named whales stay whales, treasuries keep part of their genesis. */
  readonly floors = new Map<number, bigint>();
  private readonly plan: ChainPlan;
  private readonly ledger: Ledger;
  private readonly rng: Rng;
  private readonly flavour: ChainFlavour;
  private readonly unit: bigint;
  private readonly exchanges: ExchangeState[];
  private readonly exchangeCumulative: number[];
  private readonly forwardsDue = new Map<number, number[]>();
  private readonly forwardPending = new Set<number>();
  /** The height of the block being built, and the index of its day in the chain's history. */
  private height = 0;
  private day = -1;
  /** Scheduled transactions not yet taken out of the random activity's budget. */
  private debt = 0;

  /** Registers the plan's accounts (their ids are their indexes in the plan) and its exchanges. */
  constructor({ plan, ledger, rng, activity, flavour }: EconomyDeps) {
    this.plan = plan;
    this.ledger = ledger;
    this.rng = rng;
    this.activity = activity;
    this.flavour = flavour;
    this.unit = plan.unitsPerCoin;
    this.pop = new Population(ledger);
    for (const account of plan.accounts) {
      const id = ledger.create(account.address, account.role, account.signatures);
      this.pop.join(id, account.tier, account.retireDay);
    }
    this.exchanges = plan.exchanges.map((e, index) => {
      for (const relay of e.relays) ledger.link[relay] = index;
      return { plan: e, relayNext: 0 };
    });
    this.exchangeCumulative = cumulative(plan.exchanges.map((e) => e.share));
    plan.whales.forEach((w, i) => this.floors.set(w, i === 0 ? 5_050_000n * this.unit : maxBig(plan.accounts[w]!.genesis / 2n, 100_500n * this.unit)));
    for (const t of plan.treasury) this.floors.set(t, plan.accounts[t]!.genesis / flavour.treasuryKeeps);
  }

  /** The plan's genesis shares: each account that holds coins from block 0, and how many. */
  genesisShares(): { id: number; amount: bigint }[] {
    return this.plan.accounts.map((a, id) => ({ id, amount: a.genesis })).filter((a) => a.amount > 0n);
  }

  /** Credits the genesis shares as genesis allocations (block 0 of pos; pow's genesis pays them in transactions). */
  allocateGenesis(): GenesisAllocation[] {
    return this.genesisShares().map(({ id, amount }) => {
      this.ledger.credit(id, amount);
      return { address: this.plan.accounts[id]!.address, amount };
    });
  }

  /** Starts canonical block `height` at `ts`: retires the accounts whose last day has passed. */
  startBlock(height: number, ts: number): void {
    this.height = height;
    const day = this.activity.day(ts);
    while (this.day < day) {
      this.day++;
      this.pop.retireBefore(this.day);
    }
  }

  /**
   * How many random actions the block gets: a Poisson draw of mean `mean`, less what scheduled
   * transactions (`scheduled` more in this block) have already used of the budget.
   */
  randomActions(mean: number, scheduled: number): number {
    this.debt += scheduled;
    const count = this.rng.poisson(mean);
    const paid = Math.min(count, this.debt);
    this.debt -= paid;
    return count - paid;
  }

  // ---- accounts ----

  newUser(tier: Tier = newUserTier(this.rng, this.flavour.hodlerShare)): number {
    return this.enrol(this.flavour.createUser(tier), tier);
  }

  /** Lets a new account act from today on in `tier`, for a lifetime drawn for the tier. */
  enrol(id: number, tier: Tier): number {
    this.pop.join(id, tier, tier === Tier.None ? FOREVER : this.day + lifetimeDays(this.rng, tier));
    return id;
  }

  /** An existing active account (not `exclude`), or a new one with probability `pNew`. */
  recipient(pNew: number, exclude: number): number {
    if (!this.rng.chance(pNew)) {
      const id = this.pop.pick(this.rng);
      if (id >= 0 && id !== exclude) return id;
    }
    return this.newUser();
  }

  /** An active account that can sign and holds at least `min`, or -1. */
  sender(min: bigint): number {
    for (let tries = 0; tries < 8; tries++) {
      const id = this.pop.pick(this.rng);
      if (id >= 0 && this.ledger.balance[id]! >= min && this.flavour.canSend(id)) return id;
    }
    return -1;
  }

  // ---- amounts ----

  /** What a user sends out of `available`: fractions, round amounts, everything, or dust. */
  userAmount(available: bigint): bigint {
    if (available <= 0n) return 0n;
    const x = this.rng.float();
    let amount: bigint;
    if (x < 0.45) amount = fractionOf(available, this.rng.float() ** 2.5);
    else if (x < 0.7) amount = coins(10 ** (this.rng.float() * 4), this.unit);
    else if (x < 0.85) amount = available;
    else if (x < 0.96) amount = coinsMilli(100 + this.rng.int(10_000), this.unit);
    else amount = BigInt(1 + this.rng.int(1_000_000)) * this.flavour.dust;
    if (amount > available) amount = fractionOf(available, this.rng.float());
    return amount > 0n ? amount : 1n;
  }

  /** An exchange withdrawal's size: 1 to 20,000 coins, log-uniform skewed small (callers cap it). */
  withdrawalAmount(): bigint {
    return coinsMilli(10 ** (this.rng.float() ** 1.3 * 4.3) * 1000, this.unit);
  }

  // ---- exchanges ----

  pickExchange(): ExchangeState {
    return this.exchanges[this.rng.weighted(this.exchangeCumulative)]!;
  }

  /** The exchange's hot wallet that pays or receives: the first, or now and then the second. */
  hotWallet(exchange: ExchangeState): number {
    const hot = exchange.plan.hot;
    return hot.length > 1 && this.rng.chance(0.1) ? hot[1]! : hot[0]!;
  }

  /** A customer (or a random sender, when `customer` is -1) pays into its relay at its exchange; the relay forwards later. */
  deposit(customer: number, amount: bigint): boolean {
    const fee = this.flavour.upfrontFee();
    const from = customer >= 0 ? customer : this.sender(fee + this.unit);
    if (from < 0) return false;
    let relay = this.ledger.link[from]!;
    const keepsRelay = isCustomer(this.ledger.role[from]!);
    if (relay < 0 || !keepsRelay) {
      const exchange = this.pickExchange();
      const relays = exchange.plan.relays;
      relay = exchange.relayNext < relays.length ? relays[exchange.relayNext++]! : relays[this.rng.int(relays.length)]!;
      if (keepsRelay) this.ledger.link[from] = relay;
    }
    const available = this.flavour.spendable(from, fee);
    const value = amount > 0n ? amount : this.rng.chance(0.55) ? available : fractionOf(available, 0.3 + 0.65 * this.rng.float());
    if (!this.flavour.send(from, relay, value, fee)) return false;
    if (!this.forwardPending.has(relay)) {
      this.forwardPending.add(relay);
      this.scheduleForwards(this.height + 1 + Math.floor(this.rng.exponential(this.flavour.forwardDelay)), [relay]);
    }
    return true;
  }

  /** Relays due at `height` pass everything they hold to their exchange's hot wallet. */
  forwards(height: number): void {
    const due = this.forwardsDue.get(height);
    if (!due) return;
    this.forwardsDue.delete(height);
    for (const relay of due) {
      this.forwardPending.delete(relay);
      this.flavour.forwardAll(relay, this.hotWallet(this.exchanges[this.ledger.link[relay]!]!));
    }
  }

  /** Canonical block `height` could not be read: the forwards due in it wait for the next one. */
  postponeForwards(height: number): void {
    const due = this.forwardsDue.get(height);
    if (!due) return;
    this.forwardsDue.delete(height);
    this.scheduleForwards(height + 1, due);
  }

  private scheduleForwards(height: number, relays: number[]): void {
    const list = this.forwardsDue.get(height);
    if (list) list.push(...relays);
    else this.forwardsDue.set(height, [...relays]);
  }

  /** Keeps each hot wallet near its working balance by moving coins from or to cold storage. */
  rebalanceExchanges(): void {
    for (const exchange of this.exchanges) {
      const cold = exchange.plan.cold[0]!;
      for (const hot of exchange.plan.hot) {
        const target = maxBig(this.plan.accounts[hot]!.genesis, 1_000n * this.unit);
        const balance = this.ledger.balance[hot]!;
        const fee = this.flavour.upfrontFee();
        if (balance < (target * 3n) / 10n) {
          const source = exchange.plan.cold.reduce((best, c) => (this.ledger.balance[c]! > this.ledger.balance[best]! ? c : best), cold);
          const amount = minBig(target - balance, this.flavour.spendable(source, fee));
          if (amount > 0n) this.flavour.send(source, hot, amount, fee);
        } else if (balance > target * 3n) {
          this.flavour.send(hot, cold, balance - target - this.flavour.sweepMargin(fee), fee);
        }
      }
    }
  }

  // ---- large holders ----

  /** Whales move slices of their holdings: to exchanges, to new wallets (new whales), or to users. */
  whaleMove(): boolean {
    const whale = this.pop.pickFrom(this.rng, Tier.Whale);
    if (whale < 0 || !this.flavour.canSend(whale)) return false;
    const fee = this.flavour.upfrontFee();
    const available = this.flavour.spendable(whale, fee) - (this.floors.get(whale) ?? 0n);
    if (available <= this.unit) return false;
    const amount = fractionOf(available, 0.02 + 0.3 * this.rng.float() ** 2);
    const x = this.rng.float();
    if (x < 0.4) return this.deposit(whale, amount);
    const to = x < 0.7 ? this.newUser(this.rng.chance(0.5) ? Tier.Whale : Tier.None) : this.recipient(0, whale);
    return this.flavour.send(whale, to, amount, fee);
  }

  /** Treasuries pay grants; custodians move between custody and exchanges. */
  grant(): boolean {
    const fee = this.flavour.upfrontFee();
    if (this.rng.chance(0.7)) {
      const from = this.rng.pick(this.plan.treasury);
      const available = this.flavour.spendable(from, fee) - this.floors.get(from)!;
      const amount = coins(1_000 + this.rng.pareto(1, 1.2) * 1_000, this.unit);
      return amount <= available && this.flavour.send(from, this.recipient(0.5, from), amount, fee);
    }
    return this.flavour.custodyToExchange(this.rng.pick(this.plan.custodial), fee);
  }
}
