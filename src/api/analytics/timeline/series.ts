/**
 * One chain's daily series of a timeline metric over a day range (docs/metrics.md, "Timeline"):
 * every read is a primary-key range of per-day rows; the days not closed yet (the open one) come
 * from bounded rollup rows.
 */
import sql from 'sql-template-tag';
import { CHAIN_INFO, type ChainId } from '../../../chain/chains.ts';
import { activeAddressesByDay } from '../../../rollups/charts/network/active-addresses.ts';
import { genesisSupply } from '../../../rollups/supply.ts';
import type { Db } from '../../../store/store.ts';
import { addDays, eachDay, formatDay, lastClosedDay } from '../../../time.ts';
import { formatUnits } from '../../amounts.ts';
import { chainDays, type ChainDay } from '../chain-days.ts';
import type { ChainSpan } from '../series.ts';

export const TIMELINE_METRICS = [
  'transactions', 'blocks', 'gas', 'wallets', 'active-wallets', 'active-wallets-100', 'active-wallets-1000', 'supply',
  'block_time', 'block_size', 'active-addresses', 'active-addresses-excl-payouts',
] as const;
export type TimelineMetric = (typeof TIMELINE_METRICS)[number];

export const TIMELINE_KINDS = ['count', 'cumulative', 'average'] as const;

/** What a metric's values are: their unit and how a day's value is formed. */
export const METRIC_INFO: Record<TimelineMetric, { unit: string; kind: (typeof TIMELINE_KINDS)[number] }> = {
  transactions: { unit: 'transactions', kind: 'count' },
  blocks: { unit: 'blocks', kind: 'count' },
  gas: { unit: 'gas', kind: 'count' },
  wallets: { unit: 'addresses', kind: 'cumulative' },
  'active-wallets': { unit: 'addresses', kind: 'count' },
  'active-wallets-100': { unit: 'addresses', kind: 'count' },
  'active-wallets-1000': { unit: 'addresses', kind: 'count' },
  supply: { unit: 'coins', kind: 'cumulative' },
  block_time: { unit: 'seconds', kind: 'average' },
  block_size: { unit: 'bytes', kind: 'average' },
  'active-addresses': { unit: 'addresses', kind: 'count' },
  'active-addresses-excl-payouts': { unit: 'addresses', kind: 'count' },
};

export interface DayValue {
  date: string;
  value: number;
}

interface Range {
  from: string;
  to: string;
}

/** The metric's value of every day of `range` (inside the chain's history), oldest first. */
export async function chainSeries(db: Db, chain: ChainId, metric: TimelineMetric, span: ChainSpan, range: Range): Promise<DayValue[]> {
  switch (metric) {
    case 'transactions':
    case 'blocks':
    case 'gas':
    case 'block_time':
    case 'block_size': {
      const firstDay = formatDay(span.firstTs);
      return (await chainDays(db, chain, range)).map((d) => ({ date: d.day, value: dailyValue(metric, d, firstDay) }));
    }
    case 'active-wallets':
      return activeWallets(db, chain, span, range);
    case 'wallets':
    case 'supply':
      return cumulative(db, chain, metric, span, range);
    default:
      return activity(db, chain, metric, range);
  }
}

function dailyValue(metric: TimelineMetric, d: ChainDay, firstDay: string): number {
  switch (metric) {
    case 'transactions':
      return d.tx_count;
    case 'blocks':
      return d.block_count;
    case 'gas':
      return Number(d.gas_used);
    case 'block_size':
      return d.block_count > 0 ? d.size_sum / d.block_count : 0;
    default: {
      // The chain's first indexed block has no parent inside the index: no interval.
      const intervals = d.block_count - (d.day === firstDay ? 1 : 0);
      return intervals > 0 ? d.interval_sum / intervals : 0;
    }
  }
}

/** The days of `range` after the last closed day: computed from rollup rows, not read from a chart. */
function openPart(span: ChainSpan, range: Range): Range | null {
  const closed = lastClosedDay(span.tipTs);
  const from = range.from > closed ? range.from : addDays(closed, 1);
  return from <= range.to ? { from, to: range.to } : null;
}

/** DAU: chain_day_metrics for closed days, the open day from chain_active_gaps. */
async function activeWallets(db: Db, chain: ChainId, span: ChainSpan, range: Range): Promise<DayValue[]> {
  const rows = await db.query<{ day: string; dau: number }>(
    'analytics.timeline.dau',
    sql`SELECT day::text AS day, dau FROM chain_day_metrics WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
    { reusePlan: true }, // a primary-key range
  );
  const values = new Map(rows.map((r) => [r.day, Number(r.dau)]));
  const open = openPart(span, range);
  if (open) {
    const live = await db.query<{ day: string; dau: number }>(
      'analytics.timeline.dau_open',
      sql`SELECT day::text AS day, dau FROM (${activeAddressesByDay(chain, open.from, open.to)}) a`,
    );
    for (const r of live) values.set(r.day, Number(r.dau));
  }
  return eachDay(range.from, range.to).map((date) => ({ date, value: values.get(date) ?? 0 }));
}

/** The per-day counts of chain_timeline_activity (kept for every day, the open one included). */
async function activity(db: Db, chain: ChainId, metric: TimelineMetric, range: Range): Promise<DayValue[]> {
  const rows = await db.query<{ day: string; addresses: number; non_payout: number; wallets_100: number; wallets_1000: number }>(
    'analytics.timeline.activity',
    sql`SELECT day::text AS day, addresses, non_payout, wallets_100, wallets_1000
        FROM chain_timeline_activity WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
    { reusePlan: true }, // a primary-key range
  );
  const column = ({ 'active-addresses': 'addresses', 'active-addresses-excl-payouts': 'non_payout', 'active-wallets-100': 'wallets_100', 'active-wallets-1000': 'wallets_1000' } as const)[
    metric as 'active-addresses'
  ];
  const values = new Map(rows.map((r) => [r.day, Number(r[column])]));
  return eachDay(range.from, range.to).map((date) => ({ date, value: values.get(date) ?? 0 }));
}

/**
 * Wallets and supply: chain_timeline_totals for closed days; a later day adds its own new wallets
 * (chain_active_gaps) or minted coins (chain_daily) to the last closed day's total.
 */
async function cumulative(db: Db, chain: ChainId, metric: 'wallets' | 'supply', span: ChainSpan, range: Range): Promise<DayValue[]> {
  const rows = await db.query<{ day: string; wallets: string; supply: string }>(
    'analytics.timeline.totals',
    sql`SELECT day::text AS day, wallets::text, supply::text FROM chain_timeline_totals
        WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
    { reusePlan: true }, // a primary-key range
  );
  const totals = new Map(rows.map((r) => [r.day, BigInt(metric === 'wallets' ? r.wallets : r.supply)]));
  const open = openPart(span, range);
  if (open) {
    const before = addDays(open.from, -1);
    const [base] = await db.query<{ wallets: string; supply: string }>(
      'analytics.timeline.totals_base',
      sql`SELECT wallets::text, supply::text FROM chain_timeline_totals WHERE chain = ${chain} AND day = ${before}::date`,
      { reusePlan: true },
    );
    let running = base ? BigInt(metric === 'wallets' ? base.wallets : base.supply) : metric === 'supply' ? await genesisCoins(db, chain) : 0n;
    const added = new Map<string, bigint>();
    if (metric === 'wallets') {
      const live = await db.query<{ day: string; new_wallets: number }>(
        'analytics.timeline.wallets_open',
        sql`SELECT day::text AS day, new_wallets FROM (${activeAddressesByDay(chain, open.from, open.to)}) a`,
      );
      for (const r of live) added.set(r.day, BigInt(r.new_wallets));
    } else {
      const live = await db.query<{ day: string; minted: string }>(
        'analytics.timeline.minted_open',
        sql`SELECT day::text AS day, minted::text FROM chain_daily WHERE chain = ${chain} AND day BETWEEN ${open.from}::date AND ${open.to}::date`,
        { reusePlan: true },
      );
      for (const r of live) added.set(r.day, BigInt(r.minted));
    }
    for (const day of eachDay(open.from, open.to)) {
      running += added.get(day) ?? 0n;
      totals.set(day, running);
    }
  }
  const decimals = CHAIN_INFO[chain].decimals;
  const toNumber = (v: bigint) => (metric === 'supply' ? Number(formatUnits(v.toString(), decimals)) : Number(v));
  // Closed days without a row cannot occur (every closed day has one); carry the previous total.
  const out: DayValue[] = [];
  let last = 0n;
  for (const day of eachDay(range.from, range.to)) {
    last = totals.get(day) ?? last;
    out.push({ date: day, value: toNumber(last) });
  }
  return out;
}

/** Coins that exist from genesis: only read before the chain's first day has closed. */
async function genesisCoins(db: Db, chain: ChainId): Promise<bigint> {
  const [row] = await db.query<{ total: string }>(
    'analytics.timeline.genesis',
    sql`SELECT ${genesisSupply(chain)}::text AS total`,
  );
  return BigInt(row?.total ?? '0');
}
