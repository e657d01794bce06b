/**
 * The pow-mainnet part (optional): `quarry index pow`'s first sync of a mainnet-shaped pow history
 * (docs/synthetic-data.md, "A mainnet-shaped pow history"), judged by its projection to the whole
 * history. The fake QRL node of test/fakes/qrl-node generates and encodes a slice of that history
 * from genesis before anything is timed, and serves it over gRPC; the node's own serve rate
 * (GetBlockByNumber at the indexer's concurrency, nothing written) is measured before and after
 * the backfill, which runs into an empty database with every rollup (node-backfill.ts). The time
 * split: the pipeline's log (phases, in seconds from the start), the CPU seconds of the node, the
 * indexer, PostgreSQL and the rest of the machine, and the store's time by query label.
 * Target: the whole history in at most an hour, at least 1,220 blocks/s over the slice.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { indexPow } from '../../src/ingest/index-pow.ts';
import { measurePowServeRate } from '../../src/sources/qrl-grpc/serve-rate.ts';
import { MAINNET_POW_GENESIS, POW_BLOCK_SECONDS } from '../../src/sources/synthetic/options.ts';
import type { Store } from '../../src/store/store.ts';
import { DAY_SECONDS } from '../../src/time.ts';
import type { BenchServer } from '../cluster.ts';
import { loadAverage, log, machineBusySeconds, processCpuSeconds, round, WORK_DIR } from '../proc.ts';
import { measureNodeBackfill, type NodeBackfillFigures } from './node-backfill.ts';
import { startFakeNode, type FakeNodeChain } from './pow-node.ts';

/** The history the target is about: mainnet's tip (4,373,562) rounded up. */
export const MAINNET_POW_BLOCKS = 4_400_000;
/** The target: the whole history in an hour, stated as a rate (4.4 M / 3,600 s, rounded down). */
export const MAINNET_POW_TARGET_BLOCKS_PER_SECOND = 1_220;
export const MAINNET_POW_TARGET_MINUTES = 60;
/** Share of blocks with nothing but a coinbase (the reason is in bench/README.md). */
export const MAINNET_COINBASE_ONLY_SHARE = 0.8;
/**
 * Mean non-coinbase transactions per day over the history: at this share, the blocks that carry
 * transactions are as busy (4,000 a day's worth) as the pow-node part's.
 */
export const MAINNET_POW_SCALE = 800;

export interface PowMainnetFigures extends NodeBackfillFigures {
  slice: {
    /** Heights 0 to `toHeight` of a history of `historyBlocks` blocks from mainnet's genesis time. */
    toHeight: number;
    historyBlocks: number;
    share: number;
    genesisTs: number;
    coinbaseOnlyShare: number;
    scale: number;
    /** What the node holds: blocks with only a coinbase, of all its blocks. */
    measuredCoinbaseOnly: number | null;
    /** Seconds the node took to generate and encode the slice (before anything is timed). */
    prepareSeconds: number;
  };
  projected: { blocks: number; seconds: number; minutes: number };
  mainnetTarget: { blocksPerSecond: number; minutes: number; pass: boolean };
  split: {
    /** The pipeline's log lines at info level, in seconds from the start of the backfill. */
    events: { at: number; msg: string; ms?: number }[];
    cpuSeconds: { node: number; indexer: number; postgres: number | null; rest: number };
    /** The store's time by query label, largest first. */
    store: { label: string; ms: number; count: number }[];
  };
  /** 1-minute load averages sampled every 15 s during the backfill: other work on the machine. */
  loadDuringBackfill: { mean: number; max: number; samples: number };
}

export async function measurePowMainnet(server: BenchServer, options: { blocks: number }): Promise<PowMainnetFigures> {
  const before = loadAverage();
  const toHeight = options.blocks - 1;
  const historyDays = MAINNET_POW_BLOCKS / (DAY_SECONDS / POW_BLOCK_SECONDS);
  log(`pow-mainnet: the fake QRL node generates and encodes heights 0-${toHeight} of a ${MAINNET_POW_BLOCKS.toLocaleString('en')}-block mainnet-shaped pow history`);
  const prepareStarted = performance.now();
  const node = await startFakeNode({ days: historyDays, scale: MAINNET_POW_SCALE, coinbaseOnlyShare: MAINNET_COINBASE_ONLY_SHARE, toHeight }, ['--max-old-space-size=8192']);
  const prepareSeconds = (performance.now() - prepareStarted) / 1000;
  log(`pow-mainnet: the node holds ${node.height + 1} blocks (${round(prepareSeconds)} s to generate and encode)`);
  const events: PowMainnetFigures['split']['events'] = [];
  let cpu: PowMainnetFigures['split']['cpuSeconds'] | null = null;
  let storeTimes: PowMainnetFigures['split']['store'] = [];
  const loads: number[] = [];
  try {
    const range = { from: 0, to: node.height };
    const settings = resolveIndexPowSettings({ node: node.address, progress: false }, {});
    const figures = await measureNodeBackfill(
      server,
      {
        database: 'bench_pow_mainnet',
        applicationName: 'quarry-bench-pow-mainnet',
        blocks: node.height + 1,
        serveRate: async () => {
          const rate = (await measurePowServeRate(node.address, range, settings.concurrency)).blocksPerSecond;
          log(`pow-mainnet: the node serves ${Math.round(rate)} blocks/s`);
          return rate;
        },
        index: async (store: Store) => {
          const started = performance.now();
          const at = () => round((performance.now() - started) / 1000, 2);
          const logger = pino({ level: 'info' }, { write: (line: string) => record(events, at(), line) });
          const sampler = setInterval(() => loads.push(loadAverage()[0]), 15_000);
          // The migrations' statements are not the backfill's.
          const earlier = new Map([...store.stats()].map(([label, s]) => [label, { totalMs: s.totalMs, count: s.count }]));
          const start = { machine: machineBusySeconds(), node: processCpuSeconds(node.child.pid!), indexer: process.cpuUsage(), postgres: postgresCpuSeconds(server) };
          log('pow-mainnet: backfilling');
          try {
            return await indexPow(store, settings, { logger });
          } finally {
            clearInterval(sampler);
            const indexerUsage = process.cpuUsage(start.indexer);
            const nodeCpu = processCpuSeconds(node.child.pid!) - start.node;
            const indexer = (indexerUsage.user + indexerUsage.system) / 1e6;
            const pgNow = postgresCpuSeconds(server);
            const postgres = start.postgres !== null && pgNow !== null ? pgNow - start.postgres : null;
            const machine = machineBusySeconds() - start.machine;
            cpu = { node: round(nodeCpu), indexer: round(indexer), postgres: postgres === null ? null : round(postgres), rest: round(machine - nodeCpu - indexer - (postgres ?? 0)) };
            storeTimes = [...store.stats()]
              .map(([label, s]) => ({ label, ms: Math.round(s.totalMs - (earlier.get(label)?.totalMs ?? 0)), count: s.count - (earlier.get(label)?.count ?? 0) }))
              .filter((q) => q.count > 0)
              .sort((a, b) => b.ms - a.ms)
              .slice(0, 15);
          }
        },
      },
      before,
    );
    const chain: FakeNodeChain | null = node.chain;
    if (chain) figures.transactions = chain.transactions;
    const blocksPerSecond = figures.blocks / figures.backfill.seconds;
    const projectedSeconds = MAINNET_POW_BLOCKS / blocksPerSecond;
    log(`pow-mainnet: ${figures.backfill.blocksPerSecond} blocks/s over ${figures.blocks} blocks (the node serves ${figures.serveRate.mean}): 4.4 M blocks in ${round(projectedSeconds / 60)} min`);
    return {
      ...figures,
      slice: {
        toHeight: node.height,
        historyBlocks: MAINNET_POW_BLOCKS,
        share: round((node.height + 1) / MAINNET_POW_BLOCKS, 3),
        genesisTs: MAINNET_POW_GENESIS.getTime() / 1000,
        coinbaseOnlyShare: MAINNET_COINBASE_ONLY_SHARE,
        scale: MAINNET_POW_SCALE,
        measuredCoinbaseOnly: chain ? round(chain.coinbaseOnly / chain.blocks, 3) : null,
        prepareSeconds: round(prepareSeconds),
      },
      projected: { blocks: MAINNET_POW_BLOCKS, seconds: Math.round(projectedSeconds), minutes: round(projectedSeconds / 60) },
      mainnetTarget: { blocksPerSecond: MAINNET_POW_TARGET_BLOCKS_PER_SECOND, minutes: MAINNET_POW_TARGET_MINUTES, pass: blocksPerSecond >= MAINNET_POW_TARGET_BLOCKS_PER_SECOND },
      split: { events, cpuSeconds: cpu ?? { node: 0, indexer: 0, postgres: null, rest: 0 }, store: storeTimes },
      loadDuringBackfill: { mean: loads.length ? round(loads.reduce((a, b) => a + b, 0) / loads.length, 2) : loadAverage()[0], max: loads.length ? Math.max(...loads) : loadAverage()[0], samples: loads.length },
    };
  } finally {
    node.child.kill('SIGTERM');
  }
}

/** Keeps a pino line's message (and its `ms`, where the pipeline logs one) at `at` seconds. */
function record(events: PowMainnetFigures['split']['events'], at: number, line: string): void {
  try {
    const entry = JSON.parse(line) as { msg?: string; ms?: number };
    if (entry.msg) events.push({ at, msg: entry.msg, ...(typeof entry.ms === 'number' ? { ms: entry.ms } : {}) });
  } catch {
    // not a JSON line: nothing to keep
  }
}

/**
 * CPU seconds of the benchmark's local PostgreSQL cluster: the postmaster with the children it has
 * reaped, and the children still running (null for a server the benchmark does not run).
 */
function postgresCpuSeconds(server: BenchServer): number | null {
  if (server.origin !== 'local') return null;
  try {
    const postmaster = Number(readFileSync(path.join(WORK_DIR, 'pg', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    let ticks = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let fields: string[];
      try {
        fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      } catch {
        continue;
      }
      const pid = Number(entry);
      const parent = Number(fields[1]);
      // utime, stime, cutime, cstime: a process and the children it has waited for.
      if (pid === postmaster || parent === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    }
    return ticks / 100;
  } catch {
    return null;
  }
}
