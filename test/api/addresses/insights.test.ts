import assert from 'node:assert/strict';
import { it } from 'node:test';
import { POS_ZERO_ADDRESS, POW_COINBASE_SENTINEL, type ChainId } from '../../../src/chain/chains.ts';
import { AUTH } from '../../support/app.ts';
import { addr } from '../../support/chain-builder.ts';
import type { ExpectedAddress } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { CURATED, loadProfileExpected, POSA, POW_LOW_TREE, POW_SMALL_TREE, POWA } from './profile-fixtures.ts';

const DAY = 86_400;
const UNITS: Record<ChainId, bigint> = { pow: 10n ** 9n, pos: 10n ** 18n };
/** The ten tiers of docs/metrics.md, lower bounds in coins. */
const TIERS: [string, bigint][] = [
  ['plankton', 0n], ['shrimp', 1n], ['crab', 10n], ['fish', 100n], ['dolphin', 1_000n], ['shark', 10_000n], ['orca', 40_000n],
  ['whale', 100_000n], ['humpback', 1_000_000n], ['leviathan', 5_000_000n],
];

function tierIndex(chain: ChainId, balance: bigint): number {
  if (balance <= 0n) return -1;
  let index = 0;
  TIERS.forEach(([, min], i) => {
    if (balance >= min * UNITS[chain]) index = i;
  });
  return index;
}

/** 1 + strictly better; percent strictly worse. */
function rankAmong<T>(all: T[], me: T, better: (a: T, b: T) => boolean) {
  const above = all.filter((a) => better(a, me)).length;
  const below = all.filter((a) => better(me, a)).length;
  return { rank: above + 1, percentile: (100 * below) / all.length, total: all.length };
}

function close(actual: number, expected: number, message: string) {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${message}: ${actual} vs ${expected}`);
}

describeSeededApp('GET /addresses/{address}/insights', loadProfileExpected, (s) => {
  const expected = () => s.seeded().expected;
  const tipTs = () => s.seeded().tipTs;

  const get = async (chain: ChainId, address: string) => {
    const res = await s.t().app.inject({ url: `/api/v1/${chain}/addresses/${address}/insights`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('ranks every address by balance, transactions and age, ties sharing a rank, with percentiles, supply share and concentration', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const entries = [...expected()[chain].addresses.entries()];
      const all = entries.map(([, e]) => e);
      // Ranks place every address, sentinels included; supply and holders leave the sentinels out
      // (the pow zero address holds the reserve rewards are paid from, which is not supply).
      const sentinel = new Set<ExpectedAddress>(entries.filter(([a]) => a === POW_COINBASE_SENTINEL || a === POS_ZERO_ADDRESS).map(([, e]) => e));
      const held = all.filter((e) => e.balance > 0n && !sentinel.has(e));
      const supply = held.reduce((sum, e) => sum + e.balance, 0n);
      const holders = held.length;
      const older = (a: ExpectedAddress, b: ExpectedAddress) => a.appeared !== null && (b.appeared === null || a.appeared < b.appeared);
      for (const [address, e] of entries) {
        const body = await get(chain, address);
        const label = `${chain} ${address.slice(0, 12)}`;
        assert.equal(body.exists, true);
        assert.deepEqual(body.rank.by_tx_count, rankAmong(all, e, (a, b) => a.txCount > b.txCount), `${label} by_tx_count`);
        for (const [key, better] of [['by_balance', (a: ExpectedAddress, b: ExpectedAddress) => a.balance > b.balance], ['by_age', older]] as const) {
          const want = rankAmong(all, e, better);
          assert.equal(body.rank[key].rank, want.rank, `${label} ${key} rank`);
          assert.equal(body.rank[key].total, want.total, `${label} ${key} total`);
          close(body.rank[key].percentile, want.percentile, `${label} ${key} percentile`);
        }
        close(body.rank.supply_pct, Number((e.balance * 10n ** 30n) / supply) / 1e28, `${label} supply_pct`);
        if (e.balance > 0n) {
          const richer = held.filter((a) => a.balance > e.balance);
          const richerSum = richer.reduce((sum, a) => sum + a.balance, 0n);
          assert.equal(body.concentration.holders, holders);
          assert.equal(body.concentration.richer_holders, richer.length, `${label} richer`);
          close(body.concentration.richer_supply_pct, Number((richerSum * 10n ** 30n) / supply) / 1e28, `${label} richer supply`);
          close(body.concentration.cumulative_supply_pct, Number(((richerSum + e.balance) * 10n ** 30n) / supply) / 1e28, `${label} cumulative`);
          close(body.concentration.holder_top_pct, (100 * (richer.length + 1)) / holders, `${label} top pct`);
        } else {
          assert.equal(body.concentration, null, `${label} no concentration without a balance`);
        }
      }
    }
  });

  it('ties share a rank and an exact-bucket tie is counted as neither better nor worse', async () => {
    const [a, b] = [await get('pow', POWA.tie1), await get('pow', POWA.tie2)];
    assert.deepEqual(a.rank.by_balance, b.rank.by_balance);
    const zeroes = [...expected().pow.addresses.values()].filter((e) => e.balance === 0n).length;
    assert.ok(zeroes >= 2);
    const shrimp = await get('pow', POWA.shrimp); // emptied: balance 0
    assert.equal(shrimp.rank.by_balance.percentile, 0);
    assert.equal(shrimp.rank.by_balance.rank, expected().pow.addresses.size - zeroes + 1);
  });

  it('gives the holder-tier badge of each balance, and none without coins', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      for (const [address, e] of expected()[chain].addresses) {
        const body = await get(chain, address);
        const holdings = body.badges.filter((badge: any) => badge.category === 'holdings');
        const index = tierIndex(chain, e.balance);
        if (index < 0) {
          assert.equal(holdings.length, 0);
        } else {
          assert.equal(holdings.length, 1);
          assert.equal(holdings[0].key, `tier_${TIERS[index]![0]}`, `${chain} ${address.slice(0, 12)} tier`);
          assert.equal(holdings[0].tier, TIERS[index]![0]);
        }
        for (const badge of body.badges) {
          for (const field of ['key', 'label', 'emoji', 'tone', 'category', 'tier', 'description']) assert.equal(typeof badge[field], 'string');
          assert.ok(badge.reason === null || typeof badge.reason === 'string');
        }
      }
    }
    const keys = async (chain: ChainId, address: string) => (await get(chain, address)).badges.map((b: any) => b.key);
    assert.ok((await keys('pow', POWA.leviathan)).includes('tier_leviathan'));
    assert.ok((await keys('pow', POWA.treasury)).includes('tier_humpback'));
    assert.ok((await keys('pow', POWA.whale)).includes('tier_whale'));
    assert.ok((await keys('pow', POWA.dolphin)).includes('tier_dolphin'));
    assert.ok((await keys('pow', POWA.tie1)).includes('tier_crab'));
    assert.ok((await keys('pow', POWA.plankton)).includes('tier_shrimp')); // 0.5 + the shrimp's 5 coins less a fee
    assert.ok((await keys('pos', POSA.alice)).includes('tier_whale'));
  });

  it('gives signature, role, activity and age badges by their rules', async () => {
    const badges = async (chain: ChainId, address: string) => new Map<string, any>((await get(chain, address)).badges.map((b: any) => [b.key, b]));
    const user = await badges('pow', POWA.user);
    assert.equal(user.get('sig_xmss').category, 'signature');
    assert.match(user.get('sig_xmss').reason, /tree height 10: 1,024 one-time keys, 1 used/);
    assert.ok(!user.has('ots_low'));
    assert.equal((await badges('pow', POW_SMALL_TREE)).get('ots_exhausted').tone, 'negative');
    assert.equal((await badges('pow', POW_LOW_TREE)).get('ots_low').tone, 'warning');
    assert.ok(!(await badges('pow', POW_COINBASE_SENTINEL)).has('sig_xmss'));
    assert.equal((await badges('pow', POW_COINBASE_SENTINEL)).get('role_protocol').category, 'role');

    const payer = await badges('pos', POSA.payer1);
    assert.equal(payer.get('sig_ml_dsa_87').category, 'signature');
    assert.ok(payer.has('newcomer'), 'the pos chain is a few days old');
    assert.ok(!(await badges('pos', POSA.contract)).has('sig_ml_dsa_87'), 'contracts do not sign');
    assert.equal((await badges('pos', POSA.deployer)).get('deployer').tier, 'bronze');
    assert.ok((await badges('pos', POSA.staker)).has('role_staker'));
    assert.ok((await badges('pos', POSA.vault)).has('role_custodial'));

    const exchange = await badges('pow', POWA.exchange);
    assert.ok(exchange.has('role_exchange') && exchange.has('slave_master'));
    assert.equal((await badges('pow', POWA.busy1)).get('active').tier, 'bronze');
    assert.ok(!(await badges('pow', POWA.user)).has('active'));

    const leviathan = await badges('pow', POWA.leviathan);
    assert.ok(leviathan.has('genesis'));
    assert.equal(leviathan.get('veteran').tier, 'bronze');
    assert.ok(leviathan.has('dormant'), 'never moved, a year and more before the latest block');
    assert.ok(!(await badges('pow', POWA.whale)).has('dormant'), 'moved in the latest block');
    assert.deepEqual([...(await badges('pow', POWA.whale)).values()].map((b) => b.category), ['holdings', 'signature', 'age', 'age']);
  });

  it('scores reputation by the documented points', async () => {
    const bands: [number, string][] = [[80, 'trusted'], [60, 'established'], [40, 'moderate'], [20, 'limited'], [0, 'minimal']];
    const curated = new Map<string, number>();
    for (const l of CURATED.labels) if (l.isPrimary) curated.set(`${l.chain}|${l.address}`, 20);
    for (const w of CURATED.exchangeWallets) curated.set(`${w.chain}|${w.address}`, w.confirmed ? 20 : 5);
    for (const chain of ['pow', 'pos'] as const) {
      for (const [address, e] of expected()[chain].addresses) {
        const body = await get(chain, address);
        if (address === POW_COINBASE_SENTINEL || address === POS_ZERO_ADDRESS) {
          assert.deepEqual(body.reputation, { score: 0, classification: 'protocol' });
          continue;
        }
        const now = tipTs()[chain];
        const age = e.appeared === null ? 0 : Math.min(25, Math.floor(Math.floor((now - e.appeared) / DAY) / 30));
        const activity = [1, 10, 100, 1000, 10000].filter((n) => e.txCount >= n).length * 5;
        const index = tierIndex(chain, e.balance);
        const holdings = index < 0 ? 0 : 2 + 2 * index;
        const last = e.lastSeen ?? e.appeared;
        const recent = last !== null && now - last <= 90 * DAY ? 10 : 0;
        const exhausted = chain === 'pow' && e.otsUsed >= 2 ** ((parseInt(address.slice(3, 5), 16) & 0x0f) * 2) ? 20 : 0;
        const score = Math.max(0, Math.min(100, age + activity + holdings + (curated.get(`${chain}|${address}`) ?? 0) + recent - exhausted));
        assert.deepEqual(body.reputation, { score, classification: bands.find(([min]) => score >= min)![1] }, `${chain} ${address.slice(0, 12)}`);
      }
    }
  });

  it('reports XMSS key use on pow and null on pos', async () => {
    for (const [address, e] of expected().pow.addresses) {
      const body = await get('pow', address);
      if (address === POW_COINBASE_SENTINEL) {
        assert.equal(body.xmss, null);
        continue;
      }
      const height = (parseInt(address.slice(3, 5), 16) & 0x0f) * 2;
      const total = 2 ** height;
      assert.deepEqual(body.xmss, {
        tree_height: height, hash_function: 'shake_128', ots_keys_total: total, ots_keys_used: e.otsUsed,
        ots_keys_remaining: total - e.otsUsed, ots_max_index: e.otsMaxIndex, ots_used_pct: (100 * e.otsUsed) / total,
        status: e.otsUsed === 0 ? 'unused' : e.otsUsed === total ? 'exhausted' : (total - e.otsUsed) * 10 <= total ? 'low' : 'ok',
        slave_keys: e.slaveCount,
      }, address.slice(0, 12));
    }
    assert.equal((await get('pow', POW_SMALL_TREE)).xmss.tree_height, 2);
    assert.equal((await get('pow', POWA.exchange)).xmss.slave_keys, 1);
    assert.equal((await get('pos', POSA.alice)).xmss, null);
  });

  it('answers an address never seen: exists false, no badges, zero-valued ranks', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const address = addr(chain, 'nobody');
      const body = await get(chain, address);
      const all = [...expected()[chain].addresses.values()];
      assert.equal(body.exists, false);
      assert.deepEqual(body.badges, []);
      assert.deepEqual(body.reputation, { score: 0, classification: 'unknown' });
      assert.deepEqual(body.rank.by_balance, { rank: all.filter((e) => e.balance > 0n).length + 1, percentile: 0, total: all.length });
      assert.deepEqual(body.rank.by_tx_count, { rank: all.filter((e) => e.txCount > 0).length + 1, percentile: 0, total: all.length });
      assert.deepEqual(body.rank.by_age, { rank: all.filter((e) => e.appeared !== null).length + 1, percentile: 0, total: all.length });
      assert.equal(body.rank.supply_pct, 0);
      assert.equal(body.concentration, null);
      assert.equal(body.xmss === null, chain === 'pos');
      assert.deepEqual([body.address, body.chain, body.network], [address, chain, chain === 'pow' ? 'mainnet' : 'testnet']);
    }
  });

  it('accepts pos address forms, rejects malformed addresses naming address', async () => {
    const hex = POSA.bob.slice(1);
    for (const form of [`0x${hex.toUpperCase()}`, `Z${hex}`]) assert.equal((await get('pos', form)).address, POSA.bob);
    for (const [chain, address] of [['pos', 'Q123'], ['pow', POSA.bob], ['pow', 'Q' + '1'.repeat(78)]] as const) {
      const res = await s.t().app.inject({ url: `/api/v1/${chain}/addresses/${address}/insights`, headers: AUTH });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().errors[0].param, 'address');
    }
  });
});
