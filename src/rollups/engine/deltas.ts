/**
 * The step's one pass over its blocks. `RollupDeltas` takes canonical blocks in chain order and
 * reads each block, transaction and movement of native value once; every rollup of its set that
 * declares a reducer (engine/reducer.ts; Rollup.deltas, in the rollup's own file) is handed them in
 * that one pass and keeps its own accumulator, which the engine gives back to that rollup alone
 * (RollupStep.deltas) and to its delta tables.
 *
 * The same deltas are added when blocks are applied and subtracted when a reorg reverts them
 * (the reverted blocks are read back from the raw tables), so the two always agree.
 *
 * Native value, as the pass hands it to the reducers (StepTx, Receipt): balance = Σ received -
 * Σ debit - Σ fee, where `debit` is the value sent except by the sender of a mint (coinbase,
 * migration mint), which creates the coins it sends. The pow coinbase sentinel is debited as a QRL
 * node debits its zero address: by each block's reward (`powCoinbaseDebit`), out of the reserve the
 * genesis block allocates it (docs/indexing-pow.md, "Genesis"); the fees a coinbase passes on are
 * paid by the transactions' senders. The receipts are every credit: genesis allocations, the
 * value legs of a transaction that did not revert, internal transfers, withdrawals and (pos) the
 * fee recipient's tips.
 */
import type { ChainId } from '../../chain/chains.ts';
import { NON_USER_TX_TYPES, valueLegs, type CanonicalBlock, type CanonicalTx, type OpeningBalance } from '../../chain/model.ts';
import { powCoinbaseDebit } from '../../chain/pow-emission.ts';
import { DAY_SECONDS, dayName, dayNumber } from '../../time.ts';
import type { DeltaReducer, Receipt, StepBlock, StepScope, StepTx } from './reducer.ts';
import type { RollupSet } from './set.ts';

/** Sub-positions inside a transaction and block-level movements after the transactions. */
const SEQ_INTERNAL = 1_000_000;
const TX_INDEX_WITHDRAWALS = 2_000_000_000;
const TX_INDEX_TIPS = 2_000_000_001;

/** The addresses and days a partial recomputation keeps (RollupDeltas' `only`). */
export interface DeltaScope {
  addresses: ReadonlySet<string>;
  days: ReadonlySet<string>;
}

interface Reduction {
  reducer: DeltaReducer<unknown>;
  acc: unknown;
}

/**
 * One step's pass over its blocks: each rollup's reducer fed from it, and what the engine itself
 * needs of the step (its heights, its days, where its addresses first appear).
 */
export class RollupDeltas {
  blocks = 0;
  transactions = 0;
  fromHeight = Infinity;
  toHeight = -Infinity;
  /** Time of the block at toHeight. */
  lastTs = -Infinity;
  /** address → height of the block (being added) in which the step first held figures of it. */
  readonly seenAt = new Map<string, number>();
  /** The days ('YYYY-MM-DD') of the step's blocks whose figures are kept, in the order first met. */
  readonly days = new Set<string>();
  private readonly reductions: Reduction[];
  private readonly byReducer = new Map<DeltaReducer<unknown>, unknown>();
  private readonly receipts: Reduction[];
  private readonly txs: Reduction[];
  private readonly blockEnds: Reduction[];
  private readonly openings: Reduction[];
  private height = -1;
  private readonly scope: StepScope;

  /**
   * @param set the rollups whose reducers the pass feeds (RollupSet.reducers).
   * @param previousTs time of the block below the first one added (for block intervals), or
   *   null when the first block added is the chain's first.
   * @param only keep the figures of these addresses (and of pairs with one of them) and of these
   *   days only: a partial recomputation (`quarry refresh`) rebuilds just what a range touched.
   */
  constructor(
    set: Pick<RollupSet, 'reducers'>,
    readonly chain: ChainId,
    private previousTs: number | null,
    private readonly only?: DeltaScope,
  ) {
    this.scope = {
      chain,
      keeps: only ? (address) => only.addresses.has(address) : () => true,
      keepsDay: only ? (day) => only.days.has(day) : () => true,
      seen: (address) => {
        if (!this.seenAt.has(address)) this.seenAt.set(address, this.height);
      },
    };
    this.reductions = set.reducers.map((reducer) => ({ reducer, acc: reducer.start(this.scope) }));
    for (const { reducer, acc } of this.reductions) this.byReducer.set(reducer, acc);
    this.receipts = this.reductions.filter((r) => r.reducer.receipt);
    this.txs = this.reductions.filter((r) => r.reducer.tx);
    this.blockEnds = this.reductions.filter((r) => r.reducer.block);
    this.openings = this.reductions.filter((r) => r.reducer.opening);
  }

  /** The accumulator of `reducer` (one of the step's). */
  of<A>(reducer: DeltaReducer<A>): A {
    if (!this.byReducer.has(reducer as DeltaReducer<unknown>)) throw new Error('this step has no such reducer');
    return this.byReducer.get(reducer as DeltaReducer<unknown>) as A;
  }

  /** Number of keys the reducers hold: a measure of memory. */
  get size(): number {
    let size = 0;
    for (const { reducer, acc } of this.reductions) size += reducer.size?.(acc) ?? 0;
    return size;
  }

  addBlock(block: CanonicalBlock): void {
    const { height, timestamp: ts } = block;
    this.blocks++;
    this.fromHeight = Math.min(this.fromHeight, height);
    if (height > this.toHeight) this.lastTs = ts;
    this.toHeight = Math.max(this.toHeight, height);
    this.height = height;
    const day = dayNumber(ts);
    const date = dayName(day);
    if (this.scope.keepsDay(date)) this.days.add(date);

    for (const allocation of block.allocations) {
      this.receive({ address: allocation.address, amount: allocation.amount, ts, day, pos: [0, -1, 0], from: null, txHash: null });
    }
    for (const opening of block.openings ?? []) this.addOpening(opening, ts);
    let tips = 0n;
    const dayOfWeek = (day + 3) % 7; // 1970-01-01 was a Thursday; Monday = 0
    const hour = Math.floor((ts % DAY_SECONDS) / 3600);
    for (const tx of block.transactions) {
      this.addTransaction(tx, block, day, dayOfWeek, hour);
      tips += tx.fee - tx.burned;
    }
    block.withdrawals.forEach((w, position) => {
      this.receive({ address: w.address, amount: w.amount, ts, day, pos: [height, TX_INDEX_WITHDRAWALS, position], from: null, txHash: null });
    });
    // On pow the miner is paid by the coinbase transaction; on pos the fee recipient gets the tips.
    if (this.chain === 'pos' && block.miner && tips > 0n) {
      this.receive({ address: block.miner, amount: tips, ts, day, pos: [height, TX_INDEX_TIPS, 0], from: null, txHash: null });
    }
    const stepBlock: StepBlock = { block, height, ts, day, previousTs: this.previousTs };
    for (const { reducer, acc } of this.blockEnds) reducer.block!(acc, stepBlock);
    this.previousTs = ts;
  }

  /**
   * An opening balance (indexing from above genesis) of an address first seen in the block being
   * added: received on that day like a genesis allocation, though it funds nothing (it was funded
   * before the indexed range). An unknown one credits nothing and marks the balance unknown.
   */
  addOpening(opening: OpeningBalance, ts: number): void {
    for (const { reducer, acc } of this.openings) reducer.opening!(acc, opening, ts);
  }

  private addTransaction(tx: CanonicalTx, block: CanonicalBlock, day: number, dayOfWeek: number, hour: number): void {
    this.transactions++;
    const { height, timestamp: ts } = block;
    const ok = tx.status !== 0;
    const mints = tx.type === 'coinbase' || tx.migration?.role === 'mint';
    // The sender pays the fee always, and the value unless the transaction reverted; the pow
    // coinbase sentinel pays the block's reward.
    const sent = ok ? tx.value : 0n;
    const debit = this.chain === 'pow' && tx.type === 'coinbase' ? powCoinbaseDebit(block) : ok && !mints ? tx.value : 0n;
    const legs = valueLegs(tx);
    if (ok) {
      legs.forEach((r, i) => {
        if (r.amount > 0n) this.receive({ address: r.to, amount: r.amount, ts, day, pos: [height, tx.index, i + 1], from: tx.from, txHash: tx.hash });
      });
    }
    for (const frame of tx.internal) {
      this.receive({ address: frame.to, amount: frame.value, ts, day, pos: [height, tx.index, SEQ_INTERNAL], from: frame.from, txHash: tx.hash });
    }
    // Participation: each address once per transaction, receiving and/or sending (or signing).
    const ins = new Set(legs.map((r) => r.to));
    const outs = tx.signer ? [tx.from, tx.signer] : [tx.from];
    const participants = new Set(outs);
    for (const address of ins) participants.add(address);
    const stepTx: StepTx = {
      tx, block, height, ts, day, dayOfWeek, hour, ok, mints, user: !NON_USER_TX_TYPES.includes(tx.type), sent, debit, legs, ins, outs, participants,
    };
    for (const { reducer, acc } of this.txs) reducer.tx!(acc, stepTx);
  }

  private receive(receipt: Receipt): void {
    for (const { reducer, acc } of this.receipts) reducer.receipt!(acc, receipt);
  }
}
