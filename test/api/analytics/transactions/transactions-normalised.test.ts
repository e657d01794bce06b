import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { coinsText, dailyFigures, lastDays } from '../../../support/expected-network.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const DECIMALS = { pow: 9, pos: 18 } as const;

describeSeededApp('GET /analytics/transactions-normalised', loadAnalyticsWorld, (s) => {
  it('answers both chains’ days in coins: transactions, value moved (reverted transactions move none) and fees', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/transactions-normalised?window=5d', headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    const items = (['pow', 'pos'] as const).flatMap((chain) =>
      lastDays(dailyFigures(s.seeded().blocks[chain]), 5).map(([day, d]) => ({
        chain,
        day,
        tx_count: d.txs.length,
        volume_quanta: coinsText(d.txs.reduce((a, tx) => a + (tx.status === 0 ? 0n : tx.value), 0n), DECIMALS[chain]),
        fees_quanta: coinsText(d.txs.reduce((a, tx) => a + tx.fee, 0n), DECIMALS[chain]),
      })),
    );
    items.sort((a, b) => (a.day === b.day ? (a.chain < b.chain ? -1 : 1) : a.day < b.day ? -1 : 1));
    assert.deepEqual(res.json(), { items, count: items.length, window_days: 5, unit: 'quanta' });
  });
});
