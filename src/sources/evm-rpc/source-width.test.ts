/**
 * The source against a scripted 64-byte node, shaped as the go-qrl fork with go-qrllib's 64-byte
 * addresses answers (rgeraldes24/go-qrl 7f427122: `Q` + 128 hex in QIP-55 mixed case, 64-byte log
 * topics holding indexed addresses whole, 64-byte ABI words, `qrl_` methods): the width is read
 * from the genesis block, every address comes out in the 64-byte canonical form, a token Transfer
 * and the token's metadata decode, and a 20-byte address in a later block makes it undecodable.
 * Addresses are go-qrllib's checksum parity vectors (wallet/common/address_test.go).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceItem } from '../../chain/model.ts';
import { errorFromRpc } from './errors.ts';
import { detectAddressWidth } from './methods.ts';
import { createEvmRpcSource } from './source.ts';
import type { RpcClient } from './transport.ts';

const H = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const A = ['Qd5812F6Cf4a0f645aa620cd57319a0Ed649dd8f5519A9dde7770ae5b0E49e547985f35eB972A2a07041561aa39c65A3991478f9B1e6749e05277dcf58A9A8B72', 'Qd5812f6cf4a0f645aa620cd57319a0ed649dd8f5519a9dde7770ae5b0e49e547985f35eb972a2a07041561aa39c65a3991478f9b1e6749e05277dcf58a9a8b72'] as const;
const B = ['QBe95a82D87a6CB9c7Ff4C64e0C15BB1DFF20b1d77E6B571B28Ad4736f2a2A3E5857E8c225D6D61399B15BEeF3B196936E490ed6E234374C4887CBBe86C13b1BA', 'Qbe95a82d87a6cb9c7ff4c64e0c15bb1dff20b1d77e6b571b28ad4736f2a2a3e5857e8c225d6d61399b15beef3b196936e490ed6e234374c4887cbbe86c13b1ba'] as const;
const T = ['Q31F654037D4d7BCE04E9522e4d346ab47a90686ef20A6c19916E68D3c77950f54bABB7725aD48A3201c0aCb74271E790730f9f39f9ce2e9Ba1BE9E41a763cAf9', 'Q31f654037d4d7bce04e9522e4d346ab47a90686ef20a6c19916e68d3c77950f54babb7725ad48a3201c0acb74271e790730f9f39f9ce2e9ba1be9e41a763caf9'] as const;
const ZERO64 = 'Q' + '0'.repeat(128);
/** keccak256("Transfer(address,address,uint256)") left-aligned in a 64-byte topic (go-qrl fork `common.HashToLogTopic`). */
const TRANSFER64 = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' + '0'.repeat(64);
const word64 = (n: bigint) => '0x' + n.toString(16).padStart(128, '0');
const topicOf = (address: string) => '0x' + address.slice(1).toLowerCase();

function chain() {
  return [0, 1, 2].map((n) => ({
    number: `0x${n.toString(16)}`,
    hash: H(1000 + n),
    parentHash: n === 0 ? H(0) : H(999 + n),
    timestamp: `0x${(1_700_000_000 + n * 60).toString(16)}`,
    size: '0x100',
    miner: n === 0 ? ZERO64 : B[0],
    gasUsed: '0x5208',
    gasLimit: '0x1c9c380',
    baseFeePerGas: '0x7',
    withdrawals: n === 0 ? [] : [{ index: `0x${n.toString(16)}`, validatorIndex: '0x1', address: A[0], amount: '0x10' }],
    transactions: n === 0 ? [] : [{ hash: H(5000 + n), transactionIndex: '0x0', from: A[0], to: T[0], value: '0x1', nonce: `0x${(n - 1).toString(16)}`, gas: '0x10000', input: '0xa9059cbb', type: '0x2', maxFeePerGas: '0x10', maxPriorityFeePerGas: '0x1', gasPrice: '0x8' }],
  }));
}

function receiptsOf(block: ReturnType<typeof chain>[number]) {
  return block.transactions.map((tx) => ({
    transactionHash: tx.hash, transactionIndex: '0x0', blockHash: block.hash, status: '0x1', gasUsed: '0x9000', effectiveGasPrice: '0x8', contractAddress: null,
    logs: [{ address: T[0], topics: [TRANSFER64, topicOf(A[0]), topicOf(B[0])], data: word64(250n), logIndex: '0x0', removed: false }],
  }));
}

/** VM64 `string` return data: an offset word, a length word, the bytes padded to 64. */
const vm64String = (text: string) => word64(64n) + word64(BigInt(Buffer.byteLength(text))).slice(2) + Buffer.from(text).toString('hex').padEnd(128, '0');

function qrlNode(blocks: ReturnType<typeof chain>): RpcClient {
  const byTag = (tag: string) => (tag === 'latest' ? blocks.at(-1) : blocks[Number(tag)]) ?? null;
  const methods: Record<string, (params: any[]) => unknown> = {
    qrl_getBlockByNumber: ([tag]) => byTag(tag),
    qrl_getBlockReceipts: ([tag]) => (byTag(tag) ? receiptsOf(byTag(tag)!) : null),
    debug_traceBlockByNumber: ([tag]) => byTag(tag)?.transactions.map((tx) => ({ txHash: tx.hash, result: { type: 'CALL', from: tx.from, to: tx.to, value: tx.value } })),
    qrl_getCode: () => '0x60',
    qrl_accounts: () => [],
    qrl_call: ([{ to, data }]) => {
      // go-qrl takes parameters with the `Q` prefix at full width.
      assert.match(to, /^Q[0-9a-f]{128}$/);
      return data === '0x06fdde03' ? vm64String('Wide Token') : data === '0x95d89b41' ? vm64String('WIDE') : word64(18n);
    },
  };
  return {
    url: 'scripted-qrl-64',
    async request(method, params = []) {
      const handler = methods[method];
      if (handler === undefined) throw errorFromRpc(method, { code: -32601, message: 'Method not found' });
      return handler([...params]);
    },
    stats: () => ({ httpRequests: 0, calls: 0, retries: 0, failures: 0, batching: true }),
    close: () => undefined,
  };
}

async function collect(client: RpcClient): Promise<SourceItem[]> {
  const node = { client, namespace: 'qrl' as const };
  const source = createEvmRpcSource({ node: { ...node, addressBytes: await detectAddressWidth(node) } });
  const items: SourceItem[] = [];
  for await (const item of source.blocks(0)) items.push(item);
  return items;
}

describe('evm-rpc source with a 64-byte node', () => {
  it('reads the width from the genesis block', async () => {
    assert.equal(await detectAddressWidth({ client: qrlNode(chain()), namespace: 'qrl' }), 64);
  });

  it('yields 64-byte canonical addresses everywhere, the token transfer and the token', async () => {
    const items = await collect(qrlNode(chain()));
    assert.deepEqual(items.map((i) => i.kind), ['block', 'block', 'block', 'caught-up']);
    const block = items[1]!.kind === 'block' ? items[1]!.block : assert.fail('block 1');
    const tx = block.transactions[0]!;
    assert.deepEqual([block.miner, tx.from, tx.to, block.withdrawals[0]!.address], [B[1], A[1], T[1], A[1]]);
    assert.deepEqual(tx.tokenTransfers, [{ logIndex: 0, contract: T[1], from: A[1], to: B[1], amount: 250n }]);
    assert.deepEqual(block.tokens.map((t) => [t.contract, t.name, t.symbol, t.decimals]), [[T[1], 'Wide Token', 'WIDE', 18]]);
    const genesis = items[0]!.kind === 'block' ? items[0]!.block : assert.fail('block 0');
    assert.equal(genesis.miner, ZERO64);
  });

  it('makes a block with a 20-byte address undecodable, naming the field', async () => {
    const blocks = chain();
    blocks[2] = { ...blocks[2]!, miner: '0x' + 'bb'.repeat(20) };
    const items = await collect(qrlNode(blocks));
    assert.deepEqual(items.map((i) => i.kind), ['block', 'block', 'undecodable', 'caught-up']);
    const bad = items[2]!;
    assert.ok(bad.kind === 'undecodable' && /block\.miner: expected a 64-byte address/.test(bad.error), JSON.stringify(bad.kind === 'undecodable' && bad.error));
  });
});
