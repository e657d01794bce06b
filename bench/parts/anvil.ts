/**
 * The anvil part (optional): the pos backfill (indexPos) from a local Anvil node filled with mixed
 * traffic, against the node's own serve rate (measureNodeServeRate: the same calls per block, read
 * as fast as a client can, nothing decoded). Target: at least half the serve rate.
 */
import { pino } from 'pino';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { measureNodeServeRate } from '../../src/sources/evm-rpc/serve-rate.ts';
import { callData, compileContracts, startAnvil, type Anvil } from '../../test/support/anvil.ts';
import { setUpTraffic, type Traffic } from '../../test/fixtures/traffic.ts';
import type { BenchServer } from '../cluster.ts';
import { loadAverage, log, round } from '../proc.ts';
import { measureNodeBackfill, type NodeBackfillFigures } from './node-backfill.ts';

export interface AnvilFigures extends NodeBackfillFigures {
  fillSeconds: number;
}

export async function measureAnvil(server: BenchServer, options: { blocks: number; perBlock: number }): Promise<AnvilFigures> {
  const before = loadAverage();
  const anvil = await startAnvil({ accounts: 10 });
  try {
    log(`anvil: filling the node with ${options.blocks} blocks of ${options.perBlock} transactions`);
    const started = performance.now();
    const traffic = await setUpTraffic(anvil, { accounts: 40 });
    const sent = await fill(anvil, traffic, options.blocks, options.perBlock);
    const fillSeconds = (performance.now() - started) / 1000;
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));

    const measured = await measureNodeBackfill(
      server,
      {
        database: 'bench_anvil',
        applicationName: 'quarry-bench-anvil',
        blocks: head + 1,
        serveRate: async () => (await measureNodeServeRate(anvil.url, { from: 0, to: head })).blocksPerSecond,
        index: (store) => indexPos(store, resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {}), { logger: pino({ level: 'silent' }) }),
      },
      before,
    );
    // What the node holds: the traffic set up and sent, not only what the backfill counted.
    const figures: AnvilFigures = { ...measured, transactions: sent + traffic.transactions, fillSeconds: round(fillSeconds) };
    log(`anvil: backfill ${figures.backfill.blocksPerSecond} blocks/s, node serves ${figures.serveRate.mean} blocks/s: ${figures.ratio}`);
    return figures;
  } finally {
    await anvil.stop();
  }
}

/** Mines `blocks` blocks of `perBlock` transactions each, sent in one JSON-RPC batch per block. */
async function fill(anvil: Anvil, traffic: Traffic, blocks: number, perBlock: number): Promise<number> {
  const c = compileContracts();
  const { accounts, contracts } = traffic;
  const nonces = new Map<string, number>();
  let id = 1_000_000;
  let sent = 0;
  await anvil.rpc('evm_setAutomine', [false]);
  try {
    for (let b = 0; b < blocks; b++) {
      const body = [];
      for (let i = 0; i < perBlock; i++) {
        const from = accounts[(b * perBlock + i) % accounts.length]!;
        const nonce = nonces.get(from) ?? Number(await anvil.rpc<string>('eth_getTransactionCount', [from, 'latest']));
        nonces.set(from, nonce + 1);
        const to = accounts[(b * 7 + i * 3) % accounts.length]!;
        const tx =
          i % 3 === 0
            ? { from, to, value: '0x1000', gas: '0x5208' }
            : i % 3 === 1
              ? { from, to: contracts.token, data: callData(c.Token!, 'transfer', [to, 5n]), gas: '0x186a0' }
              : { from, to: contracts.splitter, value: '0x3000', data: callData(c.Splitter!, 'split', [[to, from, accounts[0]]]), gas: '0x30d40' };
        body.push({ jsonrpc: '2.0', id: id++, method: 'eth_sendTransaction', params: [{ ...tx, nonce: `0x${nonce.toString(16)}`, maxFeePerGas: '0xba43b7400', maxPriorityFeePerGas: '0x1' }] });
      }
      const response = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answers = (await response.json()) as { error?: { message: string } }[];
      const failed = answers.find((a) => a.error);
      if (failed) throw new Error(`anvil refused a transaction: ${failed.error!.message}`);
      sent += perBlock;
      await anvil.rpc('evm_mine');
    }
  } finally {
    await anvil.rpc('evm_setAutomine', [true]);
  }
  return sent;
}
