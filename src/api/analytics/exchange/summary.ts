/**
 * GET /api/v1/analytics/exchange/summary: the curated venues' custody, flows and leaderboard
 * (spec 4.4 rule 3; docs/metrics.md, "Exchanges"). Reads the few curated hot and cold wallets'
 * address_summary rows, exchange_venue_relays, 30 days of exchange_flow_daily and the balance
 * buckets: bounded whatever the history or the number of relays.
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { CHAIN_INFO } from '../../../chain/chains.ts';
import { addDays, DAY_SECONDS, formatDay, formatTimestampOrNull } from '../../../time.ts';
import { formatUnits, percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { IntegerQuery, Nullable, NullableTimestamp } from '../../schemas/common.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';
import { totalSupply } from '../../../domain/supply.ts';

/** A venue whose wallets were silent this many days is inactive, unless the request says otherwise. */
export const INACTIVE_AFTER_DAYS = 90;

const SummaryQuery = Type.Object({
  chain: AnalyticsChain,
  inactive_after_days: IntegerQuery({ minimum: 1, maximum: 3650, default: INACTIVE_AFTER_DAYS, description: 'A venue whose hot and cold wallets have had no transaction for more than this many days (before the latest block) is inactive; 1 to 3650, default 90.' }),
});

const Quanta = (description: string) => Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: `${description} In coins (quanta), an exact decimal string.` });

const Venue = Type.Object({
  name: Type.String(),
  balance_quanta: Quanta('Custody: the balances of its hot and cold wallets and confirmed deposit relays.'),
  wallet_addresses: Type.Integer({ description: 'Its curated hot and cold wallets.' }),
  relay_addresses: Type.Integer({ description: 'Its confirmed deposit relays.' }),
  relay_balance_quanta: Quanta('The part of balance_quanta held by its confirmed deposit relays.'),
  active: Type.Boolean({ description: 'A wallet moved within inactive_after_days of the latest block.' }),
  wallet_last_seen: { ...NullableTimestamp, description: 'Last transaction of any of its hot and cold wallets; null if none ever moved.' },
  active_balance_quanta: Quanta('balance_quanta when active, else 0.'),
  supply_pct: Type.Number({ description: 'Its custody as a share of the supply when active, else 0.' }),
  supply_pct_all: Type.Number({ description: 'Its custody as a share of the supply, active or not.' }),
  net_flow_7d_quanta: Quanta('Withdrawals − deposits over the 7 UTC days ending with the latest block’s day.'),
  net_flow_30d_quanta: Quanta('Withdrawals − deposits over 30 days.'),
});

const SummaryResponse = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  exchange_labeled: Type.Boolean({ description: 'Whether the chain has curated venue wallets.' }),
  inactive_after_days: Type.Integer(),
  exchange_count: Type.Integer({ description: 'Venues with at least one confirmed address.' }),
  tracked_addresses: Type.Integer({ description: 'Confirmed venue addresses: curated hot and cold wallets and confirmed deposit relays.' }),
  total_balance_quanta: Quanta('Custody of every venue, inactive ones included.'),
  active_balance_quanta: Quanta('Custody of the active venues.'),
  supply_quanta: Quanta('Current supply: the sum of positive balances, sentinels excluded.'),
  supply_pct: Type.Number({ description: 'active_balance_quanta as a share of the supply (0–100).' }),
  supply_pct_all: Type.Number({ description: 'total_balance_quanta as a share of the supply (0–100).' }),
  net_flow_7d_quanta: Quanta('Withdrawals − deposits of all venues, 7 days (positive: coins leave exchanges).'),
  net_flow_30d_quanta: Quanta('Withdrawals − deposits, 30 days.'),
  gross_inflow_7d_quanta: Quanta('Deposits, 7 days.'),
  gross_outflow_7d_quanta: Quanta('Withdrawals, 7 days.'),
  gross_inflow_30d_quanta: Quanta('Deposits, 30 days.'),
  gross_outflow_30d_quanta: Quanta('Withdrawals, 30 days.'),
  biggest: { ...Nullable(Venue), description: 'The venue with the largest custody (the leaderboard’s first); null without venues.' },
  leaderboard: Type.Array(Venue, { description: 'Every venue, largest custody first (then by name).' }),
});

interface VenueRow {
  name: string;
  balance: bigint;
  wallets: number;
  relays: number;
  relayBalance: bigint;
  lastSeen: number | null;
  dep7: bigint;
  wd7: bigint;
  dep30: bigint;
  wd30: bigint;
}

export function exchangeSummaryRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/exchange/summary',
    operationId: 'getExchangeSummary',
    summary: 'Exchange custody, flows and the venues’ leaderboard',
    query: SummaryQuery,
    response: SummaryResponse,
    handler: async ({ query, chain }) => {
      const inactiveAfter = query.inactive_after_days;
      const span = await chainSpan(ctx.store, chain);
      const tipDay = span ? formatDay(span.tipTs) : '1970-01-01';
      const from7 = addDays(tipDay, -6);
      const from30 = addDays(tipDay, -29);
      const [wallets, relays, flows, supplyUnits] = await Promise.all([
        ctx.store.query<{ exchange: string; wallets: number; balance: string; last_seen: string | number | null }>(
          'analytics.exchange.summary.wallets',
          sql`SELECT w.exchange, count(*)::int AS wallets, coalesce(sum(s.balance), 0)::text AS balance, max(s.last_seen) AS last_seen
              FROM exchange_wallets w LEFT JOIN address_summary s ON s.chain = w.chain AND s.address = w.address
              WHERE w.chain = ${chain} AND w.role IN ('hot', 'cold')
              GROUP BY w.exchange`,
          { reusePlan: true }, // the curated wallets: a handful per venue
        ),
        ctx.store.query<{ exchange: string; relays: number; relay_balance: string }>(
          'analytics.exchange.summary.relays',
          sql`SELECT exchange, relays, relay_balance::text AS relay_balance FROM exchange_venue_relays WHERE chain = ${chain}`,
          { reusePlan: true },
        ),
        ctx.store.query<{ exchange: string; dep7: string; wd7: string; dep30: string; wd30: string }>(
          'analytics.exchange.summary.flows',
          sql`SELECT exchange,
                     coalesce(sum(deposits) FILTER (WHERE day >= ${from7}::date), 0)::text AS dep7,
                     coalesce(sum(withdrawals) FILTER (WHERE day >= ${from7}::date), 0)::text AS wd7,
                     sum(deposits)::text AS dep30, sum(withdrawals)::text AS wd30
              FROM exchange_flow_daily
              WHERE chain = ${chain} AND day BETWEEN ${from30}::date AND ${tipDay}::date
              GROUP BY exchange`,
          { reusePlan: true }, // 30 days per venue
        ),
        totalSupply(ctx.store, chain),
      ]);

      const venues = new Map<string, VenueRow>();
      const venue = (name: string) => {
        let v = venues.get(name);
        if (!v) venues.set(name, (v = { name, balance: 0n, wallets: 0, relays: 0, relayBalance: 0n, lastSeen: null, dep7: 0n, wd7: 0n, dep30: 0n, wd30: 0n }));
        return v;
      };
      for (const w of wallets) {
        const v = venue(w.exchange);
        v.wallets = w.wallets;
        v.balance += BigInt(w.balance);
        v.lastSeen = w.last_seen == null ? null : Number(w.last_seen);
      }
      for (const r of relays) {
        const v = venue(r.exchange);
        v.relays = r.relays;
        v.relayBalance = BigInt(r.relay_balance);
        v.balance += v.relayBalance;
      }
      for (const f of flows) {
        const v = venues.get(f.exchange);
        if (!v) continue; // a venue no longer curated
        v.dep7 = BigInt(f.dep7);
        v.wd7 = BigInt(f.wd7);
        v.dep30 = BigInt(f.dep30);
        v.wd30 = BigInt(f.wd30);
      }

      const quanta = (units: bigint) => formatUnits(units.toString(), CHAIN_INFO[chain].decimals);
      const isActive = (v: VenueRow) => span !== null && v.lastSeen !== null && span.tipTs - v.lastSeen <= inactiveAfter * DAY_SECONDS;
      const leaderboard = [...venues.values()]
        .sort((a, b) => (a.balance === b.balance ? (a.name < b.name ? -1 : 1) : a.balance > b.balance ? -1 : 1))
        .map((v) => {
          const active = isActive(v);
          return {
            name: v.name,
            balance_quanta: quanta(v.balance),
            wallet_addresses: v.wallets,
            relay_addresses: v.relays,
            relay_balance_quanta: quanta(v.relayBalance),
            active,
            wallet_last_seen: formatTimestampOrNull(v.lastSeen),
            active_balance_quanta: quanta(active ? v.balance : 0n),
            supply_pct: active ? percentOf(v.balance, supplyUnits) : 0,
            supply_pct_all: percentOf(v.balance, supplyUnits),
            net_flow_7d_quanta: quanta(v.wd7 - v.dep7),
            net_flow_30d_quanta: quanta(v.wd30 - v.dep30),
          };
        });
      const all = [...venues.values()];
      const sum = (f: (v: VenueRow) => bigint) => all.reduce((acc, v) => acc + f(v), 0n);
      const total = sum((v) => v.balance);
      const activeTotal = sum((v) => (isActive(v) ? v.balance : 0n));
      return {
        chain,
        network: ctx.network(chain),
        exchange_labeled: wallets.length > 0,
        inactive_after_days: inactiveAfter,
        exchange_count: all.length,
        tracked_addresses: all.reduce((acc, v) => acc + v.wallets + v.relays, 0),
        total_balance_quanta: quanta(total),
        active_balance_quanta: quanta(activeTotal),
        supply_quanta: quanta(supplyUnits),
        supply_pct: percentOf(activeTotal, supplyUnits),
        supply_pct_all: percentOf(total, supplyUnits),
        net_flow_7d_quanta: quanta(sum((v) => v.wd7 - v.dep7)),
        net_flow_30d_quanta: quanta(sum((v) => v.wd30 - v.dep30)),
        gross_inflow_7d_quanta: quanta(sum((v) => v.dep7)),
        gross_outflow_7d_quanta: quanta(sum((v) => v.wd7)),
        gross_inflow_30d_quanta: quanta(sum((v) => v.dep30)),
        gross_outflow_30d_quanta: quanta(sum((v) => v.wd30)),
        biggest: leaderboard[0] ?? null,
        leaderboard,
      };
    },
  });
}
