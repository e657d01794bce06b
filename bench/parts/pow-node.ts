/**
 * The pow-node part (optional): the pow backfill (indexPow) from the fake QRL node of
 * test/fakes/qrl-node, run as a process of its own serving a generated chain in the node's real
 * messages, against that node's own serve rate (measurePowServeRate: GetBlockByNumber for every
 * block, as fast as a client can, nothing decoded). Target: at least half the serve rate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { indexPow } from '../../src/ingest/index-pow.ts';
import { measurePowServeRate } from '../../src/sources/qrl-grpc/serve-rate.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore } from '../../src/store/store.ts';
import type { BenchServer } from '../cluster.ts';
import { loadAverage, log, round } from '../proc.ts';

export interface PowNodeFigures {
  blocks: number;
  transactions: number;
  serveRate: { before: number; after: number; mean: number };
  backfill: { seconds: number; blocksPerSecond: number; transactions: number };
  ratio: number;
  target: number;
  pass: boolean;
  loadAverage: { before: number[]; after: number[] };
}

const DATABASE = 'bench_pow_node';
const root = path.resolve(import.meta.dirname, '../..');

async function startFakeNode(options: { days: number; scale: number }): Promise<{ child: ChildProcess; address: string; height: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/fakes/qrl-node/main.ts'), JSON.stringify({ seed: 1, ...options })], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const match = /^listening (\S+) (\d+)$/.exec(line);
    if (match) return { child, address: match[1]!, height: Number(match[2]) };
  }
  throw new Error('the fake QRL node exited before listening');
}

export async function measurePowNode(server: BenchServer, options: { days: number; scale: number }): Promise<PowNodeFigures> {
  const before = loadAverage();
  log(`pow-node: generating ${options.days} days of pow at scale ${options.scale} into a fake QRL node`);
  const node = await startFakeNode(options);
  try {
    const range = { from: 0, to: node.height };
    const serveBefore = await measurePowServeRate(node.address, range);
    await server.dropDatabase(DATABASE);
    await server.createDatabase(DATABASE);
    const store = createStore(createPostgresDriver(server.urlFor(DATABASE), { poolSize: 4, applicationName: 'quarry-bench-pow-node' }));
    let result;
    let seconds;
    try {
      await migrate(store);
      const settings = resolveIndexPowSettings({ node: node.address, progress: false }, {});
      const started = performance.now();
      result = await indexPow(store, settings, { logger: pino({ level: 'silent' }) });
      seconds = (performance.now() - started) / 1000;
    } finally {
      await store.close();
    }
    const serveAfter = await measurePowServeRate(node.address, range);
    await server.dropDatabase(DATABASE);
    const mean = (serveBefore.blocksPerSecond + serveAfter.blocksPerSecond) / 2;
    const blocksPerSecond = (node.height + 1) / seconds;
    const figures: PowNodeFigures = {
      blocks: node.height + 1,
      transactions: result.transactions,
      serveRate: { before: Math.round(serveBefore.blocksPerSecond), after: Math.round(serveAfter.blocksPerSecond), mean: Math.round(mean) },
      backfill: { seconds: round(seconds, 2), blocksPerSecond: Math.round(blocksPerSecond), transactions: result.transactions },
      ratio: round(blocksPerSecond / mean, 2),
      target: 0.5,
      pass: blocksPerSecond / mean >= 0.5,
      loadAverage: { before, after: loadAverage() },
    };
    log(`pow-node: backfill ${figures.backfill.blocksPerSecond} blocks/s, node serves ${figures.serveRate.mean} blocks/s: ${figures.ratio}`);
    return figures;
  } finally {
    node.child.kill('SIGTERM');
  }
}
