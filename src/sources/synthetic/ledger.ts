/**
 * The generator's state per account: address, balance, signature counter, and the few facts the
 * activity model keeps. Accounts are dense integer ids; per-account facts live in growable typed
 * arrays so that a million accounts cost a few tens of megabytes and no per-account objects.
 *
 * Every balance change goes through `credit`/`debit`, which refuse to take a balance below zero
 * (a bug then stops the generator instead of emitting an invalid chain), and which record undo
 * steps while a journal is open: orphan blocks of a reorg are generated against the real state
 * and then rolled back, so they never leak into the canonical branch.
 */

export enum Role {
  User = 0,
  ExchangeHot = 1,
  ExchangeCold = 2,
  DepositRelay = 3,
  MiningPool = 4,
  SoloMiner = 5,
  Treasury = 6,
  Custodial = 7,
  Migration = 8,
  Slave = 9,
  Contract = 10,
  Bot = 11,
  StakingOperator = 12,
  Sentinel = 13,
  /** pow: a multi-signature address (it never signs; its signatories' votes spend from it). */
  MultiSig = 14,
}

/** Whether an account deposits at an exchange as a customer (keeping one deposit relay); entities do not. */
export function isCustomer(role: Role): boolean {
  return role === Role.User || role === Role.SoloMiner || role === Role.StakingOperator;
}

/** Activity tiers: how often the activity model picks an account (see population.ts). */
export enum Tier {
  /** Never picked: dormant, entity-driven or receive-only accounts. */
  None = 0,
  Casual = 1,
  Regular = 2,
  Heavy = 3,
  Whale = 4,
}

export class Ledger {
  readonly address: string[] = [];
  /**
   * Balances in the chain's smallest unit. pow balances fit in 64 bits (the supply is 1.05e17
   * shor), so they live inline in a BigUint64Array: no heap object per balance, which keeps the
   * garbage collector out of the hot path. pos balances (planck, up to ~1e26) need a bigint array.
   */
  balance: BigUint64Array | bigint[];
  /** pow: the next unused XMSS one-time key index; pos: the next nonce. */
  counter = new Int32Array(1024);
  /** pow: 2^height one-time keys of the account's XMSS tree (0 = cannot sign). */
  signatures = new Int32Array(1024);
  role = new Uint8Array(1024);
  tier = new Uint8Array(1024);
  /** Position in its tier's array, for O(1) removal. */
  tierSlot = new Int32Array(1024);
  /** The customer's deposit relay at its exchange (-1: none yet), or for a relay its exchange index. */
  link = new Int32Array(1024).fill(-1);
  private journal: (() => void)[] | null = null;

  constructor(readonly wideBalances: boolean) {
    this.balance = wideBalances ? [] : new BigUint64Array(1024);
  }

  get size(): number {
    return this.address.length;
  }

  create(address: string, role: Role, signatures = 0): number {
    const id = this.address.length;
    if (id === this.counter.length) this.grow();
    this.address.push(address);
    if (Array.isArray(this.balance)) this.balance.push(0n);
    this.role[id] = role;
    this.signatures[id] = signatures;
    return id;
  }

  credit(id: number, amount: bigint): void {
    if (amount === 0n) return;
    if (this.journal) {
      const before = this.balance[id]!;
      this.journal.push(() => (this.balance[id] = before));
    }
    this.balance[id] = this.balance[id]! + amount;
  }

  debit(id: number, amount: bigint): void {
    if (amount === 0n) return;
    const before = this.balance[id]!;
    if (before < amount) throw new Error(`synthetic ledger: ${this.address[id]} would go below zero (${before} - ${amount})`);
    if (this.journal) this.journal.push(() => (this.balance[id] = before));
    this.balance[id] = before - amount;
  }

  transfer(from: number, to: number, amount: bigint): void {
    this.debit(from, amount);
    this.credit(to, amount);
  }

  /** Returns the account's next counter value (OTS index or nonce) and advances it. */
  useCounter(id: number): number {
    const value = this.counter[id]!;
    if (this.journal) this.journal.push(() => (this.counter[id] = value));
    this.counter[id] = value + 1;
    return value;
  }

  /** Takes back the value `useCounter` just returned: the signature used an earlier key instead (a reuse). */
  returnCounter(id: number): void {
    const value = this.counter[id]!;
    if (this.journal) this.journal.push(() => (this.counter[id] = value));
    this.counter[id] = value - 1;
  }

  /** Whether a pow account can still sign `count` more times. */
  canSign(id: number, count = 1): boolean {
    return this.counter[id]! + count <= this.signatures[id]!;
  }

  /** Starts recording undo steps (only balance and counter changes may happen until `rollback`). */
  openJournal(): void {
    this.journal = [];
  }

  /** Undoes everything since `openJournal`. */
  rollback(): void {
    const steps = this.journal ?? [];
    this.journal = null;
    for (let i = steps.length - 1; i >= 0; i--) steps[i]!();
  }

  private grow(): void {
    const n = this.counter.length * 2;
    const grow32 = (a: Int32Array, fill = 0) => {
      const b = new Int32Array(n).fill(fill);
      b.set(a);
      return b;
    };
    const grow8 = (a: Uint8Array) => {
      const b = new Uint8Array(n);
      b.set(a);
      return b;
    };
    this.counter = grow32(this.counter);
    this.signatures = grow32(this.signatures);
    this.tierSlot = grow32(this.tierSlot);
    this.link = grow32(this.link, -1);
    this.role = grow8(this.role);
    if (!Array.isArray(this.balance)) {
      const balance = new BigUint64Array(n);
      balance.set(this.balance);
      this.balance = balance;
    }
    this.tier = grow8(this.tier);
  }
}
