/**
 * chain_day_top_txs (src/rollups/whales/day-top-txs.ts) on days with more candidates than it keeps: a
 * batch inserts only what beats a full day's last kept row and trims only the days it leaves over
 * the limit. Blocks followed one or a few at a time, with ties on value (the earlier transaction
 * ranks first) and a reorg, must leave each day's 100 largest candidates of the canonical chain,
 * counted here from the blocks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { ingest } from '../../src/ingest/pipeline.ts';
import { TOP_TXS_PER_DAY } from '../../src/rollups/whales/day-top-txs.ts';
import { formatDay } from '../../src/time.ts';
import { addr, ChainBuilder, coins, type BlockBuilder } from '../support/chain-builder.ts';
import { rng } from '../support/random-chain.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

describeEachStore('the day’s largest transactions, kept block by block', (_getStore, kind) => {
  it('full days keep their 100 largest exactly, ties and a reorg included', async () => {
    const store = await openTestStore(kind);
    try {
      const chain = 'pos';
      const rand = rng(7);
      const people = Array.from({ length: 8 }, (_, i) => addr(chain, `top-txs person ${i}`));
      // Blocks 20 minutes apart: 72 a day, 2 to 4 transfers each, from a few values so that ties are common.
      const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 0) / 1000, 1200);
      builder.block((b) => b.genesis(people.map((address) => ({ address, amount: coins(chain, 10_000_000) }))));
      const transfers = (b: BlockBuilder) => {
        const n = 2 + Math.floor(rand() * 3);
        for (let i = 0; i < n; i++) b.transfer(people[i % people.length]!, people[(i + 3) % people.length]!, BigInt(1 + Math.floor(rand() * 40)) * 1_000_000n);
      };
      for (let h = 1; h < 150; h++) builder.block(transfers);
      builder.fork(3, [transfers, transfers, transfers, transfers]);
      for (let h = 0; h < 20; h++) builder.block(transfers);
      await ingest(store, builder.source(), { batchBlocks: 1 + Math.floor(rand() * 3) });

      const byDay = new Map<string, { height: number; txIndex: number; value: bigint }[]>();
      for (const block of builder.blocks) {
        for (const tx of block.transactions) {
          if (tx.type !== 'transfer' || tx.value <= 0n) continue;
          const day = formatDay(block.timestamp);
          byDay.set(day, [...(byDay.get(day) ?? []), { height: block.height, txIndex: tx.index, value: tx.value }]);
        }
      }
      const wanted = [...byDay.entries()].flatMap(([day, list]) =>
        list
          .sort((a, b) => (a.value === b.value ? a.height - b.height || a.txIndex - b.txIndex : a.value > b.value ? -1 : 1))
          .slice(0, TOP_TXS_PER_DAY)
          .map((t) => `${day} ${t.height} ${t.txIndex} ${t.value}`),
      );
      assert.ok([...byDay.values()].some((list) => list.length > TOP_TXS_PER_DAY), 'a day with more candidates than are kept');
      const stored = await store.query<{ key: string }>(
        'test.top_txs',
        sql`SELECT day::text || ' ' || height || ' ' || tx_index || ' ' || value::text AS key FROM chain_day_top_txs WHERE chain = ${chain}`,
      );
      assert.deepEqual(stored.map((r) => r.key).sort(), wanted.sort());
    } finally {
      await store.close();
    }
  });
});
