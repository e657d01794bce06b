/**
 * What a rollup and a chart are to the engine. A rollup is kept per batch of blocks (apply, and on
 * a reorg revert then repair); a chart is a per-day figure computed when a day closes. Each is
 * declared once, in its own file, and listed in registry.ts; apply, revert, day close, `quarry
 * refresh` and the property tests find it there.
 */
import type { ChainId } from '../../chain/chains.ts';
import type { CopyValue } from '../../store/copy.ts';
import type { Db, Store } from '../../store/store.ts';
import type { RollupDeltas } from './deltas.ts';

/**
 * The part of the API a rollup or chart is kept for, as the issues divide it: the Addresses API;
 * network, fees, activity and timeline analytics; supply and holder distribution; whales and
 * exchanges. Its upkeep is charged there (engine/run.ts times each rollup; the benchmark reports a
 * followed block's cost per part).
 */
export type ApiPart = 'addresses' | 'network' | 'supply' | 'whales-exchanges';

/** A temporary table a rollup fills and reads within one step (engine/scratch.ts): empty when the step begins. */
export interface ScratchTable {
  name: string;
  /** Column definitions, as in CREATE TABLE. */
  columns: string;
}

/** A scratch table that carries one batch's deltas to the rollups' SQL, filled before any rollup runs. */
export interface DeltaTable extends ScratchTable {
  rows(deltas: RollupDeltas): Iterable<CopyValue[]>;
  /**
   * The owning rollup's table these rows are merged into. When the rollup holds no row of the
   * chain yet (a first load), the rows go straight into it (same columns after `chain`) and the
   * delta table stays empty: merging into an empty table costs several times a plain insert.
   */
  direct?: string;
  /** Statistics for the planner: the tables the merges join on. */
  analyze?: boolean;
}

/**
 * Whether a step is a followed chain's (at most 16 blocks: its blocks a few at a time). Its
 * statements may keep their plans (`QueryOptions.reusePlan`, reading the step's blocks and deltas
 * as values: engine/delta-tables.ts): the plan that suits a few blocks' rows suits every followed
 * block, where planning some of them cost more than running them.
 */
export function isFollowedStep(deltas: RollupDeltas): boolean {
  return deltas.blocks <= 16;
}

/** One batch's work, shared by the rollups of one apply or revert. */
export interface RollupStep {
  readonly chain: ChainId;
  readonly deltas: RollupDeltas;
  /** A replay of some addresses only (`quarry refresh` of a range): chain-wide counters are left to the refresh. */
  readonly partial: boolean;
  /** Rollups (by name) whose table held no row of the chain before this apply. */
  readonly fresh: ReadonlySet<string>;
  /** On a revert: the height of the block the chain goes back to. */
  readonly ancestor: number;
  /** Addresses that appeared (apply) or disappeared (repair), for the chain-wide counters. */
  newAddresses: number;
  removedAddresses: number;
  /** What a rollup's `before` hands to its own later phases, by rollup name. */
  readonly carried: Map<string, unknown>;
}

export interface Rollup {
  name: string;
  part: ApiPart;
  /** The tables holding its rows, keyed by chain: what a whole refresh clears. */
  tables: readonly string[];
  /** Its delta tables, written before any rollup of the step runs. */
  deltaTables?: readonly DeltaTable[];
  /** Its other scratch tables, prepared (empty) with the delta tables, in the same round trip. */
  scratchTables?: readonly ScratchTable[];
  /** Before any rollup changes (apply and revert). */
  before?(db: Db, step: RollupStep): Promise<void>;
  apply(db: Db, step: RollupStep): Promise<void>;
  /** Subtracts the step's deltas while the reverted raw rows still exist. */
  revert?(db: Db, step: RollupStep): Promise<void>;
  /** After the reverted raw rows are deleted: what subtraction cannot restore. */
  repair?(db: Db, step: RollupStep): Promise<void>;
  /** After a whole refresh cleared `tables`, before its replay: what the cleared rows decided elsewhere. */
  cleared?(db: Db, chain: ChainId): Promise<void>;
  /** A refresh of a range: removes (or zeroes) the rows the range's addresses and days own. */
  clearTouched?(db: Db, chain: ChainId, touched: { addresses: string[]; days: string[] }): Promise<void>;
  /** After a refresh replayed the raw rows: what the replay does not keep (`partial`: a range only). */
  afterRefresh?(db: Db, chain: ChainId, partial: boolean): Promise<void>;
}

/** A per-day figure of a chain, stored in `table` by (chain, day), computed for closed days. */
export interface Chart {
  name: string;
  part: ApiPart;
  table: string;
  /** Computes (or recomputes) the closed days from `fromDay` to `toDay` inclusive. */
  close(db: Db, chain: ChainId, fromDay: string, toDay: string): Promise<void>;
  /**
   * Loads what the chart keeps in the process between closes, before a run starts following, so
   * that its first midnight costs what every later one does (the store: it may repair what it
   * loads from, in a transaction of its own).
   */
  warm?(store: Store, chain: ChainId): Promise<void>;
}
