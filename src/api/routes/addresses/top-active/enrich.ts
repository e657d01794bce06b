/** The leaderboard rows of a page's addresses, with their primary labels and 30-day flows when asked. */
import sql, { empty, raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../../chain/chains.ts';
import { tipTime } from '../../../../rollups/shared/tip.ts';
import type { Db } from '../../../../store/store.ts';
import { addDays, formatDay, formatTimestampOrNull } from '../../../../time.ts';
import type { AnswerAmount } from '../../../amounts.ts';
import type { AddressSummaryRowType } from '../../../schemas/address-summary.ts';
import { ORDER, type SortField } from './params.ts';

interface SummaryRow {
  address: string;
  balance: string;
  total_received: string;
  total_sent: string;
  total_fees_paid: string;
  tx_count: number;
  tx_received_count: number;
  tx_sent_count: number;
  first_seen: number | null;
  last_seen: number | null;
  label?: string | null;
  label_category?: string | null;
  received_30d?: string;
  sent_30d?: string;
}

interface RowOptions {
  chain: ChainId;
  network: string;
  field: SortField;
  withLabels: boolean;
  withDelta: boolean;
}

/** The rows of the addresses `keys` yields, in the order of `field`. */
export async function loadRows(db: Db, keys: Sql, o: RowOptions, amount: AnswerAmount): Promise<AddressSummaryRowType[]> {
  const { chain, network, withLabels, withDelta } = o;
  let fromDay: string | null = null;
  if (withDelta) {
    const tip = await tipTime(db, chain, 'addresses.top.tip');
    fromDay = tip !== null ? addDays(formatDay(tip), -29) : null;
  }
  const rows = await db.query<SummaryRow>(
    'addresses.top.page',
    sql`WITH keys AS (${keys})
        SELECT s.address, s.balance, s.total_received, s.total_sent, s.total_fees_paid, s.tx_count, s.tx_received_count,
               s.tx_sent_count, s.first_seen, s.last_seen
               ${withLabels ? sql`, l.label, l.category AS label_category` : empty}
               ${withDelta ? sql`, coalesce(w.received, 0) AS received_30d, coalesce(w.sent, 0) AS sent_30d` : empty}
        FROM keys k
        JOIN address_summary s ON s.chain = ${chain} AND s.address = k.address
        ${withLabels ? sql`LEFT JOIN labels l ON l.chain = ${chain} AND l.address = s.address AND l.is_primary` : empty}
        ${withDelta
          ? sql`LEFT JOIN LATERAL (SELECT sum(d.received) AS received, sum(d.sent) AS sent FROM address_daily d
                                   WHERE d.chain = ${chain} AND d.address = s.address AND d.day >= ${fromDay ?? '9999-12-31'}::date) w ON true`
          : empty}
        ORDER BY ${raw(ORDER[o.field].order.replace(/(^|, )([a-z_]+)/g, '$1s.$2'))}`,
  );
  return rows.map((r) => ({
    address: r.address,
    chain,
    network,
    balance: amount(r.balance, r.address, 'balance'),
    total_received: amount(r.total_received, r.address, 'total_received'),
    total_sent: amount(r.total_sent, r.address, 'total_sent'),
    total_fees_paid: amount(r.total_fees_paid, r.address, 'total_fees_paid'),
    tx_count: r.tx_count,
    tx_received_count: r.tx_received_count,
    tx_sent_count: r.tx_sent_count,
    first_seen: formatTimestampOrNull(r.first_seen),
    last_seen: formatTimestampOrNull(r.last_seen),
    label: withLabels ? (r.label ?? null) : null,
    label_category: withLabels ? (r.label_category ?? null) : null,
    received_30d: withDelta ? amount(r.received_30d ?? '0', r.address, 'received_30d') : null,
    sent_30d: withDelta ? amount(r.sent_30d ?? '0', r.address, 'sent_30d') : null,
  }));
}
