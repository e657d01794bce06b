/**
 * One chain's daily series of a timeline metric over a day range (docs/metrics.md, "Timeline"):
 * every read is a primary-key range of per-day rows; the charts' days not closed yet (the open one)
 * are computed by the chart's read (Chart.read) from bounded rollup rows.
 */
import sql from 'sql-template-tag';
import { CHAIN_INFO, type ChainId } from '../../../chain/chains.ts';
import { activeAddresses } from '../../../rollups/charts/network/active-addresses.ts';
import { timelineTotals } from '../../../rollups/charts/timeline/totals.ts';
import type { Db } from '../../../store/store.ts';
import { eachDay, formatDay } from '../../../time.ts';
import { formatUnits } from '../../amounts.ts';
import { chainDays, type ChainDay } from '../chain-days.ts';
import { dayRows, type ChainSpan } from '../series.ts';

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
      return activeWallets(db, chain, range);
    case 'wallets':
    case 'supply':
      return cumulative(db, chain, metric, range);
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

/** DAU: the active-addresses chart, the open day computed live. */
async function activeWallets(db: Db, chain: ChainId, range: Range): Promise<DayValue[]> {
  const days = await activeAddresses.read!(db, chain, range);
  return eachDay(range.from, range.to).map((date) => ({ date, value: days.get(date)?.dau ?? 0 }));
}

/** The per-day counts of chain_timeline_activity (kept for every day, the open one included). */
async function activity(db: Db, chain: ChainId, metric: TimelineMetric, range: Range): Promise<DayValue[]> {
  const rows = await dayRows<{ day: string; addresses: number; non_payout: number; wallets_100: number; wallets_1000: number }>(
    db,
    'analytics.timeline.activity',
    sql`SELECT day::text AS day, addresses, non_payout, wallets_100, wallets_1000
        FROM chain_timeline_activity WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
  );
  const column = ({ 'active-addresses': 'addresses', 'active-addresses-excl-payouts': 'non_payout', 'active-wallets-100': 'wallets_100', 'active-wallets-1000': 'wallets_1000' } as const)[
    metric as 'active-addresses'
  ];
  const values = new Map(rows.map((r) => [r.day, Number(r[column])]));
  return eachDay(range.from, range.to).map((date) => ({ date, value: values.get(date) ?? 0 }));
}

/** Wallets and supply: the timeline-totals chart, an open day adding its own figures to the last closed day's. */
async function cumulative(db: Db, chain: ChainId, metric: 'wallets' | 'supply', range: Range): Promise<DayValue[]> {
  const totals = await timelineTotals.read!(db, chain, range);
  const decimals = CHAIN_INFO[chain].decimals;
  const toNumber = (v: bigint) => (metric === 'supply' ? Number(formatUnits(v.toString(), decimals)) : Number(v));
  // Every day of the range has a total (closed days a row, open days computed); carry the previous one regardless.
  const out: DayValue[] = [];
  let last = 0n;
  for (const day of eachDay(range.from, range.to)) {
    const t = totals.get(day);
    if (t) last = metric === 'wallets' ? t.wallets : t.supply;
    out.push({ date: day, value: toNumber(last) });
  }
  return out;
}
