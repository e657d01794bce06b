/**
 * The pos source against a real node (Anvil): every canonical block it yields is checked against
 * what the node itself reports, by accounting independent of the source's code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CanonicalBlock, SourceItem } from '../../chain/model.ts';
import { posAddressFromHex, posAddressToHex } from '../../chain/addresses.ts';
import { startAnvil, type Anvil } from '../../../test/support/anvil.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../../../test/fixtures/traffic.ts';
import { foldBalances, foldTokenBalances } from '../../../test/fixtures/ledger.ts';
import { createRpcClient } from './transport.ts';
import { createEvmRpcSource, type EvmRpcSourceOptions } from './source.ts';
import type { EvmNode } from './methods.ts';
import { encodeFunctionData, parseAbi } from 'viem';

const COINBASE = '0x00000000000000000000000000000000c0ffee01';

async function collect(options: EvmRpcSourceOptions, from = 0): Promise<SourceItem[]> {
  const source = createEvmRpcSource(options);
  const items: SourceItem[] = [];
  for await (const item of source.blocks(from)) items.push(item);
  return items;
}

const blocksOf = (items: SourceItem[]) => items.flatMap((i) => (i.kind === 'block' ? [i.block] : []));

describe('evm-rpc source against Anvil', () => {
  let anvil: Anvil;
  let node: EvmNode;
  let traffic: Traffic;
  let sent = 0;
  let items: SourceItem[];
  let blocks: CanonicalBlock[];
  let head: number;

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    await anvil.rpc('anvil_setCoinbase', [COINBASE]);
    traffic = await setUpTraffic(anvil, { accounts: 30 });
    sent = traffic.transactions + (await driveTraffic(anvil, traffic, { blocks: 12, perBlock: 15 }));
    node = { client: createRpcClient({ url: anvil.url }), namespace: 'eth' };
    head = Number(await anvil.rpc<string>('eth_blockNumber'));
    items = await collect({ node });
    blocks = blocksOf(items);
  });

  after(async () => {
    node?.client.close();
    await anvil?.stop();
  });

  it('yields every block from 0 to the head in order, then caught-up, and stops', () => {
    assert.equal(blocks.length, head + 1);
    blocks.forEach((block, i) => {
      assert.equal(block.height, i);
      if (i > 0) assert.equal(block.parentHash, blocks[i - 1]!.hash);
      assert.deepEqual(block.deadLetters, []);
    });
    assert.deepEqual(items.at(-1), { kind: 'caught-up' });
  });

  it('has every transaction the node mined', async () => {
    const txs = blocks.flatMap((b) => b.transactions);
    assert.equal(txs.length, sent);
    // Per sender: the count equals the node's nonce.
    const bySender = new Map<string, number>();
    for (const tx of txs) bySender.set(tx.from, (bySender.get(tx.from) ?? 0) + 1);
    for (const [sender, count] of bySender) {
      assert.equal(Number(await anvil.rpc<string>('eth_getTransactionCount', [posAddressToHex(sender), 'latest'])), count, sender);
    }
  });

  it('records genesis balances of the funded accounts', async () => {
    const dev = await anvil.rpc<string[]>('eth_accounts');
    const allocations = blocks[0]!.allocations;
    assert.equal(allocations.length, dev.length);
    for (const a of allocations) assert.equal(a.amount, 10_000n * 10n ** 18n);
  });

  it('gives every address the balance the node reports', async () => {
    const expected = foldBalances(blocks);
    assert.ok(expected.size > 40);
    for (const [address, balance] of expected) {
      const onNode = BigInt(await anvil.rpc<string>('eth_getBalance', [posAddressToHex(address), 'latest']));
      assert.equal(balance, onNode, `balance of ${address}`);
    }
  });

  it('gives every holder the token balance balanceOf reports', async () => {
    const expected = foldTokenBalances(blocks);
    const abi = parseAbi(['function balanceOf(address) view returns (uint256)']);
    let checked = 0;
    for (const [key, balance] of expected) {
      const [contract, holder] = key.split('/') as [string, string];
      if (holder === 'Q' + '0'.repeat(40)) continue; // mints come from, burns go to the zero address
      const data = encodeFunctionData({ abi, functionName: 'balanceOf', args: [posAddressToHex(holder)] });
      const onNode = BigInt(await anvil.rpc<string>('eth_call', [{ to: posAddressToHex(contract), data }, 'latest']));
      assert.equal(balance, onNode, `${key}`);
      checked++;
    }
    assert.ok(checked > 30);
  });

  it('burns Σ base fee × gas used, and pays the rest of each fee to the fee recipient', async () => {
    let burned = 0n;
    let nodeBurned = 0n;
    for (const block of blocks) {
      burned += block.transactions.reduce((sum, tx) => sum + tx.burned, 0n);
      const raw = await anvil.rpc<{ gasUsed: string; baseFeePerGas: string; miner: string }>('eth_getBlockByNumber', [`0x${block.height.toString(16)}`, false]);
      nodeBurned += BigInt(raw.gasUsed) * BigInt(raw.baseFeePerGas);
      if (block.height > 0) assert.equal(block.miner, posAddressFromHex(COINBASE));
    }
    assert.ok(burned > 0n);
    assert.equal(burned, nodeBurned);
  });

  it('finds the same internal transfers with callTracer and with trace_block', async () => {
    const parity = blocksOf(await collect({ node, traces: 'parity' }));
    const internal = (list: CanonicalBlock[]) => list.flatMap((b) => b.transactions.flatMap((tx) => tx.internal.map((i) => ({ tx: tx.hash, ...i }))));
    const fromDebug = internal(blocks);
    assert.ok(fromDebug.length > 20, `only ${fromDebug.length} internal transfers`);
    assert.ok(fromDebug.some((i) => i.traceAddress.includes('.')), 'nested frames');
    assert.ok(fromDebug.some((i) => i.callType === 'create' || i.callType === 'create2'), 'creations with value');
    assert.deepEqual(internal(parity), fromDebug);
  });

  it('reads the same blocks with receipts fetched per transaction', async () => {
    const perTx = blocksOf(await collect({ node, receipts: 'tx' }));
    assert.deepEqual(perTx, blocks);
  });

  it('types transactions: create, call (input or code ran), transfer', () => {
    const txs = blocks.flatMap((b) => b.transactions);
    const vault = posAddressFromHex(traffic.contracts.vault);
    for (const tx of txs) {
      if (tx.to === null) assert.equal(tx.type, 'contract_create');
      else if (tx.input !== '0x') assert.equal(tx.type, 'contract_call');
      else if (tx.to === vault) assert.equal(tx.type, 'contract_call');
      else assert.equal(tx.type, 'transfer', tx.hash);
      assert.equal(tx.typeEvm, 2);
      assert.equal(tx.fee, BigInt(tx.gasUsed!) * tx.effectiveGasPrice!);
    }
    assert.ok(txs.some((tx) => tx.status === 0), 'some reverted');
    assert.ok(txs.some((tx) => tx.to === vault && tx.input === '0x'));
    assert.ok(txs.filter((tx) => tx.type === 'contract_create').every((tx) => tx.status === 0 || tx.contractAddress !== null));
  });

  it('sends token metadata once, in the block of the first transfer, tolerating odd tokens', () => {
    const tokens = blocks.flatMap((b) => b.tokens.map((t) => ({ height: b.height, ...t })));
    assert.equal(tokens.length, 3);
    const byContract = new Map(tokens.map((t) => [t.contract, t]));
    const token = byContract.get(posAddressFromHex(traffic.contracts.token))!;
    assert.deepEqual([token.name, token.symbol, token.decimals], ['Quarry Test Token', 'QTT', 18]);
    assert.ok(token.creator !== null && token.createdTx !== null);
    const bytes32 = byContract.get(posAddressFromHex(traffic.contracts.bytes32Token))!;
    assert.deepEqual([bytes32.name, bytes32.symbol, bytes32.decimals], ['Maker-ish', 'MKRI', 18]);
    const bare = byContract.get(posAddressFromHex(traffic.contracts.bareToken))!;
    assert.deepEqual([bare.name, bare.symbol, bare.decimals], [null, null, null]);
  });

  it('starts where it is told, and serves hashAt and blockAt', async () => {
    const source = createEvmRpcSource({ node });
    const from = head - 2;
    const got: SourceItem[] = [];
    for await (const item of source.blocks(from)) got.push(item);
    assert.deepEqual(blocksOf(got).map((b) => b.height), [from, from + 1, from + 2]);
    assert.equal(await source.hashAt!(5), blocks[5]!.hash);
    assert.equal(await source.hashAt!(head + 100), null);
    const again = await source.blockAt!(7);
    assert.equal(again?.kind, 'block');
    assert.equal(again?.kind === 'block' && again.block.hash, blocks[7]!.hash);
  });
});
