/**
 * One definition each (src/domain/): the figures named for a window of hours ending at the latest
 * block agree to the block across endpoints (top/burners, active_24h, planck_24h,
 * fee_burned_24h_planck), and every endpoint that divides by or takes a percent of the total supply
 * uses the same figure (min_balance_pct, supply_pct, whales, supply/summary, exchange/summary). All
 * against oracles computed from the raw blocks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHAIN_INFO, POS_ZERO_ADDRESS, POW_COINBASE_SENTINEL, type ChainId } from '../../../src/chain/chains.ts';
import type { Store } from '../../../src/store/store.ts';
import { AUTH } from '../../support/app.ts';
import { addr, ChainBuilder, coins, type BlockBuilder } from '../../support/chain-builder.ts';
import { expectedFromBlocks, type Expected } from '../../support/expected.ts';
import { activeIn, burnedIn, feePayersIn, lastSeconds, totalSupplyOf, type SecondsWindow } from '../../support/expected-windows.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { ingestChain, powChain } from './fixtures.ts';

const HOUR = 3600;
const DAY = 86_400;
/** The latest block: 01:00 UTC, so the last 24 hours are 23 hours of the day before and the first hour of this one. */
const T = Date.UTC(2026, 2, 10, 1, 0, 0) / 1000;

const P = Object.fromEntries(
  ['alice', 'bob', 'carol', 'dave', 'early', 'edgeOut', 'edgeIn', 'sink'].map((n) => [n, addr('pos', `window-${n}`)]),
) as Record<'alice' | 'bob' | 'carol' | 'dave' | 'early' | 'edgeOut' | 'edgeIn' | 'sink', string>;

type Fill = (b: BlockBuilder) => void;

/**
 * A pos chain of three days ending at T: blocks every few hours, one exactly 24 hours before T
 * (outside the window) and one a second later (inside), one at midnight, a block without base fee
 * whose zero-fee transactions still count as sent, and a transfer to the zero address (a sentinel
 * with a positive balance, which is not supply).
 */
function windowChain(): ChainBuilder {
  // One-second block time: each block's gap is its distance in seconds from the one before.
  const c = new ChainBuilder('pos', T - 3 * DAY, 1);
  const plan: [number, number, Fill][] = [];
  const at = (offset: number, baseFee: number, fill: Fill) => plan.push([offset, baseFee, fill]);
  at(-3 * DAY, 7, (b) => b.genesis(Object.values(P).map((address, i) => ({ address, amount: coins('pos', 1_000 * (i + 1)) }))));
  for (let h = 70; h > 25; h -= 5) {
    at(-h * HOUR, 5 + h, (b) => {
      b.transfer(P.alice, P.bob, coins('pos', 1), { tip: BigInt(h) });
      if (h % 2 === 0) b.transfer(P.early, P.carol, coins('pos', 2), { tip: 40n });
    });
  }
  at(-DAY, 11, (b) => b.transfer(P.edgeOut, P.alice, coins('pos', 3), { tip: 1_000n, gasUsed: 90_000 }));
  at(-DAY + 1, 13, (b) => b.transfer(P.edgeIn, P.bob, coins('pos', 3), { tip: 9n, gasUsed: 30_000 }));
  for (const [offset, base, tip] of [[-80_000, 17, 5], [-60_000, 19, 300], [-40_000, 23, 2], [-20_000, 29, 70], [-5_000, 31, 3], [-HOUR - 1, 37, 11]] as const) {
    at(offset, base, (b) => {
      b.transfer(P.alice, P.carol, coins('pos', 1), { tip: BigInt(tip) });
      b.transfer(P.carol, P.bob, coins('pos', 1), { tip: BigInt(tip * 2), gasUsed: 50_000 });
      if (offset === -40_000) b.transfer(P.dave, P.sink, coins('pos', 1), { tip: 4n });
    });
  }
  at(-HOUR, 41, (b) => {
    b.transfer(P.carol, P.dave, coins('pos', 1), { tip: 6n });
    b.transfer(P.bob, POS_ZERO_ADDRESS, coins('pos', 5), { tip: 1n });
  });
  at(-40 * 60, 43, (b) => b.transfer(P.alice, P.sink, coins('pos', 1), { tip: 8n, gasUsed: 70_000 }));
  // No base fee and no tip: the transactions pay nothing, but they are sent.
  at(-20 * 60, 0, (b) => {
    b.transfer(P.dave, P.sink, coins('pos', 1), { tip: 0n });
    b.transfer(P.alice, P.sink, coins('pos', 1), { tip: 0n });
  });
  at(0, 47, (b) => b.transfer(P.bob, P.carol, coins('pos', 1), { tip: 12n }));
  let previous = -3 * DAY;
  for (const [offset, baseFee, fill] of plan) {
    const gap = offset - previous;
    previous = offset;
    c.block((b) => {
      b.block.baseFeePerGas = BigInt(baseFee);
      fill(b);
    }, { gap: gap === 0 ? undefined : gap });
  }
  assert.equal(c.tip!.timestamp, T);
  return c;
}

interface Seeded {
  chains: Record<ChainId, ChainBuilder>;
  expected: Record<ChainId, Expected>;
}

async function seed(store: Store): Promise<Seeded> {
  const chains = { pow: powChain(), pos: windowChain() };
  for (const c of Object.values(chains)) await ingestChain(store, c);
  return { chains, expected: { pow: expectedFromBlocks('pow', chains.pow.blocks), pos: expectedFromBlocks('pos', chains.pos.blocks) } };
}

const byFees = (rows: { address: string; fees: bigint; gas: number; txs: number }[], limit = 50) =>
  rows
    .sort((a, b) => (a.fees === b.fees ? (a.address < b.address ? -1 : 1) : a.fees > b.fees ? -1 : 1))
    .slice(0, limit)
    .map((r) => ({ address: r.address, tx_count: r.txs, total_fees_paid: r.fees.toString(), total_gas_used: r.gas }));

describeSeededApp('windows ending at the latest block, and the total supply', seed, (s) => {
  const get = async (url: string) => {
    const res = await s.t().app.inject({ url: `/api/v1${url}`, headers: AUTH });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };
  const pos = () => s.seeded().chains.pos;

  it('24h is the 86,400 seconds before the latest block: top/burners, active_24h, planck_24h and fee_burned_24h_planck agree', async () => {
    const blocks = pos().blocks;
    const w = lastSeconds(blocks, DAY);
    const e = s.seeded().expected.pos;
    // The fixture makes the edges matter: the block exactly 24 hours before is out, the one a
    // second later in, and the window is not the tip's UTC day.
    const utcDay: SecondsWindow = { after: T - HOUR - 1, upTo: T };
    const closed: SecondsWindow = { after: w.after - 1, upTo: w.upTo };
    assert.notEqual(burnedIn(blocks, w), burnedIn(blocks, closed));
    assert.notEqual(burnedIn(blocks, w), burnedIn(blocks, utcDay));
    assert.notEqual(activeIn(e, w), activeIn(e, closed));
    assert.notDeepEqual(byFees(feePayersIn(blocks, w)), byFees(feePayersIn(blocks, closed)));
    assert.notDeepEqual(byFees(feePayersIn(blocks, w)), byFees(feePayersIn(blocks, utcDay)));

    const burned = burnedIn(blocks, w).toString();
    const summary = await get('/pos/fees/burned/summary');
    assert.equal(summary.planck_24h, burned);
    assert.equal(summary.latest_day, '2026-03-10');
    const dashboard = await get('/analytics/dashboard/summary');
    assert.equal(dashboard.chains.pos.fee_burned_24h_planck, burned);
    assert.equal((await get('/pos/addresses/stats/summary')).active_24h, activeIn(e, w));
    const board = byFees(feePayersIn(blocks, w));
    assert.deepEqual(await get('/pos/addresses/top/burners?window=24h'), { items: board });
    assert.deepEqual(await get('/pos/addresses/top/burners?window=1440m'), { items: board });
    // dave's only transaction of the tip's day paid no fee: it still counts as sent.
    assert.equal(board.find((r) => r.address === P.dave)?.tx_count, 2);
    // `1d` stays the tip's whole UTC day.
    assert.deepEqual(await get('/pos/addresses/top/burners?window=1d'), { items: byFees(feePayersIn(blocks, utcDay)) });
  });

  it('top/burners in hours or minutes is exact for any length, whichever edge the partial day is read from', async () => {
    const blocks = pos().blocks;
    // 23h, 24h and 40h subtract the part before the window from the first day; 2h, 30h and 36h add
    // the part inside it; 30m and 50m stay inside the tip's day; 100h holds the whole history.
    for (const window of ['30m', '50m', '90m', '2h', '23h', '24h', '25h', '30h', '36h', '40h', '47h', '100h']) {
      const seconds = Number(window.slice(0, -1)) * (window.endsWith('m') ? 60 : HOUR);
      for (const limit of [1, 3, 500]) {
        assert.deepEqual(
          await get(`/pos/addresses/top/burners?window=${window}&limit=${limit}`),
          { items: byFees(feePayersIn(blocks, lastSeconds(blocks, seconds)), limit) },
          `window ${window} limit ${limit}`,
        );
      }
    }
  });

  it('min_balance_pct, supply_pct, whales, supply/summary and exchange/summary divide by one total supply', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const e = s.seeded().expected[chain];
      const supply = totalSupplyOf(chain, e);
      // The sentinel holds coins that are not supply (pow: the reserve rewards are paid from; pos: a transfer to the zero address).
      const sentinel = chain === 'pow' ? POW_COINBASE_SENTINEL : POS_ZERO_ADDRESS;
      assert.ok((e.addresses.get(sentinel)?.balance ?? 0n) > 0n, `${chain}: the sentinel holds coins`);

      assert.equal((await get(`/analytics/supply/summary?chain=${chain}`)).total_supply, supply.toString(), `${chain} supply/summary`);
      const whales = await get(`/analytics/whales/summary?chain=${chain}&threshold_pct=1.5`);
      const threshold = (supply * 15n + 999n) / 1000n;
      assert.equal(whales.total_supply, supply.toString(), `${chain} whales`);
      assert.equal(whales.whale_threshold, threshold.toString(), `${chain} whale threshold`);
      const exchange = await get(`/analytics/exchange/summary?chain=${chain}`);
      const unit = CHAIN_INFO[chain].unitsPerCoin;
      const fraction = (supply % unit).toString().padStart(CHAIN_INFO[chain].decimals, '0').replace(/0+$/, '');
      assert.equal(exchange.supply_quanta, `${supply / unit}${fraction ? `.${fraction}` : ''}`, `${chain} exchange`);

      const holders = [...e.addresses].filter(([, a]) => a.balance >= threshold);
      const top = await get(`/${chain}/addresses/top/active?min_balance_pct=1.5&page_size=100`);
      assert.equal(top.total, holders.length, `${chain} min_balance_pct`);
      assert.deepEqual(top.addresses.map((r: any) => r.address).sort(), holders.map(([a]) => a).sort());

      const [richest, a] = [...e.addresses].filter(([address]) => address !== sentinel).sort(([, x], [, y]) => (x.balance > y.balance ? -1 : 1))[0]!;
      const insights = await get(`/${chain}/addresses/${richest}/insights`);
      const exact = Number((a.balance * 10n ** 30n) / supply) / 1e28;
      assert.ok(Math.abs(insights.rank.supply_pct - exact) < 1e-9 * exact, `${chain} supply_pct ${insights.rank.supply_pct} vs ${exact}`);
    }
  });
});
