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
import type { BenchServer } from '../cluster.ts';
import { loadAverage, log } from '../proc.ts';
import { measureNodeBackfill, type NodeBackfillFigures } from './node-backfill.ts';

export type PowNodeFigures = NodeBackfillFigures;

const root = path.resolve(import.meta.dirname, '../..');

/** What the fake node holds: its chain's blocks and transactions, and the blocks with nothing but a coinbase. */
export interface FakeNodeChain {
  blocks: number;
  transactions: number;
  coinbaseOnly: number;
}

/**
 * Starts the fake QRL node of test/fakes/qrl-node as a process of its own, serving a generated pow
 * chain (the options of its main.ts: `coinbaseOnlyShare` and `toHeight` for a mainnet-shaped slice).
 */
export async function startFakeNode(
  options: { days: number; scale: number; coinbaseOnlyShare?: number; toHeight?: number },
  nodeFlags: string[] = [],
): Promise<{ child: ChildProcess; address: string; height: number; chain: FakeNodeChain | null }> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', path.join(root, 'test/fakes/qrl-node/main.ts'), JSON.stringify({ seed: 1, ...options })], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  let chain: FakeNodeChain | null = null;
  for await (const line of lines) {
    if (line.startsWith('chain ')) chain = JSON.parse(line.slice(6)) as FakeNodeChain;
    const match = /^listening (\S+) (\d+)$/.exec(line);
    if (match) return { child, address: match[1]!, height: Number(match[2]), chain };
  }
  throw new Error('the fake QRL node exited before listening');
}

export async function measurePowNode(server: BenchServer, options: { days: number; scale: number }): Promise<PowNodeFigures> {
  const before = loadAverage();
  log(`pow-node: generating ${options.days} days of pow at scale ${options.scale} into a fake QRL node`);
  const node = await startFakeNode(options);
  try {
    const range = { from: 0, to: node.height };
    const figures = await measureNodeBackfill(
      server,
      {
        database: 'bench_pow_node',
        applicationName: 'quarry-bench-pow-node',
        blocks: node.height + 1,
        serveRate: async () => (await measurePowServeRate(node.address, range)).blocksPerSecond,
        index: (store) => indexPow(store, resolveIndexPowSettings({ node: node.address, progress: false }, {}), { logger: pino({ level: 'silent' }) }),
      },
      before,
    );
    log(`pow-node: backfill ${figures.backfill.blocksPerSecond} blocks/s, node serves ${figures.serveRate.mean} blocks/s: ${figures.ratio}`);
    return figures;
  } finally {
    node.child.kill('SIGTERM');
  }
}
