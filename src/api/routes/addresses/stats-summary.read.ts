/** The reads of GET /{chain}/addresses/stats/summary: a chain's address counters and its addresses active in the last 24 hours. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Store } from '../../../store/store.ts';
import { tipTime } from '../../../rollups/shared/tip.ts';
import { windowEndingAt } from '../../../domain/window.ts';
import { DAY_SECONDS } from '../../../time.ts';

export interface SummaryRow {
  address_count: number | null;
  address_tx_touches: number | null;
}

/**
 * Addresses whose latest transaction is in the 24 hours ending at the latest block (src/domain/window.ts):
 * an address is active in the window exactly when its last activity falls inside it, and the counts
 * per last-activity time are kept with address_summary (migration 0034). No tip, no window: null.
 */
export async function readActive24h(store: Store, chain: ChainId): Promise<number | null> {
  const tip = await tipTime(store, chain, 'addresses.stats_summary.tip');
  if (tip === null) return null;
  const w = windowEndingAt(tip, DAY_SECONDS);
  const [row] = await store.query<{ active: number }>(
    'addresses.stats_summary.active',
    sql`SELECT coalesce(sum(addresses), 0)::int AS active FROM address_last_seen_counts
        WHERE chain = ${chain} AND last_seen > ${w.after}::bigint AND last_seen <= ${w.upTo}::bigint`,
    { reusePlan: true }, // a range of a small table's primary key: at most a day of block times
  );
  return row?.active ?? 0;
}

/** The chain's address counters, kept with the blocks. */
export async function readAddressCounters(store: Store, chain: ChainId): Promise<SummaryRow | undefined> {
  const [row] = await store.query<SummaryRow>(
    'addresses.stats_summary',
    sql`SELECT address_count, address_tx_touches FROM chain_stats WHERE chain = ${chain}`,
    { reusePlan: true }, // a key lookup
  );
  return row;
}
