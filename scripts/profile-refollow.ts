/**
 * Where a followed block's time goes, on a tier database that is complete (the benchmark keeps a single
 * copy of a tier when the disk has no room for two, and its ingest part completes it): takes the last
 * N blocks of a chain back out the way a reorg does (raw rows read back, rollups reverted, closed days
 * reopened), then writes the same blocks again one per transaction, as when following a node. The
 * database ends as it began. Prints the revert's largest statements, then per followed block the time
 * by part of the API, by rollup and by statement, and the day closes apart.
 *
 *   npx tsx scripts/profile-refollow.ts postgres://…/bench_m_…_base M pow 60      (TOP=N statements)
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../src/chain/chains.ts';
import type { SourceItem } from '../src/chain/model.ts';
import { writeCheckpoint } from '../src/ingest/checkpoint.ts';
import { loadBlocks } from '../src/ingest/load-blocks.ts';
import { deleteRawAbove } from '../src/ingest/raw-store.ts';
import { revertRollups, RollupDeltas } from '../src/rollups/index.ts';
import { createSyntheticWorld } from '../src/sources/synthetic/index.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore } from '../src/store/store.ts';
import { followOneByOne, rollupTotals } from '../bench/parts/ingest.ts';
import { labelTotalsOf, printFollowed, statementsSince } from './followed-report.ts';
import { TIERS, type TierName } from '../bench/tiers.ts';

const [url, tierName = 'M', chainName = 'pow', n = '60'] = process.argv.slice(2);
if (!url || !(tierName in TIERS)) throw new Error('usage: profile-refollow.ts POSTGRES_URL [tier] [chain] [blocks]');
const tier = TIERS[tierName as TierName];
const chain = chainName as ChainId;
const count = Number(n);
const store = createStore(createPostgresDriver(url, { poolSize: 2 }));

try {
  const world = createSyntheticWorld(tier.world);
  const [tip] = await store.query<{ height: string }>('profile.tip', sql`SELECT max(height)::text AS height FROM blocks WHERE chain = ${chain}`);
  const ancestor = Number(tip!.height) - count;
  const [checkpoint] = await store.query<{ source: string }>('profile.source', sql`SELECT source FROM checkpoints WHERE chain = ${chain} LIMIT 1`);
  const started = performance.now();
  await store.transaction('profile.revert', async (tx) => {
    const reverted = await loadBlocks(tx, chain, ancestor + 1, Number(tip!.height));
    const [below] = await tx.query<{ ts: number; hash: string }>('profile.ancestor', sql`SELECT ts, hash FROM blocks WHERE chain = ${chain} AND height = ${ancestor}`);
    const deltas = new RollupDeltas(chain, Number(below!.ts));
    for (const block of reverted) deltas.addBlock(block);
    await revertRollups(tx, deltas, ancestor, reverted[0]!.timestamp, () => deleteRawAbove(tx, chain, ancestor));
    await writeCheckpoint(tx, chain, checkpoint?.source ?? world[chain].name, { height: ancestor, hash: below!.hash, rollupsHeight: ancestor }, Date.now());
  });
  const reverted = statementsSince(store, new Map(), 1).filter((r) => !r.label.endsWith('(transaction)')).slice(0, 8);
  console.log(`${tier.name} ${chain}: ${count} blocks taken back in ${(performance.now() - started).toFixed(0)} ms; ${reverted.map((r) => `${r.label} ${r.ms.toFixed(0)}`).join(', ')} ms`);

  const items: SourceItem[] = [];
  for await (const item of world[chain].blocks(ancestor + 1)) items.push(item);
  const before = { labels: labelTotalsOf(store), rollups: rollupTotals() };
  const times = await followOneByOne(store, world[chain], items);
  printFollowed(`${tier.name} ${chain}`, store, before, times);
} finally {
  await store.close();
}
