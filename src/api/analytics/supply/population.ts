/**
 * What the holder-population routes share (docs/metrics.md, "Holder population"): the population
 * at the latest block (every holder's balance, sorted, and each holder's wallet class), kept in
 * the process for the spec's cache time; the figures read off it; and holders per last-activity
 * day at the latest block, from the day chart's state and the moves since (a bounded read).
 */
import sql, { raw, type Sql } from 'sql-template-tag';
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import { SENTINELS, type ChainId } from '../../../chain/chains.ts';
import type { Db, Store } from '../../../store/store.ts';
import { dayNumber, dayStart } from '../../../time.ts';
import { compareLimbs, parseLimbs, SortedBalances } from '../../../rollups/shared/balances.ts';
import { distributionInputs, topOf } from '../../../rollups/charts/supply/population.ts';
import type { LastDayCell } from '../../../rollups/shared/last-day.ts';

export { ageBuckets, ageDays, figuresOf, ratioOf } from '../../../rollups/charts/supply/population.ts';
export type { LastDayCell } from '../../../rollups/shared/last-day.ts';
import { stateDay } from '../../../rollups/charts/supply/distribution.ts';
import { percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute, cached, type RouteInput } from '../route.ts';
import { AnalyticsChain } from '../series.ts';
import type { AddressFacts } from '../../../domain/address-facts.ts';
import { HOLDER_TIERS, tierFloor } from '../../../domain/holder-tiers.ts';
import { classifyWallet, isEntityClass } from '../../../domain/wallet-class.ts';

export { cached };

/** How long the spec lets these answers be kept (section 8). */
export const CACHE_SECONDS = 600;
export const SUMMARY_CACHE_SECONDS = 300;

/**
 * A route answering from the holder population, kept for the spec's cache time per chain (and
 * `key`, the other parameters that change the answer). Its query is the chain unless given.
 */
export function populationRoute<Q extends TObject, R extends TSchema>(
  app: RouteApp,
  ctx: ApiContext,
  route: {
    path: string;
    operationId: string;
    summary: string;
    query?: Q;
    response: R;
    cacheSeconds: number;
    key?(input: RouteInput<Static<Q>>): string;
    answer(input: RouteInput<Static<Q>>): Promise<Static<R>>;
  },
): void {
  analyticsRoute(app, {
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    query: (route.query ?? Type.Object({ chain: AnalyticsChain })) as Q,
    response: route.response,
    config: { cacheSeconds: route.cacheSeconds },
    handler: (input) => cached(ctx, `${route.path}:${input.chain}:${route.key?.(input) ?? ''}`, route.cacheSeconds, () => route.answer(input)),
  });
}

export interface Population {
  sorted: SortedBalances;
}

/**
 * Rows read per FETCH from a holder cursor. A chain's holders are up to millions of rows: read in
 * one statement, every row becomes an object with its strings in the API process at once (the
 * driver keeps the whole result), where the figures need 32 bytes a holder. In batches, the process
 * holds one batch of row objects at a time beside the limb arrays it fills.
 */
export const HOLDER_BATCH = 10_000;

/** The statement timeout of a population read (docs/bounds.md). */
const POPULATION_TIMEOUT_MS = 60_000;

/**
 * Runs `query` (which must also give `n`, the count of its rows: `count(*) OVER ()`) through a
 * cursor in one read-only transaction, so every batch comes from the same snapshot and the sort
 * runs once, and calls `each` per batch of at most HOLDER_BATCH rows; `each` is told the total.
 */
export async function eachHolderBatch<R extends { n: number | string }>(
  store: Store,
  label: string,
  query: Sql,
  each: (rows: R[], total: number) => void,
): Promise<void> {
  await store.transaction(label, async (tx) => {
    // A cursor is planned for its first tenth by default (cursor_tuple_fraction 0.1): index walks and
    // nested loops that start fast. This one is read to the end: plan it as one statement would be.
    await tx.query(`${label}.plan`, sql`SET LOCAL cursor_tuple_fraction = 1`);
    // Its first FETCH sorts every holder of the chain once per CACHE_SECONDS for every request
    // of those minutes: bounded by the chain, not by any request, so it gets POPULATION_TIMEOUT
    // rather than the API's statement timeout, which a busy server could otherwise meet (a 503 for
    // every request waiting on it). Compiling it (JIT) costs more than it saves in one run.
    await tx.query(`${label}.timeout`, sql`SET LOCAL statement_timeout = ${raw(String(POPULATION_TIMEOUT_MS))}`);
    await tx.query(`${label}.jit`, sql`SET LOCAL jit = off`);
    await tx.query(`${label}.declare`, sql`DECLARE holders NO SCROLL CURSOR FOR ${query}`);
    for (;;) {
      const rows = await tx.query<R>(`${label}.fetch`, sql`FETCH ${raw(String(HOLDER_BATCH))} FROM holders`);
      if (rows.length === 0) break;
      each(rows, Number(rows[0]!.n));
      if (rows.length < HOLDER_BATCH) break;
    }
    await tx.query(`${label}.close`, sql`CLOSE holders`);
  });
}

/** Fills a SortedBalances of `total` holders batch by batch, in the ascending order they come. */
class BalancesBuilder {
  private balances: SortedBalances | null = null;
  private i = 0;

  add(total: number, balance: string): void {
    (this.balances ??= SortedBalances.ofSize(total)).set(this.i++, parseLimbs(balance));
  }

  /**
   * The balances added. Fewer than counted (the wallet classes' individuals, or a cursor that
   * ended early) share the arrays sized for all: a copy would hold both at once at its peak.
   */
  done(): SortedBalances {
    return this.balances === null ? SortedBalances.empty() : this.balances.head(this.i);
  }
}

/** Every holder's balance at the latest block, ascending. */
export function holderBalances(ctx: ApiContext, chain: ChainId): Promise<Population> {
  return cached(ctx, `balances:${chain}`, CACHE_SECONDS, async () => {
    const builder = new BalancesBuilder();
    await eachHolderBatch<{ b: string; n: string }>(
      ctx.store,
      'analytics.supply.balances',
      sql`SELECT balance::text AS b, count(*) OVER () AS n FROM address_summary
          WHERE chain = ${chain} AND balance > 0 AND address <> ALL(${[...SENTINELS[chain]]}::text[])
          ORDER BY balance`,
      (rows, total) => {
        for (const r of rows) builder.add(total, r.b);
      },
    );
    return { sorted: builder.done() };
  });
}

export interface ClassTotals {
  holders: number;
  balance: bigint;
}

export interface ClassedPopulation {
  classes: Map<string, ClassTotals>;
  /** The individual holders' balances, ascending. */
  individuals: SortedBalances;
}

interface ClassRow {
  a: string;
  b: string;
  tx: number;
  sent: number;
  first: number | null;
  last: number | null;
  funded: string | null;
  wd: number;
  contract: boolean;
  master: string | null;
  label: string | null;
  category: string | null;
  exchange: string | null;
  role: 'hot' | 'cold' | 'deposit_relay' | null;
  confirmed: boolean | null;
}

/** Every holder's wallet class, by the rules of docs/metrics.md (classifyWallet), and the individuals' balances. */
export function classedHolders(ctx: ApiContext, chain: ChainId): Promise<ClassedPopulation> {
  return cached(ctx, `classes:${chain}`, CACHE_SECONDS, async () => {
    const classes = new Map<string, ClassTotals>();
    // Sized for every holder; cut to the individuals at the end.
    const individuals = new BalancesBuilder();
    await eachHolderBatch<ClassRow & { n: string }>(
      ctx.store,
      'analytics.supply.classes',
      sql`SELECT s.address AS a, s.balance::text AS b, s.tx_count AS tx, s.tx_sent_count AS sent, s.first_seen AS first, s.last_seen AS last,
                 s.funded_by AS funded, s.withdrawal_count AS wd, s.is_contract AS contract, s.master_address AS master,
                 l.label, l.category, e.exchange, e.role, e.confirmed, count(*) OVER () AS n
          FROM address_summary s
          LEFT JOIN labels l ON l.chain = s.chain AND l.address = s.address AND l.is_primary
          LEFT JOIN exchange_wallets e ON e.chain = s.chain AND e.address = s.address
          WHERE s.chain = ${chain} AND s.balance > 0 AND s.address <> ALL(${[...SENTINELS[chain]]}::text[])
          ORDER BY s.balance`,
      (rows, total) => {
        for (const r of rows) {
          const balance = BigInt(r.b);
          const facts: AddressFacts = {
            chain, address: r.a, exists: true, balance, balanceKnown: true, totalReceived: 0n, totalSent: 0n, totalFeesPaid: 0n,
            txCount: Number(r.tx), txReceivedCount: 0, txSentCount: Number(r.sent),
            firstSeen: r.first === null ? null : Number(r.first), lastSeen: r.last === null ? null : Number(r.last), appeared: null,
            fundedBy: r.funded, withdrawalCount: Number(r.wd), withdrawalTotal: 0n, internalTxCount: 0, deployedCount: 0,
            isContract: r.contract, masterAddress: r.master, slaveCount: 0, otsUsed: 0, otsMaxIndex: null,
            label: r.label, labelCategory: r.category,
            exchange: r.exchange && r.role ? { name: r.exchange, role: r.role, confirmed: r.confirmed ?? false } : null,
            genesisHolder: false, tipTs: null,
          };
          const c = classifyWallet(facts)!;
          const totals = classes.get(c.walletClass) ?? { holders: 0, balance: 0n };
          classes.set(c.walletClass, { holders: totals.holders + 1, balance: totals.balance + balance });
          if (!isEntityClass(c)) individuals.add(total, r.b);
        }
      },
    );
    return { classes, individuals: individuals.done() };
  });
}

/** The richest `k` holders' share of the supply, for each k. */
export function topShares(sorted: SortedBalances, ks: number[]): { inputs: ReturnType<typeof distributionInputs>; shares: number[] } {
  const n = sorted.n;
  const inputs = distributionInputs(sorted, ks.map((k) => n - k));
  return { inputs, shares: ks.map((k) => percentOf(topOf(inputs.prefix, n, inputs.supply, k), inputs.supply)) };
}

/** Per holder tier (lowest first): holders and their balances, from the sorted balances. */
export function tierTotals(chain: ChainId, sorted: SortedBalances): { cohort: string; holders: number; balance: bigint; supply: bigint }[] {
  const n = sorted.n;
  // The first rank at or above each tier's floor, by binary search.
  const starts = HOLDER_TIERS.map((tier) => {
    const floor = parseLimbs(tierFloor(chain, tier.minCoins).toString());
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareLimbs(sorted.at(mid), floor) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  });
  const inputs = distributionInputs(sorted, [...starts, n]);
  return HOLDER_TIERS.map((tier, i) => {
    const from = starts[i]!;
    const to = i + 1 < starts.length ? starts[i + 1]! : n;
    return { cohort: tier.name, holders: to - from, balance: inputs.prefix.get(to)! - inputs.prefix.get(from)!, supply: inputs.supply };
  });
}

/** Holders and balances per last-activity day at the latest block: the chart's state plus the moves since (a day's moves), kept until the next block. */
export async function holdersByLastDay(ctx: ApiContext, chain: ChainId): Promise<LastDayCell[]> {
  const [tip] = await ctx.store.query<{ h: number | null }>(
    'analytics.supply.tip',
    sql`SELECT (SELECT height FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) AS h`,
    { reusePlan: true }, // one index entry
  );
  return cached(ctx, `last-days:${chain}:${tip?.h ?? -1}`, 60, () => readHoldersByLastDay(ctx.store, chain));
}

async function readHoldersByLastDay(db: Db, chain: ChainId): Promise<LastDayCell[]> {
  const since = (await stateDay(db, chain)) ?? '1900-01-01';
  const sentinels = [...SENTINELS[chain]];
  const rows = await db.query<{ day: string; holders: string; balance: string }>(
    'analytics.supply.last_days',
    // The age cells at the end of the state's day, and for each address that moved since: out of
    // the cell it was in then (its balance then is today's less what it moved since; its last day
    // then, from address_daily), into the cell of its last move. holder_state itself is not read:
    // it is unlogged (migration 0079), which a streaming replica cannot read.
    sql`WITH moved AS (
          SELECT address, max(day) AS last, sum(received - sent - fees) AS net FROM address_daily
          WHERE chain = ${chain} AND day > ${since}::date AND address <> ALL(${sentinels}::text[])
            AND (tx_count > 0 OR received > 0 OR sent > 0 OR fees > 0)
            AND NOT EXISTS (SELECT 1 FROM opening_balances o WHERE o.chain = ${chain} AND o.address = address_daily.address AND o.amount IS NULL)
          GROUP BY address),
        now AS (
          SELECT m.address, m.last, s.balance, s.balance - m.net AS was FROM moved m
          JOIN address_summary s ON s.chain = ${chain} AND s.address = m.address)
        SELECT day::text AS day, sum(holders)::text AS holders, sum(balance)::text AS balance FROM (
          SELECT last_day AS day, holders, balance FROM holder_state_ages WHERE chain = ${chain}
          UNION ALL
          SELECT (SELECT max(d.day) FROM address_daily d
                  WHERE d.chain = ${chain} AND d.address = n.address AND d.day <= ${since}::date
                    AND (d.tx_count > 0 OR d.received > 0 OR d.sent > 0 OR d.fees > 0)), -1, -n.was
          FROM now n WHERE n.was > 0
          UNION ALL
          SELECT last, 1, balance FROM now WHERE balance > 0
        ) cells
        GROUP BY day HAVING sum(holders) <> 0`,
  );
  return rows.map((r) => ({ day: r.day, dayNumber: dayNumber(dayStart(r.day)), holders: Number(r.holders), balance: BigInt(r.balance) }));
}
