import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, NETWORK } from '../../../support/analytics-world.ts';
import { dailyFigures, lastDays } from '../../../support/expected-network.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const TYPES = {
  pow: ['transfer', 'coinbase', 'latticePK', 'message', 'token', 'transfer_token', 'slave', 'multi_sig_create', 'multi_sig_spend', 'multi_sig_vote', 'proposal_create', 'proposal_vote', 'unknown'],
  pos: ['transfer', 'contract_call', 'contract_create'],
} as const;

describeSeededApp('GET /analytics/transactions/by-type', loadAnalyticsWorld, (s) => {
  it('counts each day’s transactions of every type of the chain', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const res = await s.t().app.inject({ url: `/api/v1/analytics/transactions/by-type?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const items = lastDays(dailyFigures(s.seeded().blocks[chain]), 30).flatMap(([day, d]) =>
        TYPES[chain].map((tx_type) => ({ day, tx_type, tx_count: d.txs.filter((tx) => tx.type === tx_type).length })),
      );
      assert.ok(new Set(items.filter((i) => i.tx_count > 0).map((i) => i.tx_type)).size >= 3, `${chain}: several types occur`);
      assert.deepEqual(res.json(), { items, count: items.length, chain, network: NETWORK[chain], window_days: 30 });
    }
  });
});
