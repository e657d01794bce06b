/**
 * The pow-archive part (optional): `quarry index pow --archive` of the mainnet-shaped pow history
 * the pow-mainnet part backfills from a node (docs/synthetic-data.md), as a QRL v1 archive written
 * by the test tree's writer (test/fakes/qrl-archive: each block the Block bytes the fake node
 * serves, shards of 10,000 blocks with real digests), into an empty PostgreSQL database with every
 * rollup. Measured: blocks/s and its projection to the whole history, and the share of the time
 * spent reading, checking and decoding the shards (the source's own clock) against the rest
 * (writing, rollups, the bulk load's finish). The archive is written before anything is timed.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { indexPowArchive } from '../../src/ingest/index-pow.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore } from '../../src/store/store.ts';
import { POW_BLOCK_SECONDS } from '../../src/sources/synthetic/options.ts';
import { DAY_SECONDS } from '../../src/time.ts';
import { archiveBlocks, writeArchive } from '../../test/fakes/qrl-archive/writer.ts';
import { generatePowItems } from '../../test/fakes/qrl-node/world.ts';
import type { BenchServer } from '../cluster.ts';
import { loadAverage, log, round, WORK_DIR } from '../proc.ts';
import { MAINNET_COINBASE_ONLY_SHARE, MAINNET_POW_BLOCKS, MAINNET_POW_SCALE } from './pow-mainnet.ts';

export interface PowArchiveFigures {
  blocks: number;
  transactions: number;
  shards: number;
  archiveBytes: number;
  /** Seconds to generate, encode and write the archive (not timed as the import). */
  prepareSeconds: number;
  import: { seconds: number; blocksPerSecond: number };
  /** Reading, checking and decoding the shards, against the rest of the import. */
  split: { readSeconds: number; readShare: number; writeSeconds: number; writeShare: number };
  projected: { blocks: number; minutes: number };
  loadAverage: { before: number[]; after: number[] };
}

export async function measurePowArchive(server: BenchServer, options: { blocks: number }): Promise<PowArchiveFigures> {
  const before = loadAverage();
  const toHeight = options.blocks - 1;
  log(`pow-archive: writing heights 0-${toHeight} of the mainnet-shaped pow history as a v1 archive`);
  const prepareStarted = performance.now();
  const historyDays = MAINNET_POW_BLOCKS / (DAY_SECONDS / POW_BLOCK_SECONDS);
  const items = await generatePowItems({ days: historyDays, scale: MAINNET_POW_SCALE, coinbaseOnlyShare: MAINNET_COINBASE_ONLY_SHARE, toHeight });
  mkdirSync(WORK_DIR, { recursive: true });
  const dir = mkdtempSync(path.join(WORK_DIR, 'pow-archive-'));
  const database = 'bench_pow_archive';
  try {
    const index = writeArchive(dir, archiveBlocks(items), { shardBlocks: 10_000, runId: 'bench' });
    items.length = 0;
    const prepareSeconds = (performance.now() - prepareStarted) / 1000;
    const archiveBytes = index.shards.reduce((n, s) => n + s.bytes, 0);
    log(`pow-archive: ${index.shards.length} shards, ${round(archiveBytes / 2 ** 20)} MiB (${round(prepareSeconds)} s to write)`);
    await server.dropDatabase(database);
    await server.createDatabase(database);
    const store = createStore(createPostgresDriver(server.urlFor(database), { poolSize: 4, applicationName: 'quarry-bench-pow-archive' }));
    try {
      await migrate(store);
      const started = performance.now();
      const result = await indexPowArchive(store, { archive: dir }, { logger: pino({ level: 'silent' }) });
      const seconds = (performance.now() - started) / 1000;
      const readSeconds = result.read.readMs / 1000;
      const blocksPerSecond = options.blocks / seconds;
      log(`pow-archive: ${Math.round(blocksPerSecond)} blocks/s over ${options.blocks} blocks; reading ${Math.round((100 * readSeconds) / seconds)}% of the time`);
      return {
        blocks: options.blocks,
        transactions: result.transactions,
        shards: index.shards.length,
        archiveBytes,
        prepareSeconds: round(prepareSeconds),
        import: { seconds: round(seconds, 2), blocksPerSecond: Math.round(blocksPerSecond) },
        split: { readSeconds: round(readSeconds, 2), readShare: round(readSeconds / seconds, 3), writeSeconds: round(seconds - readSeconds, 2), writeShare: round(1 - readSeconds / seconds, 3) },
        projected: { blocks: MAINNET_POW_BLOCKS, minutes: round(MAINNET_POW_BLOCKS / blocksPerSecond / 60) },
        loadAverage: { before, after: loadAverage() },
      };
    } finally {
      await store.close();
      await server.dropDatabase(database);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
