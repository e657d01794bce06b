/**
 * The soak's fake nodes, making blocks many times faster than the real networks, with a reorg
 * every few hundred blocks:
 * - pow: the fake QRL node of test/fakes/qrl-node as a process of its own (live.ts), serving the
 *   generator's pow chain (60 s blocks) and growing it at a set rate, the generator's reorgs in it;
 * - pos: Anvil behind the go-qrl fake (test/fakes/go-qrl: go-qrl's `qrl_` JSON-RPC and `Q`
 *   addresses), its clock 12 s a block (`anvil_setBlockTimestampInterval`), mined here with the
 *   test traffic (test/fixtures/traffic.ts); a reorg is a branch mined, reverted
 *   (`evm_snapshot`/`evm_revert`) and replaced by a longer one, as in pos-follow-reorg.ts.
 * Both report their head without being asked, so the lag samples cost the nodes nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startGoQrl, type GoQrlNode } from '../../test/fakes/go-qrl/server.ts';
import type { LiveNodeOptions } from '../../test/fakes/qrl-node/live.ts';
import { startAnvil, type Anvil } from '../../test/support/anvil.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../../test/fixtures/traffic.ts';
import { ROOT, sleep } from '../proc.ts';

export interface Head {
  height: number;
  hash: string;
}

export interface PowNode {
  /** The node's own gRPC address (the indexer goes through a proxy). */
  address: string;
  pid: number;
  head: Head;
  grow(blocksPerSecond: number): void;
  /** Stops the growth for good: the final chain. */
  freeze(): Promise<Head>;
  stop(): Promise<void>;
}

export async function startPowNode(options: LiveNodeOptions): Promise<PowNode> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'test/fakes/qrl-node/live.ts', JSON.stringify(options)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  let frozen: ((head: Head) => void) | null = null;
  const node: PowNode = {
    address: '',
    pid: child.pid!,
    head: { height: -1, hash: '' },
    grow: (rate) => child.stdin!.write(`grow ${rate}\n`),
    freeze: () =>
      new Promise<Head>((resolve) => {
        frozen = resolve;
        child.stdin!.write('freeze\n');
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the live pow node exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [what, a, b] = line.split(' ');
      if (what === 'listening') {
        node.address = a!;
        node.head = { height: Number(b), hash: '' };
        resolve();
      } else if (what === 'head' || what === 'frozen') {
        node.head = { height: Number(a), hash: b! };
        if (what === 'frozen') frozen?.(node.head);
      } else if (what === 'exhausted') {
        console.error('the live pow node ran out of generated history: give it more days');
      }
    });
  });
  return node;
}

export interface PosNode {
  anvil: Anvil;
  /** The go-qrl fake in front of Anvil (the indexer goes through a proxy). */
  goQrl: GoQrlNode;
  traffic: Traffic;
  head: Head;
  reorgs: number;
  grow(blocksPerSecond: number): void;
  freeze(): Promise<Head>;
  stop(): Promise<void>;
}

/** Seconds between pos blocks on the node's clock. */
export const POS_BLOCK_SECONDS = 12;

export async function startPosNode(options: { genesisTs: number; reorgEvery: number; perBlock: number }): Promise<PosNode> {
  const anvil = await startAnvil({ accounts: 10, extraArgs: ['--timestamp', String(options.genesisTs)] });
  await anvil.rpc('anvil_setBlockTimestampInterval', [POS_BLOCK_SECONDS]);
  // As an operator starts it for Quarry: `gqrl --http --http.api qrl,debug,net,web3`.
  const goQrl = await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'debug', 'net', 'web3'] });
  const traffic = await setUpTraffic(anvil, { accounts: 40 });
  const latest = async (): Promise<Head> => {
    const block = await anvil.rpc<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
    return { height: Number(block.number), hash: block.hash };
  };
  let seed = 1000;
  let stopped = false;
  let loop: Promise<void> | undefined;
  const node: PosNode = {
    anvil,
    goQrl,
    traffic,
    head: await latest(),
    reorgs: 0,
    grow(rate) {
      const interval = 1000 / rate;
      let nextReorg = Math.round(options.reorgEvery * (0.5 + Math.random()));
      loop = (async () => {
        let next = performance.now();
        while (!stopped) {
          next += interval;
          if (--nextReorg <= 0) {
            nextReorg = Math.round(options.reorgEvery * (0.5 + Math.random()));
            // A branch of 1-3 blocks that the indexer follows, then a longer one from the same parent.
            const depth = 1 + Math.floor(Math.random() * 3);
            const snapshot = await anvil.rpc<string>('evm_snapshot');
            for (let i = 0; i < depth; i++) {
              await driveTraffic(anvil, traffic, { blocks: 1, perBlock: options.perBlock, seed: seed++ });
              node.head = await latest();
              await sleep(Math.max(0, next - performance.now()));
              next += interval;
            }
            await anvil.rpc('evm_revert', [snapshot]);
            node.reorgs++;
            for (let i = 0; i <= depth; i++) {
              await driveTraffic(anvil, traffic, { blocks: 1, perBlock: options.perBlock, seed: seed++ });
              node.head = await latest();
              if (i < depth) {
                await sleep(Math.max(0, next - performance.now()));
                next += interval;
              }
            }
          } else {
            await driveTraffic(anvil, traffic, { blocks: 1, perBlock: options.perBlock, seed: seed++ });
            node.head = await latest();
          }
          // Late (a busy machine): the next block at once, not a burst to make up for it.
          next = Math.max(next, performance.now() - interval);
          await sleep(Math.max(0, next - performance.now()));
        }
      })();
    },
    async freeze() {
      stopped = true;
      await loop;
      node.head = await latest();
      return node.head;
    },
    async stop() {
      stopped = true;
      await loop?.catch(() => undefined);
      await goQrl.stop();
      await anvil.stop();
    },
  };
  return node;
}
