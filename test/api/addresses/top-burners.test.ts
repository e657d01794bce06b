import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Store } from '../../../src/store/store.ts';
import { AUTH } from '../../support/app.ts';
import type { ChainBuilder } from '../../support/chain-builder.ts';
import { expectedFeePayers, expectedFromBlocks, type Expected } from '../../support/expected.ts';
import { feePayersIn, lastSeconds } from '../../support/expected-windows.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { loadProfileChains } from './profile-fixtures.ts';

const DAY = 86_400;

type Payer = { address: string; fees: bigint; gas: number; txs: number };

/** The leaderboard of the `days` UTC days ending with the tip's day, richest fee payer first, from the oracle's daily figures. */
function expectedBurners(e: Expected, tipTs: number, days: number, limit: number) {
  return board(expectedFeePayers(e, tipTs, days), limit);
}

function board(rows: Payer[], limit: number) {
  rows.sort((a, b) => (a.fees === b.fees ? (a.address < b.address ? -1 : 1) : a.fees > b.fees ? -1 : 1));
  return rows.slice(0, limit).map((r) => ({ address: r.address, tx_count: r.txs, total_fees_paid: r.fees.toString(), total_gas_used: r.gas }));
}

/** The profile chains; the pos chain and its oracle figures (the board is pos-only). */
async function loadPos(store: Store): Promise<{ pos: ChainBuilder; expected: Expected }> {
  const { pos } = await loadProfileChains(store);
  return { pos, expected: expectedFromBlocks('pos', pos.blocks) };
}

describeSeededApp('GET /addresses/top/burners', loadPos, (s) => {
  const pos = () => s.seeded().pos;
  const expected = () => s.seeded().expected;

  const get = async (chain: string, query: string) => {
    const res = await s.t().app.inject({ url: `/api/v1/${chain}/addresses/top/burners${query}`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('orders pos fee payers of the window by fees paid, with their transactions and gas', async () => {
    const tip = pos().tip!.timestamp;
    const first = pos().blocks[0]!.timestamp;
    const history = Math.ceil((tip - first) / DAY) + 1;
    assert.ok(history >= 6, 'the fixture spans several days');
    // Kept windows (1, 7, 30, 365 days), the whole history (14 days: all-time totals), and windows summed on request (2, 3, 4 days).
    for (const [window, days] of [['1d', 1], ['2d', 2], ['3d', 3], ['4d', 4], ['1w', 7], ['2w', 14], ['30d', 30], ['1y', 365], [undefined, 7]] as const) {
      for (const limit of [undefined, 1, 2, 500]) {
        const query = new URLSearchParams();
        if (window) query.set('window', window);
        if (limit) query.set('limit', String(limit));
        const body = await get('pos', `?${query}`);
        assert.deepEqual(body, { items: expectedBurners(expected(), tip, days, limit ?? 50) }, `window ${window} limit ${limit}`);
      }
    }
    // Windows in hours and minutes: exactly that long, ending at the latest block's time (the
    // transactions of the blocks in (T − L, T]); one longer than the history holds all of it.
    for (const [window, seconds] of [['24h', 86_400], ['90m', 5_400], ['25h', 90_000], ['1440m', 86_400], ['400h', 400 * 3600]] as const) {
      for (const limit of [undefined, 1, 500]) {
        const body = await get('pos', `?window=${window}${limit ? `&limit=${limit}` : ''}`);
        assert.deepEqual(body, { items: board(feePayersIn(pos().blocks, lastSeconds(pos().blocks, seconds)), limit ?? 50) }, `window ${window} limit ${limit}`);
      }
    }
    // The shorter windows leave out earlier payers; the fixture makes them differ.
    assert.notDeepEqual(expectedBurners(expected(), tip, 1, 50), expectedBurners(expected(), tip, history, 50));
  });

  it('answers an empty list on pow', async () => {
    assert.deepEqual(await get('pow', ''), { items: [] });
    assert.deepEqual(await get('pow', '?window=30d&limit=500'), { items: [] });
  });

  for (const [query, param] of [
    ['limit=0', 'limit'], ['limit=501', 'limit'], ['limit=ten', 'limit'], ['limit=-Infinity', 'limit'], ['limit=Infinity', 'limit'], ['window=all', 'window'], ['window=0d', 'window'],
    ['window=7', 'window'], ['window=3651d', 'window'], ['window=7x', 'window'],
  ] as const) {
    it(`400 naming ${param} for ${query}`, async () => {
      for (const chain of ['pos', 'pow']) {
        const res = await s.t().app.inject({ url: `/api/v1/${chain}/addresses/top/burners?${query}`, headers: AUTH });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().errors[0].param, param);
      }
    });
  }
});
