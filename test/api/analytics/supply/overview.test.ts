import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { AUTH, buildTestApp } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { coinsNumber, supplyDays, type SupplyDay } from '../../../support/expected-supply.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore } from '../../../support/stores.ts';

const SHOR = 10n ** 9n;

/** The 30 closed days before the tip's day that the history holds. */
const emissionDays = (days: SupplyDay[]) => days.slice(0, -1).slice(-30);

/** Everything the overview answers, from the blocks, with its numbers as exact as JavaScript allows. */
function expected(w: AnalyticsWorld) {
  const pow = supplyDays(w.blocks.pow);
  const pos = supplyDays(w.blocks.pos);
  const sum = (days: SupplyDay[], f: (d: SupplyDay) => bigint) => days.reduce((a, d) => a + f(d), 0n);

  const powSupply = pow.at(-1)!.cumulative;
  const genesis = sum(pow, (d) => d.allocated);
  const mined = powSupply - genesis;
  const powWindow = emissionDays(pow);
  // Genesis allocations are not emission.
  const powEmissionCoins = coinsNumber(sum(powWindow, (d) => d.minted - d.allocated), 9) / powWindow.length;

  const posMinted = pos.at(-1)!.cumulative;
  const burned = sum(pos, (d) => d.feeBurned);
  const claimed = sum(pos, (d) => d.migrationMinted);
  const posNet = posMinted - burned;
  const posWindow = emissionDays(pos);
  const posEmissionCoins = coinsNumber(sum(posWindow, (d) => d.minted - d.allocated - d.migrationMinted - d.feeBurned), 18) / posWindow.length;

  // Both chains in planck: pow's supply plus pos's net, the claimed coins (counted by both) once.
  const combined = powSupply * SHOR + posNet - claimed;
  const legacy = powSupply * SHOR - claimed;
  const own = posNet - claimed;
  const tipHeight = w.blocks.pow.at(-1)!.height;
  return {
    combined, legacy, claimed, own, powSupply, posNet, powEmissionCoins, posEmissionCoins,
    exact: {
      available: true,
      combined_supply_shor: (combined / SHOR).toString(),
      mirror_shor: (claimed / SHOR).toString(),
      migration_measurable: true,
      is_sparse: true, // six days of pow, four of pos: the 30-day emission windows reach before them
      pow: {
        minted_shor: powSupply.toString(),
        mining_pool_coins: 40_000_000,
        cap_coins: 105_000_000,
        indexed_height: tipHeight,
        node_tip_height: w.world.lastHeight.pow,
        is_fully_indexed: tipHeight >= w.world.lastHeight.pow,
      },
      max_supply: {
        max_coins: 105_000_000, public_sale_coins: 52_000_000, reserved_coins: 13_000_000, foundation_earmark_coins: 8_000_000,
        genesis_coins: 65_000_000, mining_pool_coins: 40_000_000,
      },
      pos: {
        minted_shor: (posMinted / SHOR).toString(),
        net_minted_shor: (posNet / SHOR).toString(),
        fee_burned_shor: (burned / SHOR).toString(),
        cap_coins: null,
      },
      split: {
        legacy_shor: (legacy / SHOR).toString(),
        claimed_shor: (claimed / SHOR).toString(),
        pos_net_shor: (combined / SHOR - legacy / SHOR - claimed / SHOR).toString(),
      },
    },
    approx: {
      combined_supply_coins: coinsNumber(combined, 18),
      emission_per_day_coins: powEmissionCoins + posEmissionCoins,
      inflation_annual_pct: ((powEmissionCoins + posEmissionCoins) * 365 * 100) / coinsNumber(combined, 18),
      pow: {
        minted_coins: coinsNumber(powSupply, 9),
        genesis_coins: coinsNumber(genesis, 9),
        mined_coins: coinsNumber(mined, 9),
        mining_remaining_coins: 40_000_000 - coinsNumber(mined, 9),
        cap_pct: (coinsNumber(powSupply, 9) / 105_000_000) * 100,
        remaining_coins: 105_000_000 - coinsNumber(powSupply, 9),
        emission_per_day_coins: powEmissionCoins,
        inflation_annual_pct: (powEmissionCoins * 365 * 100) / coinsNumber(powSupply, 9),
      },
      max_supply: { mined_coins: coinsNumber(mined, 9), unmined_coins: 40_000_000 - coinsNumber(mined, 9) },
      pos: {
        minted_coins: coinsNumber(posMinted, 18),
        net_minted_coins: coinsNumber(posNet, 18),
        fee_burned_coins: coinsNumber(burned, 18),
        emission_per_day_coins: posEmissionCoins,
        inflation_annual_pct: (posEmissionCoins * 365 * 100) / coinsNumber(posNet, 18),
      },
      split: {
        legacy_coins: coinsNumber(legacy, 18),
        legacy_pct: (coinsNumber(legacy, 18) / coinsNumber(combined, 18)) * 100,
        claimed_coins: coinsNumber(claimed, 18),
        claimed_pct: (coinsNumber(claimed, 18) / coinsNumber(combined, 18)) * 100,
        pos_net_coins: coinsNumber(own, 18),
        pos_net_pct: (coinsNumber(own, 18) / coinsNumber(combined, 18)) * 100,
      },
    },
  };
}

/** `actual` holds every field of `want`: exactly, or within a relative 1e-9 for `near`. */
function assertFields(actual: Record<string, unknown>, want: Record<string, unknown>, near: boolean, path = ''): void {
  for (const [key, value] of Object.entries(want)) {
    const got = actual[key];
    if (value !== null && typeof value === 'object') {
      assertFields(got as Record<string, unknown>, value as Record<string, unknown>, near, `${path}${key}.`);
    } else if (near) {
      assert.equal(typeof got, 'number', `${path}${key}`);
      const scale = Math.max(1e-12, Math.abs(value as number));
      assert.ok(Math.abs((got as number) - (value as number)) / scale < 1e-9, `${path}${key}: ${got} vs ${value}`);
    } else {
      assert.deepEqual(got, value, `${path}${key}`);
    }
  }
}

const ZEROED = {
  available: false,
  combined_supply_shor: '0',
  combined_supply_coins: 0,
  emission_per_day_coins: 0,
  inflation_annual_pct: 0,
  mirror_shor: '0',
  migration_measurable: false,
  is_sparse: false,
  pow: {
    minted_shor: '0', minted_coins: 0, genesis_coins: 0, mined_coins: 0, mining_pool_coins: 40_000_000, mining_remaining_coins: 0,
    cap_coins: 105_000_000, cap_pct: 0, remaining_coins: 0, emission_per_day_coins: 0, inflation_annual_pct: 0,
    indexed_height: null, node_tip_height: null, is_fully_indexed: false,
  },
  max_supply: {
    max_coins: 105_000_000, public_sale_coins: 52_000_000, reserved_coins: 13_000_000, foundation_earmark_coins: 8_000_000,
    genesis_coins: 65_000_000, mining_pool_coins: 40_000_000, mined_coins: 0, unmined_coins: 0,
  },
  pos: {
    minted_shor: '0', minted_coins: 0, net_minted_shor: '0', net_minted_coins: 0, fee_burned_shor: '0', fee_burned_coins: 0,
    cap_coins: null, emission_per_day_coins: 0, inflation_annual_pct: 0,
  },
  split: { legacy_shor: '0', legacy_coins: 0, legacy_pct: 0, claimed_shor: '0', claimed_coins: 0, claimed_pct: 0, pos_net_shor: '0', pos_net_coins: 0, pos_net_pct: 0 },
};

describeSeededApp('GET /analytics/supply/overview', loadAnalyticsWorld, (s, kind) => {
  const get = async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/supply/overview', headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('answers both chains’ supply, emission, the max-supply breakdown and the migration split from the blocks', async () => {
    const body = await get();
    const want = expected(s.seeded());
    assert.ok(want.claimed > 0n && want.legacy > 0n && want.own > 0n, 'the world migrates and pos issues coins of its own');
    assert.deepEqual(Object.keys(body).sort(), Object.keys(ZEROED).sort());
    for (const key of ['pow', 'max_supply', 'pos', 'split'] as const) assert.deepEqual(Object.keys(body[key]).sort(), Object.keys(ZEROED[key]).sort(), key);
    assertFields(body, want.exact, false);
    assertFields(body, want.approx, true);
    assert.ok(Math.abs(body.split.legacy_pct + body.split.claimed_pct + body.split.pos_net_pct - 100) < 1e-9, 'the shares sum to 100');
    assert.equal(BigInt(body.split.legacy_shor) + BigInt(body.split.claimed_shor) + BigInt(body.split.pos_net_shor), BigInt(body.combined_supply_shor));
  });

  it('says the node tip is unknown (and so not fully indexed) without a recorded tip', async () => {
    const store = s.store();
    const [tip] = await store.query<{ height: string; seen_ts: string }>('test.tip', sql`SELECT height, seen_ts FROM chain_node_tips WHERE chain = 'pow'`);
    assert.ok(tip, 'the generated world records its tip');
    await store.query('test.tip_delete', sql`DELETE FROM chain_node_tips WHERE chain = 'pow'`);
    try {
      const body = await get();
      assert.equal(body.pow.node_tip_height, null);
      assert.equal(body.pow.is_fully_indexed, false);
      assert.equal(body.pow.indexed_height, s.seeded().blocks.pow.at(-1)!.height);
      // A node ahead of the index.
      await store.query('test.tip_ahead', sql`INSERT INTO chain_node_tips (chain, height, seen_ts) VALUES ('pow', ${s.seeded().blocks.pow.at(-1)!.height + 5}, 0)`);
      const ahead = await get();
      assert.equal(ahead.pow.node_tip_height, s.seeded().blocks.pow.at(-1)!.height + 5);
      assert.equal(ahead.pow.is_fully_indexed, false);
    } finally {
      await store.query('test.tip_restore', sql`DELETE FROM chain_node_tips WHERE chain = 'pow'`);
      await store.query('test.tip_restore', sql`INSERT INTO chain_node_tips (chain, height, seen_ts) VALUES ('pow', ${tip!.height}, ${tip!.seen_ts})`);
    }
  });

  it('answers the zeroed shape with available false on an empty store', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    try {
      const res = await t.app.inject({ url: '/api/v1/analytics/supply/overview', headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), ZEROED);
    } finally {
      await t.close();
      await store.close();
    }
  });
});
