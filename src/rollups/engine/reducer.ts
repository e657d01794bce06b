/**
 * The protocol of the reducers the rollups declare (Rollup.deltas): what the engine's one pass
 * over a step's blocks (engine/deltas.ts) hands them, and helpers for their accumulators.
 */
import type { ChainId } from '../../chain/chains.ts';
import type { CanonicalBlock, CanonicalTx, OpeningBalance, TxRecipient } from '../../chain/model.ts';

/** Position of a movement in chain order: (height, tx index, sub-position). */
export type Position = readonly [height: number, txIndex: number, seq: number];

/** Orders two positions: negative when `a` comes first. */
export const comparePositions = (a: Position, b: Position) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** What a reducer knows of the step it reduces. */
export interface StepScope {
  readonly chain: ChainId;
  /**
   * Whether the figures of `address` are kept: all are, except in a partial recomputation
   * (`quarry refresh` of a range), which keeps those of the range's addresses only.
   */
  keeps(address: string): boolean;
  /** Whether the figures of `day` ('YYYY-MM-DD') are kept (as `keeps`, for days). */
  keepsDay(day: string): boolean;
  /** Records that the step holds figures of `address` (the first block that does: RollupDeltas.seenAt). */
  seen(address: string): void;
}

/** A block, as the pass hands it to the reducers after its transactions. */
export interface StepBlock {
  readonly block: CanonicalBlock;
  readonly height: number;
  readonly ts: number;
  /** Days since 1970-01-01 (dayName gives its date). */
  readonly day: number;
  /** Time of the block below it, or null for the chain's first block. */
  readonly previousTs: number | null;
}

/** A transaction, as the pass hands it to the reducers once its receipts are handed out. */
export interface StepTx {
  readonly tx: CanonicalTx;
  readonly block: CanonicalBlock;
  readonly height: number;
  readonly ts: number;
  readonly day: number;
  /** UTC weekday (Monday = 0) and hour of the block. */
  readonly dayOfWeek: number;
  readonly hour: number;
  /** It did not revert. */
  readonly ok: boolean;
  /** It creates the coins it sends (coinbase, migration mint). */
  readonly mints: boolean;
  /** A user transaction (not coinbase nor an admin type). */
  readonly user: boolean;
  /** The value sent: the transaction's value unless it reverted. */
  readonly sent: bigint;
  /** What leaves the sender's balance besides the fee (see the module's note on native value). */
  readonly debit: bigint;
  readonly legs: readonly TxRecipient[];
  /** Each address once: those receiving a leg (`ins`), those sending or signing (`outs`). */
  readonly ins: ReadonlySet<string>;
  readonly outs: readonly string[];
  readonly participants: ReadonlySet<string>;
}

/** A credit of native value to `address`, at `pos` in chain order. */
export interface Receipt {
  readonly address: string;
  readonly amount: bigint;
  readonly ts: number;
  readonly day: number;
  readonly pos: Position;
  /** The sender and transaction, for a credit a transaction made. */
  readonly from: string | null;
  readonly txHash: string | null;
}

/**
 * What a rollup adds up over a step's blocks: an accumulator per step (`start`) that the pass
 * hands every receipt, transaction and block (in chain order; a block after its transactions),
 * and the opening balances of addresses first seen in the step.
 */
export interface DeltaReducer<A> {
  start(scope: StepScope): A;
  receipt?(acc: A, receipt: Receipt): void;
  tx?(acc: A, tx: StepTx): void;
  block?(acc: A, block: StepBlock): void;
  /**
   * An opening balance (indexing from above genesis) of an address first seen in the block being
   * added, at that block's time.
   */
  opening?(acc: A, opening: OpeningBalance, ts: number): void;
  /** Keys held: a measure of memory (RollupDeltas.size). */
  size?(acc: A): number;
}

/**
 * The entry under (address, key) of a two-level map; `make` creates a missing one, kept when
 * `keep` (`onNew` counts it). The per-address figures are kept in two-level maps, address first:
 * the address strings come from the blocks and hash once. A composite string key would be built
 * and hashed at every lookup: a large share of the node's work in a bulk load, most of it garbage.
 */
export function entryOf<K, V>(outer: Map<string, Map<K, V>>, address: string, key: K, make: () => V, keep: boolean, onNew?: () => void): V {
  let inner = outer.get(address);
  let value = inner?.get(key);
  if (value === undefined) {
    value = make();
    if (keep) {
      if (!inner) outer.set(address, (inner = new Map()));
      inner.set(key, value);
      onNew?.();
    }
  }
  return value;
}

/** One reducer running `reducers` side by side: its accumulator holds theirs, in order. */
export function allOf(reducers: readonly DeltaReducer<unknown>[]): DeltaReducer<unknown[]> {
  const each = <K extends 'receipt' | 'tx' | 'block'>(hook: K) => {
    const having = reducers.map((reducer, i) => ({ reducer, i })).filter(({ reducer }) => reducer[hook]);
    if (having.length === 0) return undefined;
    return (accs: unknown[], event: Parameters<NonNullable<DeltaReducer<unknown>[K]>>[1]) => {
      for (const { reducer, i } of having) (reducer[hook] as (acc: unknown, event: unknown) => void)(accs[i], event);
    };
  };
  const openings = reducers.map((reducer, i) => ({ reducer, i })).filter(({ reducer }) => reducer.opening);
  return {
    start: (scope) => reducers.map((reducer) => reducer.start(scope)),
    receipt: each('receipt'),
    tx: each('tx'),
    block: each('block'),
    opening: openings.length === 0 ? undefined : (accs, opening, ts) => {
      for (const { reducer, i } of openings) reducer.opening!(accs[i], opening, ts);
    },
    size: (accs) => reducers.reduce((n, reducer, i) => n + (reducer.size?.(accs[i]) ?? 0), 0),
  };
}
