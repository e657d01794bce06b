/**
 * Where a followed block's time goes: the benchmark's tier base (built by `npm run bench`) copied to
 * its work database, the generated last day written in batches up to its last N blocks, then those
 * written one block per transaction as when following a node; prints every statement label's ms
 * and calls per followed block, and the time per rollup and per part of the API. Leaves the
 * benchmark's server running (a benchmark may be using it; `npm run bench` stops it when done).
 *   node --import tsx scripts/profile-follow.ts [tier] [chain] [blocks]     (TOP=N)
 * With PGSS=1 and the server started with pg_stat_statements preloaded (track_planning on), also
 * the server's planning and execution time per statement.
 */
import sql from 'sql-template-tag';
import type { SourceItem } from '../src/chain/model.ts';
import type { ChainId } from '../src/chain/chains.ts';
import { ingest } from '../src/ingest/pipeline.ts';
import { createSyntheticWorld } from '../src/sources/synthetic/index.ts';
import { openBenchServer } from '../bench/cluster.ts';
import { replay, rollupCostsSince, rollupTotals } from '../bench/parts/ingest.ts';
import { tierStore } from '../bench/stores.ts';
import { TIERS, type TierName } from '../bench/tiers.ts';

const tier = TIERS[(process.argv[2] ?? 'S') as TierName];
const chain = (process.argv[3] ?? 'pow') as ChainId;
const followed = Number(process.argv[4] ?? 60);
const server = await openBenchServer();
{
  const target = tierStore('postgres', tier, server);
  if (!(await target.exists('base'))) throw new Error(`no ${tier.name} base: run npm run bench -- --tiers ${tier.name} --parts generate first`);
  await target.copyBase();
  const store = await target.open('work');
  try {
    const [tip] = await store.query<{ height: number }>('profile.tip', sql`SELECT max(height) AS height FROM blocks WHERE chain = ${chain}`);
    const world = createSyntheticWorld(tier.world);
    const items: SourceItem[] = [];
    for await (const item of world[chain].blocks(Number(tip!.height) + 1)) items.push(item);
    const split = items.length - followed;
    await ingest(store, replay(world[chain], items.slice(0, split)), {});
    const serverStats = process.env.PGSS === '1';
    if (serverStats) await store.exec('profile.pgss', 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()');
    const rollupsBefore = rollupTotals();
    const before = new Map([...store.stats()].map(([label, s]) => [label, { ...s }]));
    const times: number[] = [];
    let last = performance.now();
    await ingest(store, replay(world[chain], items.slice(split)), {
      batchBlocks: 1,
      onProgress: () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
      },
    });
    const blocks = times.length;
    const mean = times.reduce((a, b) => a + b, 0) / blocks;
    console.log(`${tier.name} ${chain}: ${blocks} followed blocks, ${mean.toFixed(2)} ms per block`);
    const { byPart, byRollup, dayClose } = rollupCostsSince(rollupsBefore, blocks);
    console.log(`by part: ${Object.entries(byPart).map(([part, ms]) => `${part} ${ms}`).join(', ')} ms per block (day closes apart)`);
    console.log(`by rollup: ${byRollup.map((r) => `${r.label} ${r.ms}`).join(', ')}`);
    console.log(`day closes: ${dayClose.closes}, ${dayClose.ms} ms each: ${dayClose.byChart.map((c) => `${c.label} ${c.ms}`).join(', ')}`);
    const rows = [...store.stats()]
      .filter(([label]) => label !== 'profile.pgss')
      .map(([label, s]) => ({ label, ms: (s.totalMs - (before.get(label)?.totalMs ?? 0)) / blocks, calls: (s.count - (before.get(label)?.count ?? 0)) / blocks }))
      .filter((r) => r.calls > 0)
      .sort((a, b) => b.ms - a.ms);
    const statements = rows.filter((r) => !r.label.endsWith('(transaction)'));
    console.log(`statements per block: ${statements.reduce((n, r) => n + r.calls, 0).toFixed(1)}, their ms per block: ${statements.reduce((n, r) => n + r.ms, 0).toFixed(2)}`);
    for (const r of rows.slice(0, Number(process.env.TOP ?? 80))) console.log(r.label.padEnd(52), r.ms.toFixed(3).padStart(8), 'ms', r.calls.toFixed(2).padStart(7), 'calls');
    if (serverStats) {
      const top = await store.query<{ query: string; calls: number; plan: number; exec: number; all_plan: number; all_exec: number; all_calls: number }>(
        'profile.pgss',
        sql`SELECT left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 110) AS query, calls, total_plan_time AS plan, total_exec_time AS exec,
                   sum(total_plan_time) OVER () AS all_plan, sum(total_exec_time) OVER () AS all_exec, sum(calls) OVER ()::float8 AS all_calls
            FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            ORDER BY total_plan_time + total_exec_time DESC LIMIT 60`,
      );
      const all = top[0];
      if (all) console.log(`server: plan ${(all.all_plan / blocks).toFixed(2)} ms, exec ${(all.all_exec / blocks).toFixed(2)} ms, ${(all.all_calls / blocks).toFixed(1)} statements per block`);
      for (const r of top) console.log((r.plan / blocks).toFixed(3).padStart(7), (r.exec / blocks).toFixed(3).padStart(7), String(r.calls).padStart(5), r.query);
    }
  } finally {
    await store.close();
  }
}
