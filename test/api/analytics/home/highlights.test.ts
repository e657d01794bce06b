import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { expectedFromBlocks } from '../../../support/expected.ts';
import { expectedBiggest, expectedBusiestHour, isoSeconds, TARGET_BLOCK_SECONDS, windowOf } from '../../../support/expected-status.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const UNITS_PER_COIN: Record<ChainId, bigint> = { pow: 10n ** 9n, pos: 10n ** 18n };
const ZERO: Record<ChainId, string> = { pow: 'Q' + '0'.repeat(64), pos: 'Q' + '0'.repeat(40) };

function expected(w: AnalyticsWorld, chain: ChainId, network: string) {
  const blocks = w.blocks[chain];
  const tipTs = blocks.at(-1)!.timestamp;
  const biggest = expectedBiggest(blocks, utcDay(tipTs - 6 * 86_400), utcDay(tipTs));
  // Whales: at least 100,000 coins, sentinels excluded; the newest by first appearance (then by address).
  const whales = [...expectedFromBlocks(chain, blocks).addresses.entries()]
    .filter(([address, a]) => a.balance >= 100_000n * UNITS_PER_COIN[chain] && address !== ZERO[chain] && a.appeared !== null)
    .sort(([x, a], [y, b]) => b.appeared! - a.appeared! || (x < y ? -1 : 1));
  const blocks24h = windowOf(blocks, tipTs - 86_400, tipTs).blocks;
  const expected24h = 86_400 / TARGET_BLOCK_SECONDS[chain];
  return {
    chain,
    network,
    biggest_tx_recent: biggest && { window: '7d', tx_hash: biggest.tx_hash, value: biggest.value.toString(), from_addr: biggest.from_addr, to_addr: biggest.to_addr, timestamp: isoSeconds(biggest.ts) },
    busiest_hour_today: expectedBusiestHour(blocks),
    newest_whale: whales[0] ? { address: whales[0][0], balance: whales[0][1].balance.toString(), first_seen: isoSeconds(whales[0][1].appeared!) } : null,
    block_cadence: { blocks_24h: blocks24h, expected_24h: expected24h, ratio: blocks24h / expected24h },
  };
}

describeSeededApp('GET /analytics/home/highlights', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/home/highlights${query}`, headers: AUTH });

  it('answers the four highlights of each chain from the blocks, pos by default', async () => {
    for (const [query, chain] of [['', 'pos'], ['?chain=pos', 'pos'], ['?chain=pow', 'pow']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(body, expected(s.seeded(), chain, s.t().config.networks[chain]), query);
      assert.ok(body.biggest_tx_recent && body.busiest_hour_today && body.newest_whale, `${chain}: the world has each highlight`);
    }
  });

  it('refuses an unknown chain, naming it', async () => {
    const res = await get('?chain=btc');
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'chain'), res.body);
  });
});

describeSeededApp('GET /analytics/home/highlights on an empty store', async () => null, (s) => {
  it('answers nulls', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const body = (await s.t().app.inject({ url: `/api/v1/analytics/home/highlights?chain=${chain}`, headers: AUTH })).json();
      assert.deepEqual(body, { chain, network: s.t().config.networks[chain], biggest_tx_recent: null, busiest_hour_today: null, newest_whale: null, block_cadence: null });
    }
  });
});
