import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { eachHolderBatch, HOLDER_BATCH } from '../../../../src/api/analytics/supply/population.ts';
import { describeEachStore } from '../../../support/stores.ts';

describeEachStore('holder rows read in batches from a cursor', (store) => {
  it('gives every row once, in the query order, in batches of at most HOLDER_BATCH, with the total', async () => {
    const rows = 2 * HOLDER_BATCH + 7;
    const seen: number[] = [];
    const sizes: number[] = [];
    const totals = new Set<number>();
    await eachHolderBatch<{ v: number; n: string }>(
      store(),
      'test.batches',
      sql`SELECT g AS v, count(*) OVER () AS n FROM generate_series(1, ${rows}::int) g ORDER BY g DESC`,
      (batch, total) => {
        sizes.push(batch.length);
        totals.add(total);
        for (const r of batch) seen.push(Number(r.v));
      },
    );
    assert.deepEqual(sizes, [HOLDER_BATCH, HOLDER_BATCH, 7]);
    assert.deepEqual([...totals], [rows]);
    assert.equal(seen.length, rows);
    for (let i = 0; i < rows; i++) assert.equal(seen[i], rows - i);
  });

  it('calls nothing for an empty result, and the connection is free again', async () => {
    let calls = 0;
    await eachHolderBatch(store(), 'test.batches', sql`SELECT 1 AS v, count(*) OVER () AS n FROM generate_series(1, 0) g`, () => calls++);
    assert.equal(calls, 0);
    // A cursor left open would fail the next transaction's DECLARE of the same name on a reused connection.
    await eachHolderBatch<{ v: number; n: string }>(store(), 'test.batches', sql`SELECT 5 AS v, count(*) OVER () AS n`, (batch, total) => {
      calls++;
      assert.deepEqual([batch.map((r) => Number(r.v)), total], [[5], 1]);
    });
    assert.equal(calls, 1);
  });
});
