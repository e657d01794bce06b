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
import { followOneByOne, replay, rollupTotals } from '../bench/parts/ingest.ts';
import { labelTotalsOf, printFollowed } from './followed-report.ts';
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
    const before = { labels: labelTotalsOf(store), rollups: rollupTotals() };
    const times = await followOneByOne(store, world[chain], items.slice(split));
    const blocks = times.length;
    printFollowed(`${tier.name} ${chain}`, store, before, times, ['profile.pgss']);
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
