import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CanonicalTx } from '../../../../src/chain/model.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { dailyFigures, lastDays } from '../../../support/expected-network.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const LABELS = ['simple value transfer', 'token transfer', 'contract call', 'contract swap', 'complex contract call', 'deploy', '1M+ gas'];

/** The bucket by the rule of docs/metrics.md ("Gas distribution"), written out again here. */
function bucketOf(tx: CanonicalTx): number {
  const gas = tx.gasUsed ?? 0;
  if (gas >= 1_000_000) return 6;
  if (tx.type === 'contract_create') return 5;
  if (tx.type === 'transfer') return 0;
  const tokens = tx.tokenTransfers.length;
  if (tokens >= 2) return 3;
  if (tokens === 1) return 1;
  return gas >= 100_000 ? 4 : 2;
}

describeSeededApp('GET /analytics/gas-distribution', loadAnalyticsWorld, (s) => {
  const get = async (query: string) => {
    const res = await s.t().app.inject({ url: `/api/v1/analytics/gas-distribution${query}`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('puts each pos transaction of a day in one of the seven buckets', async () => {
    const body = await get('?window=7d');
    const items = lastDays(dailyFigures(s.seeded().blocks.pos), 7).flatMap(([day, d]) =>
      LABELS.map((bucket_label, bucket) => ({ day, bucket, bucket_label, bucket_count: d.txs.filter((tx) => bucketOf(tx) === bucket).length })),
    );
    assert.ok(new Set(items.filter((i) => i.bucket_count > 0).map((i) => i.bucket)).size >= 4, 'several buckets occur');
    assert.deepEqual(body.items, items);
    assert.equal(body.count, items.length);
    assert.equal(body.window_days, 7);
    assert.deepEqual(body.buckets.map((b: { id: number; label: string }) => [b.id, b.label]), LABELS.map((l, i) => [i, l]));
    assert.ok(body.buckets.every((b: { meaning: string }) => b.meaning.length > 10));
  });

  it('is empty on pow, which has no gas', async () => {
    const body = await get('?chain=pow');
    assert.deepEqual([body.items, body.count, body.network], [[], 0, 'mainnet']);
  });
});
