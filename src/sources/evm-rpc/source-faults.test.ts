/**
 * The source against a scripted node: a malformed part of a block (header, receipt, trace) makes
 * the block undecodable (the pipeline fetches it again), missing methods fall back, and nothing
 * crashes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceItem } from '../../chain/model.ts';
import { errorFromRpc } from './errors.ts';
import { createEvmRpcSource } from './source.ts';
import type { RpcClient } from './transport.ts';

const H = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const A = '0x' + 'aa'.repeat(20);
const B = '0x' + 'bb'.repeat(20);

function chain(length: number) {
  return Array.from({ length }, (_, n) => ({
    number: `0x${n.toString(16)}`,
    hash: H(1000 + n),
    parentHash: n === 0 ? H(0) : H(999 + n),
    timestamp: `0x${(1_700_000_000 + n * 12).toString(16)}`,
    size: '0x100',
    miner: B,
    gasUsed: '0x5208',
    gasLimit: '0x1c9c380',
    baseFeePerGas: '0x7',
    withdrawals: [],
    transactions:
      n === 0
        ? []
        : [{ hash: H(5000 + n), transactionIndex: '0x0', from: A, to: B, value: '0x1', nonce: `0x${(n - 1).toString(16)}`, gas: '0x5208', input: '0x', type: '0x2', maxFeePerGas: '0x10', maxPriorityFeePerGas: '0x1', gasPrice: '0x8' }],
  }));
}

function receiptOf(block: any) {
  return block.transactions.map((tx: any) => ({ transactionHash: tx.hash, transactionIndex: '0x0', blockHash: block.hash, status: '0x1', gasUsed: '0x5208', effectiveGasPrice: '0x8', contractAddress: null, logs: [] }));
}

/** A client answering from `blocks`; `methods` overrides or removes methods. */
function scriptedNode(blocks: any[], methods: Record<string, ((params: any[]) => unknown) | 'missing'> = {}): RpcClient {
  const byTag = (tag: string) => (tag === 'latest' ? blocks.at(-1) : blocks[Number(tag)]) ?? null;
  const defaults: Record<string, (params: any[]) => unknown> = {
    eth_getBlockByNumber: ([tag]) => byTag(tag),
    eth_getBlockReceipts: ([tag]) => (byTag(tag) ? receiptOf(byTag(tag)) : null),
    eth_getTransactionReceipt: ([hash]) => blocks.flatMap((b) => receiptOf(b)).find((r: any) => r.transactionHash === hash) ?? null,
    debug_traceBlockByNumber: ([tag]) => byTag(tag)?.transactions.map((tx: any) => ({ txHash: tx.hash, result: { type: 'CALL', from: tx.from, to: tx.to, value: tx.value } })),
    eth_getCode: () => '0x',
    eth_accounts: () => [],
  };
  return {
    url: 'scripted',
    async request(method, params = []) {
      const handler = methods[method] ?? defaults[method];
      if (handler === undefined || handler === 'missing') throw errorFromRpc(method, { code: -32601, message: 'Method not found' });
      return handler([...params]);
    },
    stats: () => ({ httpRequests: 0, calls: 0, retries: 0, failures: 0, batching: true }),
    close: () => undefined,
  };
}

async function collect(client: RpcClient, options: Record<string, unknown> = {}): Promise<SourceItem[]> {
  const source = createEvmRpcSource({ node: { client, namespace: 'eth' }, ...options });
  const items: SourceItem[] = [];
  for await (const item of source.blocks(0)) items.push(item);
  return items;
}

describe('evm-rpc source with a misbehaving node', () => {
  it('turns a block it cannot decode into an undecodable item and goes on', async () => {
    const blocks = chain(4);
    blocks[2] = { ...blocks[2]!, hash: 'not a hash' };
    const items = await collect(scriptedNode(blocks));
    assert.deepEqual(items.map((i) => i.kind), ['block', 'block', 'undecodable', 'block', 'caught-up']);
    const bad = items[2]!;
    assert.ok(bad.kind === 'undecodable' && bad.height === 2 && /block.hash/.test(bad.error));
  });

  it('turns a block with a malformed receipt or trace into an undecodable item naming the field', async () => {
    const blocks = chain(4);
    const client = scriptedNode(blocks, {
      eth_getBlockReceipts: ([tag]) => receiptOf(blocks[Number(tag)]).map((r: any) => (Number(tag) === 1 ? { ...r, gasUsed: -1 } : Number(tag) === 3 ? { ...r, status: undefined } : r)),
      debug_traceBlockByNumber: ([tag]) => blocks[Number(tag)]!.transactions.map((tx: any) => ({ txHash: tx.hash, result: Number(tag) === 2 ? { type: 7 } : { type: 'CALL', from: A, to: B } })),
    });
    const items = await collect(client);
    assert.deepEqual(items.map((i) => i.kind), ['block', 'undecodable', 'undecodable', 'undecodable', 'caught-up']);
    const errors = items.map((i) => (i.kind === 'undecodable' ? i.error : null));
    assert.match(errors[1]!, /receipts\[0\]\.gasUsed/);
    assert.match(errors[2]!, /type/);
    assert.match(errors[3]!, /receipts\[0\]\.status: missing/);
  });

  it('falls back to per-transaction receipts and to trace_block, and warns when there are no traces', async () => {
    const blocks = chain(3);
    const warnings: string[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(String(args.at(-1))), info: () => undefined } as any;
    const source = createEvmRpcSource({ node: { client: scriptedNode(blocks, { eth_getBlockReceipts: 'missing', debug_traceBlockByNumber: 'missing', trace_block: 'missing' }), namespace: 'eth' }, logger });
    const items: SourceItem[] = [];
    for await (const item of source.blocks(0)) items.push(item);
    assert.equal(items.filter((i) => i.kind === 'block').length, 3);
    assert.deepEqual(source.capabilities(), { receipts: 'tx', traces: 'none' });
    assert.equal(warnings.filter((w) => /neither debug_traceBlockByNumber nor trace_block/.test(w)).length, 1);
    const last = items[2]!;
    assert.ok(last.kind === 'block' && last.block.transactions[0]!.fee === 21_000n * 8n && last.block.deadLetters.length === 0);
  });

  it('re-reads a block whose receipts belong to another block (a reorg between reads)', async () => {
    const blocks = chain(3);
    let stale = true;
    const client = scriptedNode(blocks, {
      eth_getBlockReceipts: ([tag]) => {
        const receipts = receiptOf(blocks[Number(tag)]);
        if (Number(tag) === 2 && stale) {
          stale = false;
          return receipts.map((r: any) => ({ ...r, blockHash: H(4242) }));
        }
        return receipts;
      },
    });
    const items = await collect(client);
    assert.equal(items.filter((i) => i.kind === 'block').length, 3);
    assert.equal(stale, false);
  });
});
