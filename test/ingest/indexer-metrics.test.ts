/**
 * An indexer's Prometheus metrics (src/cli/indexer-metrics.ts, docs/metrics-prometheus.md): a chain
 * ingested through the pipeline with the engine's hook wired gives one rollup-upkeep observation per
 * applied block, blocks applied and reverted as the chain's builder counts them, the time split by
 * rollup, and the store's statements; served over HTTP on a port of its own.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ingest } from '../../src/ingest/pipeline.ts';
import { createIndexerMetrics } from '../../src/cli/indexer-metrics.ts';
import { serveMetrics } from '../../src/api/metrics/registry.ts';
import { ROLLUPS } from '../../src/rollups/registry.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeEachStore } from '../support/stores.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Samples of the Prometheus text format. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, line);
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    samples.push({ name: match[1]!, labels, value: match[3] === '+Inf' ? Infinity : Number(match[3]) });
  }
  return samples;
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

describeEachStore('indexer metrics', (getStore) => {
  it('observe the rollup upkeep once per applied block, and count reverted blocks', async () => {
    const store = getStore();
    const metrics = createIndexerMetrics(store, ['pos']);
    try {
      const start = parse(await metrics.registry.metrics());
      assert.ok(start.some((s) => s.name === 'quarry_indexer_blocks_applied_total' && s.labels.chain === 'pos' && s.value === 0), 'shown at 0 from the start');
      const c = new ChainBuilder('pos', Date.UTC(2026, 3, 1, 10) / 1000, 12);
      const [alice, bob] = [addr('pos', 'upkeep alice'), addr('pos', 'upkeep bob')];
      c.block((b) => b.genesis([{ address: alice, amount: coins('pos', 100) }]));
      for (let i = 0; i < 16; i++) c.block((b) => b.transfer(alice, bob, coins('pos', 1)));
      await ingest(store, c.source(), { batchBlocks: 5 });
      const firstRun = c.blocks.length;

      let m = parse(await metrics.registry.metrics());
      assert.equal(value(m, 'quarry_indexer_blocks_applied_total', { chain: 'pos' }), firstRun);
      assert.equal(value(m, 'quarry_indexer_rollup_upkeep_seconds_count', { chain: 'pos' }), firstRun, 'one observation per applied block');
      assert.equal(value(m, 'quarry_indexer_rollup_upkeep_seconds_bucket', { chain: 'pos', le: '+Inf' }), firstRun);
      assert.equal(value(m, 'quarry_indexer_blocks_reverted_total', { chain: 'pos' }), 0);
      const upkeep = value(m, 'quarry_indexer_rollup_upkeep_seconds_sum', { chain: 'pos' });
      const split = value(m, 'quarry_indexer_rollup_seconds_total', { chain: 'pos', kind: 'apply' });
      assert.ok(upkeep > 0 && split > 0);
      assert.ok(split <= upkeep * 1.0001, `the split by rollup (${split}) is part of the upkeep (${upkeep})`);
      const parts = new Set(m.filter((s) => s.name === 'quarry_indexer_rollup_seconds_total').map((s) => s.labels.rollup));
      assert.ok(parts.has('delta_tables'));
      for (const rollup of ROLLUPS) assert.ok(parts.has(rollup.name), `${rollup.name} is timed`);
      assert.ok(value(m, 'quarry_store_query_duration_seconds_count', { statement: 'ingest.batch (transaction)' }) >= 1);

      // A fork of depth 3 with a longer branch: 3 blocks reverted, 4 applied.
      c.fork(3, [0, 1, 2, 3].map((i) => (b) => b.transfer(bob, alice, BigInt(i + 1))));
      const result = await ingest(store, c.source(), { batchBlocks: 5 });
      assert.equal(result.reorgs, 1);
      m = parse(await metrics.registry.metrics());
      assert.equal(value(m, 'quarry_indexer_blocks_reverted_total', { chain: 'pos' }), 3);
      assert.equal(value(m, 'quarry_indexer_blocks_applied_total', { chain: 'pos' }), firstRun + 4);
      assert.equal(value(m, 'quarry_indexer_rollup_upkeep_seconds_count', { chain: 'pos' }), firstRun + 4);
      assert.ok(value(m, 'quarry_indexer_rollup_seconds_total', { chain: 'pos', kind: 'revert' }) > 0);

      // Served on a port of its own, as `quarry index --metrics-port` does.
      const server = await serveMetrics(metrics.registry, '127.0.0.1', 0);
      try {
        const res = await fetch(server.url);
        assert.equal(res.status, 200);
        const served = parse(await res.text());
        assert.equal(value(served, 'quarry_indexer_rollup_upkeep_seconds_count', { chain: 'pos' }), firstRun + 4);
        assert.ok(served.every((s) => s.name.startsWith('quarry_')));
      } finally {
        await server.close();
      }

      // Closed: the engine's and the store's later work is no longer observed.
      metrics.close();
      c.block((b) => b.transfer(alice, bob, 1n));
      await ingest(store, c.source());
      m = parse(await metrics.registry.metrics());
      assert.equal(value(m, 'quarry_indexer_blocks_applied_total', { chain: 'pos' }), firstRun + 4);
    } finally {
      metrics.close();
    }
  });
});
