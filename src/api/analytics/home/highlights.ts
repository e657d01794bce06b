/** GET /api/v1/analytics/home/highlights: four facts of a chain for an explorer's home page (docs/metrics.md, "Network status"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { SENTINELS, type ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { addDays, DAY_SECONDS, formatDay, formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { whaleFloor } from '../../../domain/holder-tiers.ts';
import { Amount, Nullable, Timestamp } from '../../schemas/common.ts';
import { countWindow } from '../network/tps.ts';
import { windowEndingAt } from '../../../domain/window.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';

/** `biggest_tx_recent` looks at the 7 UTC days ending with the tip's day. */
const BIGGEST_WINDOW_DAYS = 7;

const BiggestTx = Type.Object({
  window: Type.String({ description: 'The window searched: 7d, the 7 UTC days ending with the latest block’s day.' }),
  tx_hash: Type.String(),
  value: Amount,
  from_addr: Type.String(),
  to_addr: Nullable(Type.String()),
  timestamp: Timestamp,
});

const BusiestHour = Type.Object({
  hour: { ...Timestamp, description: 'Start of the UTC hour, YYYY-MM-DDTHH:00:00.' },
  tx_count: Type.Integer(),
  block_count: Type.Integer(),
});

const NewestWhale = Type.Object({
  address: Type.String(),
  balance: Amount,
  first_seen: { ...Timestamp, description: 'First appearance: the earlier of its first transaction and its first incoming value.' },
});

const BlockCadence = Type.Object({
  blocks_24h: Type.Integer({ description: 'Blocks with a time in the 24 hours ending at the latest block’s time.' }),
  expected_24h: Type.Integer({ description: '86,400 / the network’s slot time, rounded down (the health route’s slot_seconds: a 60 s network makes 1,440, a 12 s one 7,200; pow’s target is 60 s).' }),
  ratio: Type.Number({ description: 'blocks_24h / expected_24h.' }),
});

const HighlightsResponse = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  biggest_tx_recent: { ...Nullable(BiggestTx), description: 'The user transaction that moved the most native value in the window (coinbase, mints and reverted transactions excluded); null without one.' },
  busiest_hour_today: { ...Nullable(BusiestHour), description: 'The hour of the latest block’s UTC day with the most transactions (the earliest on a tie); null before any block.' },
  newest_whale: { ...Nullable(NewestWhale), description: 'Of the addresses holding at least 100,000 coins (sentinels excluded), the one that appeared last; null without one.' },
  block_cadence: { ...Nullable(BlockCadence), description: 'Blocks of the last 24 hours against the target; null before any block.' },
});

async function biggestTx(db: Db, chain: ChainId, tipTs: number) {
  const to = formatDay(tipTs);
  const [row] = await db.query<{ value: string; tx_hash: string; from_addr: string; to_addr: string | null; ts: string | number }>(
    'analytics.highlights.biggest',
    sql`SELECT l.value::text AS value, l.tx_hash, l.from_addr, l.to_addr, l.ts FROM chain_day_largest l
        WHERE l.chain = ${chain} AND l.day BETWEEN ${addDays(to, 1 - BIGGEST_WINDOW_DAYS)}::date AND ${to}::date
        ORDER BY l.value DESC, l.day, l.height, l.tx_index LIMIT 1`, // l.value: the number, not its text
    { reusePlan: true }, // at most 7 rows
  );
  return row ? { window: `${BIGGEST_WINDOW_DAYS}d`, tx_hash: row.tx_hash, value: row.value, from_addr: row.from_addr, to_addr: row.to_addr, timestamp: formatTimestamp(Number(row.ts)) } : null;
}

async function busiestHour(db: Db, chain: ChainId, tipTs: number) {
  const firstHour = Math.floor(tipTs / DAY_SECONDS) * 24;
  const [row] = await db.query<{ hour: string | number; tx_count: number; block_count: number }>(
    'analytics.highlights.busiest_hour',
    sql`SELECT hour, tx_count, block_count FROM chain_hourly WHERE chain = ${chain} AND hour BETWEEN ${firstHour} AND ${firstHour + 23}
        ORDER BY tx_count DESC, hour LIMIT 1`,
    { reusePlan: true }, // at most 24 rows
  );
  return row ? { hour: formatTimestamp(Number(row.hour) * 3600), tx_count: Number(row.tx_count), block_count: Number(row.block_count) } : null;
}

async function newestWhale(db: Db, chain: ChainId) {
  // Whales are few (at most the supply / 100,000 coins): take them from the balance index, then sort.
  const [row] = await db.query<{ address: string; balance: string; appeared: string | number }>(
    'analytics.highlights.newest_whale',
    sql`WITH whales AS MATERIALIZED (
          SELECT address, balance, appeared FROM address_summary
          WHERE chain = ${chain} AND balance >= ${whaleFloor(chain).toString()}::numeric
        )
        SELECT w.address, w.balance::text AS balance, w.appeared FROM whales w
        WHERE w.appeared IS NOT NULL AND NOT (w.address = ANY(${[...SENTINELS[chain]]}::text[]))
        ORDER BY w.appeared DESC, w.address LIMIT 1`,
    // Planned with the threshold's value: a plan kept for any value guesses a third of the chain's
    // addresses above it and scans them all; with it, a short range of the balance index.
  );
  return row ? { address: row.address, balance: row.balance, first_seen: formatTimestamp(Number(row.appeared)) } : null;
}

export function homeHighlightsRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/home/highlights',
    operationId: 'getHomeHighlights',
    summary: 'Home-page highlights of a chain: biggest recent transaction, busiest hour today, newest whale, block cadence',
    query: Type.Object({ chain: AnalyticsChain }),
    response: HighlightsResponse,
    handler: async ({ chain, networks }) => {
      const envelope = { chain, network: ctx.network(chain) };
      const span = await chainSpan(ctx.store, chain);
      if (!span) return { ...envelope, biggest_tx_recent: null, busiest_hour_today: null, newest_whale: null, block_cadence: null };
      const [biggest, busiest, whale, window] = await Promise.all([
        biggestTx(ctx.store, chain, span.tipTs),
        busiestHour(ctx.store, chain, span.tipTs),
        newestWhale(ctx.store, chain),
        countWindow(ctx.store, chain, windowEndingAt(span.tipTs, DAY_SECONDS)),
      ]);
      const expected = Math.floor(DAY_SECONDS / networks[chain].slotSeconds);
      return {
        ...envelope,
        biggest_tx_recent: biggest,
        busiest_hour_today: busiest,
        newest_whale: whale,
        block_cadence: { blocks_24h: window.blocks, expected_24h: expected, ratio: window.blocks / expected },
      };
    },
  });
}
