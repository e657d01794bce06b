/** The read of GET /{chain}/addresses/{address}/activity-heatmap: an address's transactions by UTC weekday and hour. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Store } from '../../../store/store.ts';

export interface HeatmapRow {
  day_of_week: number;
  hour_of_day: number;
  tx_in: number;
  tx_out: number;
  tx_total: number;
}

/** The address's buckets with activity, by weekday then hour. */
export function readHeatmap(store: Store, chain: ChainId, address: string): Promise<HeatmapRow[]> {
  return store.query<HeatmapRow>(
    'addresses.heatmap',
    sql`SELECT day_of_week, hour_of_day, tx_in, tx_out, tx_total FROM address_heatmap
        WHERE chain = ${chain} AND address = ${address} AND tx_total > 0
        ORDER BY day_of_week, hour_of_day`,
    { reusePlan: true }, // the address's primary-key range
  );
}
