/**
 * What a rollup and a chart are to the engine. A rollup is kept per batch of blocks (apply, and on
 * a reorg revert then repair); a chart is a per-day figure computed when a day closes. Each is
 * declared once, in its own file, and listed in registry.ts; apply, revert, day close, `quarry
 * refresh` and the property tests find it there.
 */
import type { ChainId } from '../../chain/chains.ts';
import type { CopyValue } from '../../store/copy.ts';
import type { Sql } from 'sql-template-tag';
import type { Db, Store } from '../../store/store.ts';
import type { DeltaReducer } from './reducer.ts';
import type { SortedBalances } from '../shared/balances.ts';
import type { LastDayCell } from '../shared/last-day.ts';

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
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table of any rollup, whatever its reducer's accumulator
export interface DeltaTable<A = any> extends ScratchTable {
  /** Its rows, from the owning rollup's reduction of the step (Rollup.deltas). */
  rows(deltas: A): Iterable<CopyValue[]>;
  /**
   * The owning rollup's table these rows are merged into. When the rollup holds no row of the
   * chain yet (a first load), the rows go straight into it (same columns after `chain`) and the
   * delta table stays empty (`step.rowsOf` reads the step's rows from the rollup's table instead):
   * merging into an empty table costs several times a plain insert.
   * Its columns start with the table's key (after `chain`), in the key's order: the rows are
   * copied in that order (delta-tables.ts, inKeyOrder).
   */
  direct?: string;
  /** Statistics for the planner: the tables the merges join on. */
  analyze?: boolean;
}

/**
 * One batch's work as a rollup sees it: shared by the rollups of one apply or revert, with the
 * rollup's own reduction (`deltas`) and the step's inputs shaped by the engine (engine/step.ts).
 */
export interface RollupStep<A = undefined> {
  readonly chain: ChainId;
  /** This rollup's own reduction of the step's blocks (Rollup.deltas). */
  readonly deltas: A;
  /** The step's blocks: how many, and the lowest and highest height (they are consecutive). */
  readonly blocks: number;
  readonly fromHeight: number;
  readonly toHeight: number;
  /** The days ('YYYY-MM-DD') of the step's blocks: of a partial step, only those it keeps. */
  readonly days: readonly string[];
  /** A followed chain's step (its blocks a few at a time), not a bulk one. */
  readonly followed: boolean;
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
  /** A condition selecting the step's blocks' rows of `alias` (a table with `height`), in the form the step's plans suit. */
  inBlocks(alias: string): Sql;
  /**
   * The rows of a delta or scratch table (the rollup's own, or one of those it `reads`) as a
   * relation: the table, or, for a rollup whose plans a followed step keeps (`keepsPlans`), a delta
   * table's rows as values (of the `columns` named, or all).
   */
  rowsOf(table: ScratchTable, columns?: readonly string[]): Sql;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any rollup, whatever its reducer's accumulator
export type AnyRollup = Rollup<any>;

export interface Rollup<A = undefined> {
  name: string;
  part: ApiPart;
  /** The tables holding its rows, keyed by chain: what a whole refresh clears. */
  tables: readonly string[];
  /** What it adds up over a step's blocks (engine/deltas.ts): the engine's one pass feeds it, and hands it back as `step.deltas`. */
  deltas?: DeltaReducer<A>;
  /** Its delta tables (rows from its own reduction), written before any rollup of the step runs. */
  deltaTables?: readonly DeltaTable<A>[];
  /**
   * Delta and scratch tables of other rollups its statements read (through `step.rowsOf`): of
   * rollups it runs `after` (engine/order.ts checks).
   */
  reads?: readonly ScratchTable[];
  /**
   * The rollups (by name) it follows in every phase: it reads their tables as the step leaves them,
   * or what they set on the step. The engine runs the rollups in an order that keeps these (engine/order.ts).
   */
  after?: readonly string[];
  /**
   * Labels of its statements whose plans a followed step keeps (their best plan is the same for any
   * followed block, and planning them costs more than running them): the engine runs them with
   * `QueryOptions.reusePlan` and hands them the step's deltas as values (`step.rowsOf`).
   */
  keepsPlans?: readonly string[];
  /** Its other scratch tables, prepared (empty) with the delta tables, in the same round trip. */
  scratchTables?: readonly ScratchTable[];
  /** Before any rollup changes (apply and revert). */
  before?(db: Db, step: RollupStep<A>): Promise<void>;
  apply(db: Db, step: RollupStep<A>): Promise<void>;
  /** Subtracts the step's deltas while the reverted raw rows still exist. */
  revert?(db: Db, step: RollupStep<A>): Promise<void>;
  /** After the reverted raw rows are deleted: what subtraction cannot restore. */
  repair?(db: Db, step: RollupStep<A>): Promise<void>;
  /** After a whole refresh cleared `tables`, before its replay: what the cleared rows decided elsewhere. */
  cleared?(db: Db, chain: ChainId): Promise<void>;
  /** A refresh of a range: removes (or zeroes) the rows the range's addresses and days own. */
  clearTouched?(db: Db, chain: ChainId, touched: { addresses: string[]; days: string[] }): Promise<void>;
  /** After a refresh replayed the raw rows: what the replay does not keep (`partial`: a range only). */
  afterRefresh?(db: Db, chain: ChainId, partial: boolean): Promise<void>;
}

/**
 * A per-day figure of a chain. Its closed days are either its own (`ClosedChart`: written to its
 * table when a day closes) or the per-day rows a rollup keeps as blocks arrive (`KeptChart`: read
 * as they stand, nothing to close). Either way `read` answers the rows of a day range, the open day
 * included (charts/days.ts), and `series` are the spec's daily series served from them.
 */
export type Chart<Row = unknown> = ClosedChart<Row> | KeptChart<Row>;

interface ChartUnit<Row> {
  name: string;
  part: ApiPart;
  /** The chart's rows of every day from `range.from` to `range.to` that has any, by day, the open day included. */
  read?(db: Db, chain: ChainId, range: { from: string; to: string }): Promise<Map<string, Row>>;
  /** The daily series of the spec served from the chart (api/analytics/route.ts mounts them). */
  series?: readonly AnyChartSeries[];
}

/** A chart whose closed days are its own, stored in `table` by (chain, day). */
export interface ClosedChart<Row = unknown> extends ChartUnit<Row> {
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

/**
 * A chart read from per-day rows that are current as they stand: those a rollup keeps with every
 * block (chain_daily, the per-day breakdowns, address_daily) or the staking sync writes
 * (staking_daily). Every day's row, the open day's included, is current, so the chart has no table
 * or close of its own.
 */
export interface KeptChart<Row = unknown> extends ChartUnit<Row> {
  /** The rollup (by name) or the ingest step whose per-day table the chart reads. */
  keptBy: string;
}

export const isClosed = (chart: Chart): chart is ClosedChart => 'close' in chart;

/**
 * A value of a series' item or envelope, as data (the API layer turns it into a JSON schema): an
 * integer, a number, an amount (an unsigned integer as a decimal string), a day, a string, or a list
 * of one of them or of objects.
 */
export type SeriesValue =
  | { kind: 'integer'; description?: string; minimum?: number; maximum?: number; nullable?: boolean }
  | { kind: 'number' | 'amount' | 'day'; description?: string; nullable?: boolean }
  | { kind: 'string'; description?: string; examples?: readonly string[]; nullable?: boolean }
  | { kind: 'list'; of: SeriesValue | Readonly<Record<string, SeriesValue>>; description?: string };

/** An extra query parameter of a series (between `chain` and `window`): optional, a number within bounds. */
export interface SeriesParam {
  kind: 'number';
  description: string;
  exclusiveMinimum?: number;
  maximum?: number;
}

/** The spec's common envelope fields, filled by the route factory. */
export type CommonEnvelopeField = 'count' | 'chain' | 'network' | 'window_days' | 'days';

/**
 * What only the API process keeps, handed to a series' read: figures of the population as it
 * stands at the latest block (kept for the spec's cache time, shared with the other population
 * routes) and the whale set of a threshold (a percent of the current total supply, src/domain).
 * The rollups layer cannot compute them itself: they belong to the layers after it.
 */
export interface SeriesLive {
  /** Every holder's balance at the latest block, sorted. */
  holderBalances(): Promise<SortedBalances>;
  /** Holders and their balances per last-activity day at the latest block. */
  holdersByLastDay(): Promise<readonly LastDayCell[]>;
  /** The whale threshold of `threshold_pct`: the fixed floor when undefined (docs/metrics.md, "Whales"). */
  whaleThreshold(pct: number | undefined): Promise<{ amount: bigint; pct: number | null }>;
  /** The whales (balance at or above `threshold`, sentinels and confirmed exchanges excluded), richest first. */
  whales(threshold: bigint): Promise<string[]>;
}

/** A series request as the chart's read and items see it. */
export interface SeriesRequest<P = Record<string, unknown>> {
  db: Db;
  chain: ChainId;
  /** The window's days: `days` long, ending with the span's latest day, clipped to its first (`clipped`). */
  range: { from: string; to: string; days: number; clipped: boolean };
  /** The first and the latest day of the series (the chain's blocks', or the chart's own). */
  span: { first: string; last: string };
  /** The extra query parameters (`params`), as given. */
  params: P;
  /** What the series' `prepare` answered. */
  prepared: unknown;
  live: SeriesLive;
}

/**
 * One of the spec's daily series, served from a chart: one or more items per day of the window,
 * made from the chart's rows (`read`). The API layer mounts it as a route with the chain and window
 * parameters, the list envelope and the missing-day policy (api/analytics/route.ts, `chartSeries`).
 */
export interface ChartSeries<Row extends { day: string } = { day: string }, Item = Record<string, unknown>> {
  path: string;
  operationId: string;
  summary: string;
  /** The default window. */
  window: string;
  /** The request's chain: a `chain` parameter (default pos), or pos only without one. */
  chain?: 'param' | 'pos';
  /** The chains that have such days; on another the answer has no items (pow has no gas). All unless given. */
  chains?: readonly ChainId[];
  /** The first and the latest day of the series: the chain's blocks' unless given (the staking days'). */
  span?: { of: string; read(db: Db, chain: ChainId): Promise<{ first: string; last: string } | null> };
  /** Extra query parameters, by name. */
  params?: Readonly<Record<string, SeriesParam>>;
  /** The item's fields after `day`, in order: the columns of the rows (or of `items`' answer) of the same names. */
  fields: Readonly<Record<string, SeriesValue>>;
  itemsDescription: string;
  /** The envelope after `items`, in the spec's order: a common field (`true`), or a value `extra` gives. */
  envelope: Readonly<Record<string, SeriesValue | true>>;
  /** What a day without a row answers: zero in every field, a given row, the row of the day before, or no item. */
  missingDay: 'zero' | { zero(day: string): Row } | 'carry' | 'omit';
  /** Work of the request that does not depend on the window (a threshold): done even before the chain's first block. */
  prepare?(request: SeriesRequest): Promise<unknown>;
  /** The rows of every day of the window that has any, by day: the chart's `read` unless given. */
  read?(request: SeriesRequest): Promise<Map<string, Row>>;
  /** The items of the days' rows (oldest first, missing days filled): the rows' fields unless given. */
  items?(rows: Row[], request: SeriesRequest): Item[] | Promise<Item[]>;
  /** The envelope fields that are not common ones, also of the empty answer (`items` is then empty). */
  extra?(items: Item[], request: SeriesRequest): Record<string, unknown>;
  /** The spec's cache time: the answer is kept per chain, window and latest day. */
  cacheSeconds?: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a series of any chart, whatever its rows and items
export type AnyChartSeries = ChartSeries<any, any>;

/** A series declaration, its rows' and items' types checked where it is written. */
export const chartSeries = <Row extends { day: string }, Item = Row>(series: ChartSeries<Row, Item>): AnyChartSeries => series;
