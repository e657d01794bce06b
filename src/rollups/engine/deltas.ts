/**
 * The one definition of what blocks contribute to the rollups. `RollupDeltas` takes canonical
 * blocks in chain order and sums, per rollup key, what they add: per address (balance, totals,
 * counts, first and last activity, provenance, pow/pos specifics), per address and day, per
 * address and weekday-hour, per pair of addresses, per token holding, per chain and day.
 *
 * The same deltas are added when blocks are applied and subtracted when a reorg reverts them
 * (the reverted blocks are read back from the raw tables), so the two always agree.
 *
 * Native value: balance = Σ received - Σ debit - Σ fee, where `debit` is the value sent except
 * by the sender of a mint (coinbase, migration mint), which creates the coins it sends. The pow
 * coinbase sentinel is debited as a QRL node debits its zero address: by each block's reward
 * (`powCoinbaseDebit`), out of the reserve the genesis block allocates it (docs/indexing-pow.md,
 * "Genesis"); the fees a coinbase passes on are paid by the transactions' senders.
 *
 * Minted (chain_daily.minted): the block rewards after genesis, withdrawals and migration mints.
 * The genesis block's reward (pow: the premine its coinbase pays) is part of the genesis supply
 * instead (`genesisSupply` in rollups/supply.ts).
 */
import type { ChainId } from '../../chain/chains.ts';
import { isSentinel } from '../../chain/chains.ts';
import { NON_USER_TX_TYPES, valueLegs, type CanonicalBlock, type CanonicalTx, type OpeningBalance } from '../../chain/model.ts';
import { powCoinbaseDebit } from '../../chain/pow-emission.ts';
import { DAY_SECONDS, dayName, dayNumber } from '../../time.ts';

/** Position of a movement in chain order: (height, tx index, sub-position). */
type Position = readonly [height: number, txIndex: number, seq: number];

export interface SummaryDelta {
  received: bigint;
  sent: bigint;
  debit: bigint;
  fees: bigint;
  feesBurned: bigint;
  gasUsed: number;
  txCount: number;
  txIn: number;
  txOut: number;
  first: { ts: number; height: number; tx: string; txIndex: number } | null;
  last: { ts: number; height: number; tx: string; txIndex: number } | null;
  funded: { by: string | null; tx: string | null; at: number; height: number; pos: Position } | null;
  withdrawalCount: number;
  withdrawalTotal: bigint;
  internalCount: number;
  internalReceived: bigint;
  internalSent: bigint;
  deployedCount: number;
  isContract: boolean;
  masterAddress: string | null;
  slaveCount: number;
  otsUsed: number;
  otsMaxIndex: number | null;
  /** An opening balance the node could not tell: the balance is unknown. */
  openingUnknown: boolean;
}

export interface DailyDelta {
  received: bigint;
  sent: bigint;
  fees: bigint;
  feesBurned: bigint;
  gasUsed: number;
  txIn: number;
  txOut: number;
  txCount: number;
  userTxCount: number;
}

export interface HeatmapDelta {
  txIn: number;
  txOut: number;
  txTotal: number;
}

export interface PairDelta {
  txCount: number;
  sentCount: number;
  receivedCount: number;
  totalSent: bigint;
  totalReceived: bigint;
  lastTs: number;
}

export interface TokenDelta {
  balance: bigint;
  transferCount: number;
  lastTs: number;
}

/** The largest value a transaction of a day moved, and which one (the first in chain order on a tie). */
export interface LargestTx {
  value: bigint;
  hash: string;
  from: string;
  to: string | null;
  ts: number;
  height: number;
  txIndex: number;
}

export interface ChainDayDelta {
  blockCount: number;
  txCount: number;
  userTxCount: number;
  feeSum: bigint;
  burned: bigint;
  minted: bigint;
  volume: bigint;
  gasUsed: bigint;
  sizeSum: number;
  sizeMax: number;
  intervalSum: number;
  baseFeeSum: bigint;
  /** Transactions per type (pow subtypes, pos categories). */
  txTypes: Map<string, number>;
  /** Transactions per gas bucket (pos; docs/metrics.md, "Gas distribution"). */
  gasBuckets: Map<number, number>;
  /** Every fee of the day, as fee → transactions paying it: exact percentiles need the whole multiset. */
  fees: Map<bigint, number>;
  largest: LargestTx | null;
}

/** Per chain and UTC hour (hours since 1970): what hourly rates and the busiest hour read. */
export interface ChainHourDelta {
  blockCount: number;
  txCount: number;
}

/** The entry under (address, key) of a two-level map; `make` creates a missing one, kept when `keep`. */
function entryOf<K, V>(outer: Map<string, Map<K, V>>, address: string, key: K, make: () => V, keep: boolean, onNew: () => void): V {
  let inner = outer.get(address);
  let value = inner?.get(key);
  if (value === undefined) {
    value = make();
    if (keep) {
      if (!inner) outer.set(address, (inner = new Map()));
      inner.set(key, value);
      onNew();
    }
  }
  return value;
}

function emptySummary(): SummaryDelta {
  return {
    received: 0n, sent: 0n, debit: 0n, fees: 0n, feesBurned: 0n, gasUsed: 0, txCount: 0, txIn: 0, txOut: 0,
    first: null, last: null, funded: null, withdrawalCount: 0, withdrawalTotal: 0n, internalCount: 0,
    internalReceived: 0n, internalSent: 0n, deployedCount: 0, isContract: false, masterAddress: null,
    slaveCount: 0, otsUsed: 0, otsMaxIndex: null, openingUnknown: false,
  };
}

const emptyDaily = (): DailyDelta => ({ received: 0n, sent: 0n, fees: 0n, feesBurned: 0n, gasUsed: 0, txIn: 0, txOut: 0, txCount: 0, userTxCount: 0 });
const emptyHeatmap = (): HeatmapDelta => ({ txIn: 0, txOut: 0, txTotal: 0 });
// lastTs starts below any block time: pairOf and tokenOf raise it to the transaction's.
const emptyPair = (): PairDelta => ({ txCount: 0, sentCount: 0, receivedCount: 0, totalSent: 0n, totalReceived: 0n, lastTs: 0 });
const emptyToken = (): TokenDelta => ({ balance: 0n, transferCount: 0, lastTs: 0 });

const before = (a: Position, b: Position) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Sub-positions inside a transaction and block-level movements after the transactions. */
const SEQ_INTERNAL = 1_000_000;
const TX_INDEX_WITHDRAWALS = 2_000_000_000;
const TX_INDEX_TIPS = 2_000_000_001;

/**
 * The per-address figures are kept in two-level maps, address first: the address strings come
 * from the blocks and hash once. A composite string key would be built and hashed at every
 * lookup: a large share of the node's work in a bulk load, most of it garbage.
 */
export class RollupDeltas {
  readonly summary = new Map<string, SummaryDelta>();
  /** address → day number (dayName gives its date) → figures */
  readonly daily = new Map<string, Map<number, DailyDelta>>();
  /** address → dayOfWeek * 24 + hour → counts */
  readonly heatmap = new Map<string, Map<number, HeatmapDelta>>();
  /** address → counterparty → figures */
  readonly pairs = new Map<string, Map<string, PairDelta>>();
  /** address → token contract → figures */
  readonly tokens = new Map<string, Map<string, TokenDelta>>();
  /** key: 'YYYY-MM-DD' */
  readonly chainDaily = new Map<string, ChainDayDelta>();
  /** key: hours since 1970-01-01 */
  readonly chainHourly = new Map<number, ChainHourDelta>();
  /** Entries of daily, heatmap, pairs and tokens. */
  private entries = 0;
  private readonly counted = () => {
    this.entries++;
  };
  /** Logical (address, transaction) participations: the chain's address-tx touches. */
  participations = 0;
  blocks = 0;
  transactions = 0;
  /** address → height of the block (being added) in which its summary first appeared. */
  readonly seenAt = new Map<string, number>();
  private height = -1;
  fromHeight = Infinity;
  toHeight = -Infinity;
  /** Time of the block at toHeight. */
  lastTs = -Infinity;

  /**
   * @param previousTs time of the block below the first one added (for block intervals), or
   *   null when the first block added is the chain's first.
   * @param only keep the figures of these addresses (and of pairs with one of them) and of these
   *   days only: a partial recomputation (`quarry refresh`) rebuilds just what a range touched.
   */
  constructor(
    readonly chain: ChainId,
    private previousTs: number | null,
    private readonly only?: { addresses: ReadonlySet<string>; days: ReadonlySet<string> },
  ) {}

  /** Number of keys held: a measure of memory. */
  get size(): number {
    return this.summary.size + this.entries;
  }

  addBlock(block: CanonicalBlock): void {
    const { height, timestamp: ts } = block;
    this.blocks++;
    this.fromHeight = Math.min(this.fromHeight, height);
    if (height > this.toHeight) this.lastTs = ts;
    this.toHeight = Math.max(this.toHeight, height);
    const day = dayNumber(ts);

    this.height = height;
    for (const allocation of block.allocations) {
      this.receive(allocation.address, allocation.amount, ts, [0, -1, 0], null, null);
    }
    for (const opening of block.openings ?? []) this.addOpening(opening, ts);
    let tips = 0n;
    for (const tx of block.transactions) {
      this.addTransaction(tx, height, ts, day, block.reward);
      tips += tx.fee - tx.burned;
    }
    block.withdrawals.forEach((w, position) => {
      this.receive(w.address, w.amount, ts, [height, TX_INDEX_WITHDRAWALS, position], null, null);
      const s = this.summaryOf(w.address);
      s.withdrawalCount++;
      s.withdrawalTotal += w.amount;
    });
    // On pow the miner is paid by the coinbase transaction; on pos the fee recipient gets the tips.
    if (this.chain === 'pos' && block.miner && tips > 0n) {
      this.receive(block.miner, tips, ts, [height, TX_INDEX_TIPS, 0], null, null);
    }

    this.hourOf(ts).blockCount++;
    const c = this.chainDayOf(dayName(day));
    c.blockCount++;
    c.sizeSum += block.size;
    c.sizeMax = Math.max(c.sizeMax, block.size);
    c.intervalSum += this.previousTs === null ? 0 : ts - this.previousTs;
    this.previousTs = ts;
    c.gasUsed += BigInt(block.gasUsed ?? 0);
    c.baseFeeSum += block.baseFeePerGas ?? 0n;
    if (height > 0) c.minted += block.reward;
    for (const w of block.withdrawals) c.minted += w.amount;
  }

  /**
   * An opening balance (indexing from above genesis) of an address first seen in the block being
   * added: received on that day like a genesis allocation, though it funds nothing (it was funded
   * before the indexed range). An unknown one credits nothing and marks the balance unknown.
   */
  addOpening(opening: OpeningBalance, ts: number): void {
    const s = this.summaryOf(opening.address);
    if (opening.amount === null) {
      s.openingUnknown = true;
      return;
    }
    s.received += opening.amount;
    this.dailyOf(opening.address, dayNumber(ts)).received += opening.amount;
  }

  private addTransaction(tx: CanonicalTx, height: number, ts: number, day: number, reward: bigint): void {
    this.transactions++;
    const ok = tx.status !== 0;
    const mints = tx.type === 'coinbase' || tx.migration?.role === 'mint';

    // The sender pays the fee always, and the value unless the transaction reverted; the pow
    // coinbase sentinel pays the block's reward.
    const sender = this.summaryOf(tx.from);
    const sent = ok ? tx.value : 0n;
    const debit = this.chain === 'pow' && tx.type === 'coinbase' ? powCoinbaseDebit(height, reward) : ok && !mints ? tx.value : 0n;
    sender.sent += sent;
    sender.debit += debit;
    sender.fees += tx.fee;
    sender.feesBurned += tx.burned;
    sender.gasUsed += tx.gasUsed ?? 0;
    const senderDay = this.dailyOf(tx.from, day);
    senderDay.sent += debit;
    senderDay.fees += tx.fee;
    senderDay.feesBurned += tx.burned;
    senderDay.gasUsed += tx.gasUsed ?? 0;

    const legs = valueLegs(tx);
    if (ok) {
      legs.forEach((r, i) => {
        if (r.amount > 0n) this.receive(r.to, r.amount, ts, [height, tx.index, i + 1], tx.from, tx.hash);
      });
    }

    for (const frame of tx.internal) {
      const from = this.summaryOf(frame.from);
      from.sent += frame.value;
      from.debit += frame.value;
      from.internalSent += frame.value;
      from.internalCount++;
      this.dailyOf(frame.from, day).sent += frame.value;
      this.receive(frame.to, frame.value, ts, [height, tx.index, SEQ_INTERNAL], frame.from, tx.hash);
      const to = this.summaryOf(frame.to);
      to.internalReceived += frame.value;
      if (frame.to !== frame.from) to.internalCount++;
    }

    if (tx.contractAddress) {
      sender.deployedCount++;
      this.summaryOf(tx.contractAddress).isContract = true;
    }
    // Contracts a factory created (with or without value); a reverted transaction created none.
    if (ok) {
      for (const creation of tx.creations) {
        this.summaryOf(creation.creator).deployedCount++;
        this.summaryOf(creation.address).isContract = true;
      }
    }
    for (const slave of tx.slaves) {
      this.summaryOf(slave.slave).masterAddress = tx.from;
      sender.slaveCount++;
    }
    if (tx.otsIndex !== null) {
      const signer = this.summaryOf(tx.signer ?? tx.from);
      signer.otsUsed++;
      signer.otsMaxIndex = Math.max(signer.otsMaxIndex ?? -1, tx.otsIndex);
    }

    // Participation: each address once per transaction, receiving and/or sending (or signing).
    const ins = new Set(legs.map((r) => r.to));
    const outs = tx.signer ? [tx.from, tx.signer] : [tx.from];
    const user = !NON_USER_TX_TYPES.includes(tx.type);
    const dow = (day + 3) % 7; // 1970-01-01 was a Thursday; Monday = 0
    const hour = Math.floor((ts % DAY_SECONDS) / 3600);
    const participants = new Set(outs);
    for (const address of ins) participants.add(address);
    const at = { ts, height, tx: tx.hash, txIndex: tx.index };
    for (const address of participants) {
      const isIn = ins.has(address);
      const isOut = outs.includes(address);
      this.participations++;
      const s = this.summaryOf(address);
      s.txCount++;
      if (isIn) s.txIn++;
      if (isOut) s.txOut++;
      if (!s.first || height < s.first.height || (height === s.first.height && tx.index < s.first.txIndex)) s.first = at;
      if (!s.last || height > s.last.height || (height === s.last.height && tx.index > s.last.txIndex)) s.last = at;
      const d = this.dailyOf(address, day);
      d.txCount++;
      if (isIn) d.txIn++;
      if (isOut) d.txOut++;
      if (user) d.userTxCount++;
      const h = this.heatmapOf(address, dow, hour);
      h.txTotal++;
      if (isIn) h.txIn++;
      if (isOut) h.txOut++;
    }

    // Counterparties: top-level transfers between two real addresses (not a mint sentinel),
    // once per transaction and pair.
    const sentTo = new Map<string, bigint>();
    for (const r of legs) sentTo.set(r.to, (sentTo.get(r.to) ?? 0n) + (ok ? r.amount : 0n));
    if (!isSentinel(this.chain, tx.from)) {
      for (const [to, amount] of sentTo) {
        if (isSentinel(this.chain, to)) continue;
        const out = this.pairOf(tx.from, to, ts);
        out.sentCount++;
        out.totalSent += amount;
        if (to === tx.from) {
          out.receivedCount++;
          out.totalReceived += amount;
        } else {
          const back = this.pairOf(to, tx.from, ts);
          back.receivedCount++;
          back.totalReceived += amount;
        }
      }
    }

    if (ok) {
      for (const t of tx.tokenTransfers) {
        for (const [holder, delta] of [[t.to, t.amount], [t.from, -t.amount]] as const) {
          if (isSentinel(this.chain, holder)) continue;
          const token = this.tokenOf(holder, t.contract, ts);
          token.balance += delta;
          if (!(holder === t.to && holder === t.from && delta < 0n)) token.transferCount++;
        }
      }
    }

    const c = this.chainDayOf(dayName(day));
    c.txCount++;
    if (user) c.userTxCount++;
    c.txTypes.set(tx.type, (c.txTypes.get(tx.type) ?? 0) + 1);
    c.fees.set(tx.fee, (c.fees.get(tx.fee) ?? 0) + 1);
    if (this.chain === 'pos') {
      const bucket = gasBucket(tx);
      c.gasBuckets.set(bucket, (c.gasBuckets.get(bucket) ?? 0) + 1);
    }
    if (user && !mints && sent > 0n && (!c.largest || sent > c.largest.value)) {
      c.largest = { value: sent, hash: tx.hash, from: tx.from, to: tx.to ?? tx.contractAddress, ts, height, txIndex: tx.index };
    }
    this.hourOf(ts).txCount++;
    c.feeSum += tx.fee;
    c.burned += tx.burned;
    c.volume += sent;
    if (mints && tx.type !== 'coinbase' && ok) c.minted += tx.value;
  }

  private receive(address: string, amount: bigint, ts: number, pos: Position, from: string | null, txHash: string | null): void {
    const s = this.summaryOf(address);
    s.received += amount;
    if (amount > 0n && (!s.funded || before(pos, s.funded.pos) < 0)) {
      s.funded = { by: from, tx: txHash, at: ts, height: pos[0], pos };
    }
    this.dailyOf(address, dayNumber(ts)).received += amount;
  }

  private summaryOf(address: string): SummaryDelta {
    let s = this.summary.get(address);
    if (!s) {
      s = emptySummary();
      if (this.keeps(address)) {
        this.summary.set(address, s);
        this.seenAt.set(address, this.height);
      }
    }
    return s;
  }

  private keeps(address: string): boolean {
    return !this.only || this.only.addresses.has(address);
  }

  private dailyOf(address: string, day: number): DailyDelta {
    return entryOf(this.daily, address, day, emptyDaily, this.keeps(address), this.counted);
  }

  private heatmapOf(address: string, dow: number, hour: number): HeatmapDelta {
    return entryOf(this.heatmap, address, dow * 24 + hour, emptyHeatmap, this.keeps(address), this.counted);
  }

  /** The pair's delta, counting the transaction once per pair (a pair sees one tx per call site). */
  private pairOf(address: string, counterparty: string, ts: number): PairDelta {
    const keep = this.keeps(address) || this.keeps(counterparty);
    const p = entryOf(this.pairs, address, counterparty, emptyPair, keep, this.counted);
    p.txCount++;
    p.lastTs = Math.max(p.lastTs, ts);
    return p;
  }

  private tokenOf(address: string, contract: string, ts: number): TokenDelta {
    const t = entryOf(this.tokens, address, contract, emptyToken, this.keeps(address), this.counted);
    t.lastTs = Math.max(t.lastTs, ts);
    return t;
  }

  private hourOf(ts: number): ChainHourDelta {
    const hour = Math.floor(ts / 3600);
    let h = this.chainHourly.get(hour);
    if (!h) {
      h = { blockCount: 0, txCount: 0 };
      if (!this.only || this.only.days.has(dayName(dayNumber(ts)))) this.chainHourly.set(hour, h);
    }
    return h;
  }

  private chainDayOf(day: string): ChainDayDelta {
    let c = this.chainDaily.get(day);
    if (!c) {
      c = {
        blockCount: 0, txCount: 0, userTxCount: 0, feeSum: 0n, burned: 0n, minted: 0n, volume: 0n, gasUsed: 0n,
        sizeSum: 0, sizeMax: 0, intervalSum: 0, baseFeeSum: 0n, txTypes: new Map(), gasBuckets: new Map(), fees: new Map(), largest: null,
      };
      if (!this.only || this.only.days.has(day)) this.chainDaily.set(day, c);
    }
    return c;
  }

}

/**
 * The gas bucket of a pos transaction (docs/metrics.md, "Gas distribution"), first match wins:
 * 6 one million gas or more; 5 a deployment; 0 a simple value transfer; 3 a contract swap (two or
 * more token movements); 1 a token transfer (one); 4 a complex contract call (100,000 gas or more);
 * 2 any other contract call.
 */
export function gasBucket(tx: CanonicalTx): number {
  const gas = tx.gasUsed ?? 0;
  if (gas >= 1_000_000) return 6;
  if (tx.type === 'contract_create') return 5;
  if (tx.type === 'transfer') return 0;
  if (tx.tokenTransfers.length >= 2) return 3;
  if (tx.tokenTransfers.length === 1) return 1;
  if (gas >= 100_000) return 4;
  return 2;
}
