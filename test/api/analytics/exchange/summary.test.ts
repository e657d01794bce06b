import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SENTINELS, type ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { expectedFromBlocks } from '../../../support/expected.ts';
import { asQuanta, confirmedVenues, flowsOf, movesOf } from '../../../support/expected-exchange.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const DECIMALS: Record<ChainId, number> = { pow: 9, pos: 18 };

/** The summary by docs/metrics.md ("Exchanges"), from the generated blocks and the generator's curated venues. */
function expected(w: AnalyticsWorld, chain: ChainId, network: string, inactiveDays: number) {
  const blocks = w.blocks[chain];
  const tipTs = blocks.at(-1)!.timestamp;
  const tipDay = utcDay(tipTs);
  const dayBefore = (n: number) => utcDay(Date.parse(`${tipDay}T00:00:00Z`) / 1000 - n * 86_400);
  const wallets = w.world.curated.exchangeWallets.filter((x) => x.chain === chain);
  const moves = movesOf(blocks);
  const venues = confirmedVenues(wallets, moves);
  const flows = flowsOf(moves, venues);
  const addresses = expectedFromBlocks(chain, blocks).addresses;
  let supply = 0n;
  for (const [address, a] of addresses) if (a.balance > 0n && !SENTINELS[chain].includes(address)) supply += a.balance;
  const q = (units: bigint) => asQuanta(units, DECIMALS[chain]);
  const pct = (part: bigint) => (supply > 0n ? (Number(part) / Number(supply)) * 100 : 0);

  const names = [...new Set([...venues.values()].map((v) => v.exchange))];
  const rows = names.map((name) => {
    const mine = [...venues].filter(([, v]) => v.exchange === name);
    const custody = wallets.filter((x) => x.exchange === name && x.role !== 'deposit_relay').map((x) => x.address);
    const relays = mine.filter(([, v]) => v.relay).map(([a]) => a);
    const balanceOf = (list: string[]) => list.reduce((s, a) => s + (addresses.get(a)?.balance ?? 0n), 0n);
    const balance = balanceOf(mine.map(([a]) => a));
    const seen = custody.map((a) => addresses.get(a)?.lastSeen ?? null).filter((t): t is number => t !== null);
    const lastSeen = seen.length ? Math.max(...seen) : null;
    const active = lastSeen !== null && tipTs - lastSeen <= inactiveDays * 86_400;
    const within = (days: number) => flows.filter((f) => f.day >= dayBefore(days - 1) && f.day <= tipDay);
    const net = (days: number) => within(days).reduce((s, f) => s + (f.fromVenue === name ? f.value : 0n) - (f.toVenue === name ? f.value : 0n), 0n);
    return {
      row: {
        name,
        balance_quanta: q(balance),
        wallet_addresses: custody.length,
        relay_addresses: relays.length,
        relay_balance_quanta: q(balanceOf(relays)),
        active,
        wallet_last_seen: lastSeen === null ? null : new Date(lastSeen * 1000).toISOString().slice(0, 19),
        active_balance_quanta: q(active ? balance : 0n),
        supply_pct: active ? pct(balance) : 0,
        supply_pct_all: pct(balance),
        net_flow_7d_quanta: q(net(7)),
        net_flow_30d_quanta: q(net(30)),
      },
      balance,
      active,
    };
  });
  rows.sort((a, b) => (a.balance === b.balance ? (a.row.name < b.row.name ? -1 : 1) : a.balance > b.balance ? -1 : 1));
  const total = rows.reduce((s, r) => s + r.balance, 0n);
  const activeTotal = rows.reduce((s, r) => s + (r.active ? r.balance : 0n), 0n);
  const sumFlows = (days: number, side: 'toVenue' | 'fromVenue') =>
    flows.filter((f) => f.day >= dayBefore(days - 1) && f[side] !== null).reduce((s, f) => s + f.value, 0n);
  return {
    chain,
    network,
    exchange_labeled: wallets.length > 0,
    inactive_after_days: inactiveDays,
    exchange_count: names.length,
    tracked_addresses: venues.size,
    total_balance_quanta: q(total),
    active_balance_quanta: q(activeTotal),
    supply_quanta: q(supply),
    supply_pct: pct(activeTotal),
    supply_pct_all: pct(total),
    net_flow_7d_quanta: q(sumFlows(7, 'fromVenue') - sumFlows(7, 'toVenue')),
    net_flow_30d_quanta: q(sumFlows(30, 'fromVenue') - sumFlows(30, 'toVenue')),
    gross_inflow_7d_quanta: q(sumFlows(7, 'toVenue')),
    gross_outflow_7d_quanta: q(sumFlows(7, 'fromVenue')),
    gross_inflow_30d_quanta: q(sumFlows(30, 'toVenue')),
    gross_outflow_30d_quanta: q(sumFlows(30, 'fromVenue')),
    biggest: rows[0]?.row ?? null,
    leaderboard: rows.map((r) => r.row),
  };
}

/** Percentages are computed from exact integers on both sides; they agree to rounding. */
function assertSummary(actual: Record<string, unknown>, wanted: Record<string, unknown>, context: string): void {
  const close = (a: unknown, b: unknown, path: string) => assert.ok(typeof a === 'number' && Math.abs(a - (b as number)) < 1e-9, `${context} ${path}: ${a} vs ${b}`);
  const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => !k.endsWith('_pct') && !k.endsWith('_pct_all')));
  for (const key of ['supply_pct', 'supply_pct_all']) close(actual[key], wanted[key], key);
  const board = (x: Record<string, unknown>) => (x.leaderboard as Record<string, unknown>[]);
  board(wanted).forEach((v, i) => {
    close(board(actual)[i]?.supply_pct, v.supply_pct, `leaderboard[${i}].supply_pct`);
    close(board(actual)[i]?.supply_pct_all, v.supply_pct_all, `leaderboard[${i}].supply_pct_all`);
  });
  const plain = (x: Record<string, unknown>) => ({ ...strip(x), biggest: x.biggest && strip(x.biggest as Record<string, unknown>), leaderboard: board(x).map(strip) });
  assert.deepEqual(plain(actual), plain(wanted), context);
}

describeSeededApp('GET /analytics/exchange/summary', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/exchange/summary${query}`, headers: AUTH });

  it('answers custody, flows and the leaderboard of each chain from the blocks and the curated venues, pos by default', async () => {
    for (const [query, chain] of [['', 'pos'], ['?chain=pow', 'pow']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assertSummary(body, expected(s.seeded(), chain, s.t().config.networks[chain], 90), query);
      assert.ok(body.exchange_count >= 2 && body.leaderboard.some((v: { relay_addresses: number }) => v.relay_addresses > 0), `${chain}: venues with confirmed relays`);
      assert.notEqual(body.gross_inflow_7d_quanta, '0', `${chain}: deposits in the last 7 days`);
    }
  });

  it('flags venues silent for more than inactive_after_days as inactive', async () => {
    // A one-day threshold: venues whose wallets were silent through the last day become inactive.
    for (const chain of ['pos', 'pow'] as const) {
      const res = await get(`?chain=${chain}&inactive_after_days=1`);
      assert.equal(res.statusCode, 200, res.body);
      assertSummary(res.json(), expected(s.seeded(), chain, s.t().config.networks[chain], 1), `${chain} inactive_after_days=1`);
    }
  });

  it('refuses a bad chain or inactive_after_days, naming the parameter', async () => {
    for (const [query, param] of [['?chain=btc', 'chain'], ['?inactive_after_days=0', 'inactive_after_days'], ['?inactive_after_days=3651', 'inactive_after_days'], ['?inactive_after_days=x', 'inactive_after_days']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/exchange/summary on an empty store', async () => null, (s) => {
  it('answers zeros and an empty leaderboard', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const res = await s.t().app.inject({ url: `/api/v1/analytics/exchange/summary?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        chain, network: s.t().config.networks[chain], exchange_labeled: false, inactive_after_days: 90, exchange_count: 0, tracked_addresses: 0,
        total_balance_quanta: '0', active_balance_quanta: '0', supply_quanta: '0', supply_pct: 0, supply_pct_all: 0,
        net_flow_7d_quanta: '0', net_flow_30d_quanta: '0', gross_inflow_7d_quanta: '0', gross_outflow_7d_quanta: '0',
        gross_inflow_30d_quanta: '0', gross_outflow_30d_quanta: '0', biggest: null, leaderboard: [],
      });
    }
  });
});
