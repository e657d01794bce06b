/**
 * The go-qrl fake itself (./server.ts), against a real Anvil: the modules it serves, batches, the
 * errors go-qrl answers, and the 64-byte address mode mapping every address both ways.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { detectNamespace } from '../../../src/sources/evm-rpc/methods.ts';
import { createRpcClient } from '../../../src/sources/evm-rpc/transport.ts';
import { keccak256, toHex } from 'viem';
import { callData, compileContracts, deploy, sendTx, startAnvil, waitForReceipt, type Anvil } from '../../support/anvil.ts';
import { startGoQrl, type GoQrlNode } from './server.ts';
import { qip55 } from './shapes.ts';

describe('go-qrl fake', () => {
  let anvil: Anvil;
  let accounts: string[];
  const nodes: GoQrlNode[] = [];
  const start = async (options: Omit<Parameters<typeof startGoQrl>[0], 'upstream'>) => {
    const node = await startGoQrl({ upstream: anvil.url, ...options });
    nodes.push(node);
    return node;
  };

  before(async () => {
    anvil = await startAnvil({ accounts: 3 });
    accounts = await anvil.rpc<string[]>('eth_accounts');
    await waitForReceipt(anvil, await sendTx(anvil, { from: accounts[0]!, to: accounts[1]!, value: 12345n }));
  });
  after(async () => {
    for (const node of nodes) await node.stop();
    await anvil?.stop();
  });

  it('serves only net and web3 unless told the modules, as go-qrl without --http.api', async () => {
    const node = await start({});
    await assert.rejects(node.rpc('qrl_chainId'), { code: -32601, message: 'the method qrl_chainId does not exist/is not available' });
    assert.equal(await node.rpc('net_version'), '31337');
    assert.deepEqual(await node.rpc('rpc_modules'), { net: '1.0', rpc: '1.0', web3: '1.0' });
    // The indexer's namespace detection says what to enable.
    const client = createRpcClient({ url: node.url });
    try {
      await assert.rejects(detectNamespace(client), /--http\.api qrl,debug,net,web3/);
    } finally {
      client.close();
    }
  });

  it('answers a batch in order, each call as go-qrl would', async () => {
    const node = await start({ modules: ['qrl', 'net', 'web3'] });
    const response = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'qrl_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 'b', method: 'debug_traceBlockByNumber', params: ['0x1', { tracer: 'callTracer' }] },
        { jsonrpc: '2.0', id: 'c', method: 'qrl_getLogs', params: [{ address: [node.address(accounts[0]!), accounts[1]] }] },
        { jsonrpc: '2.0', id: 'd', method: 'qrl_getBalance', params: [node.address(accounts[1]!), 'latest'] },
      ]),
    });
    const body = (await response.json()) as { id: string; result?: unknown; error?: { code: number; message: string } }[];
    assert.deepEqual(body.map((b) => b.id), ['a', 'b', 'c', 'd']);
    assert.equal(body[0]!.result, await anvil.rpc('eth_blockNumber'));
    assert.deepEqual(body[1]!.error, { code: -32601, message: 'the method debug_traceBlockByNumber does not exist/is not available' });
    assert.deepEqual(body[2]!.error, { code: -32602, message: 'invalid argument 0: invalid address at index 1: hex string without Q prefix' });
    assert.equal(body[3]!.result, await anvil.rpc('eth_getBalance', [accounts[1], 'latest']));
  });

  it('in 64-byte mode, every address is Q + 128 hex both ways, printed QIP-55, and a 20-byte one is refused', async () => {
    const node = await start({ modules: ['qrl', 'debug', 'txpool', 'net', 'web3'], addressBytes: 64 });
    const wide = node.address(accounts[1]!);
    assert.match(wide, /^Q[0-9a-fA-F]{128}$/);
    assert.match(wide, /[A-F]/);
    assert.equal(wide.slice(0, 41).toLowerCase(), `q${accounts[1]!.slice(2).toLowerCase()}`);
    const lower = `Q${wide.slice(1).toLowerCase()}`;
    assert.equal(await node.rpc('qrl_getBalance', [wide, 'latest']), await anvil.rpc('eth_getBalance', [accounts[1], 'latest']));
    assert.equal(await node.rpc('qrl_getBalance', [lower, 'latest']), await anvil.rpc('eth_getBalance', [accounts[1], 'latest']));
    // An address of the right width that no Anvil account maps to holds nothing.
    assert.equal(await node.rpc('qrl_getBalance', [`Q${'ab'.repeat(64)}`, 'latest']), '0x0');
    await assert.rejects(node.rpc('qrl_getBalance', [`Q${accounts[1]!.slice(2)}`, 'latest']), { code: -32602, message: 'invalid argument 0: hex string has length 40, want 128 for common.Address' });
    const block = await node.rpc<{ transactions: Record<string, string>[] }>('qrl_getBlockByNumber', ['0x1', true]);
    assert.equal(block.transactions[0]!.from, node.address(accounts[0]!));
    assert.equal(block.transactions[0]!.to, wide);
    const [trace] = await node.rpc<{ result: { from: string; to: string } }[]>('debug_traceBlockByNumber', ['0x1', { tracer: 'callTracer' }]);
    assert.deepEqual([trace!.result.from, trace!.result.to], [node.address(accounts[0]!), wide]);
    const [receipt] = await node.rpc<{ from: string; to: string }[]>('qrl_getBlockReceipts', ['0x1']);
    assert.deepEqual([receipt!.from, receipt!.to], [node.address(accounts[0]!), wide]);
    // The genesis miner (the zero address) at full width: what a client learns the width from.
    assert.equal((await node.rpc<{ miner: string }>('qrl_getBlockByNumber', ['0x0', false])).miner, `Q${'0'.repeat(128)}`);
  });

  it('in 64-byte mode, checksums as go-qrllib does (its parity vector)', () => {
    // go-qrllib wallet/common/address_test.go parityVectors (also test/api/addresses/width-64.test.ts).
    const lower = 'd5812f6cf4a0f645aa620cd57319a0ed649dd8f5519a9dde7770ae5b0e49e547985f35eb972a2a07041561aa39c65a3991478f9b1e6749e05277dcf58a9a8b72';
    assert.equal(qip55(lower), 'd5812F6Cf4a0f645aa620cd57319a0Ed649dd8f5519A9dde7770ae5b0E49e547985f35eB972A2a07041561aa39c65A3991478f9B1e6749e05277dcf58A9A8B72');
  });

  it('in 64-byte mode, logs and call returns are VM64 words, and 64-byte calldata reaches Anvil', async () => {
    const node = await start({ modules: ['qrl', 'net', 'web3'], addressBytes: 64 });
    const c = compileContracts();
    const token = await deploy(anvil, accounts[0]!, c.Token!, ['Wide Token', 'WIDE', 18, 10n ** 24n]);
    const sent = await sendTx(anvil, { from: accounts[0]!, to: token, data: callData(c.Token!, 'transfer', [accounts[2]!, 777n]), gas: 100_000n });
    await waitForReceipt(anvil, sent);
    const wideLower = (a: string) => node.address(a).slice(1).toLowerCase();
    const z64 = '0'.repeat(64);
    const transfer = keccak256(toHex('Transfer(address,address,uint256)')).slice(2);
    const receipt = await node.rpc<{ logs: { address: string; topics: string[]; data: string }[] }>('qrl_getTransactionReceipt', [sent]);
    assert.deepEqual(receipt.logs.map((l) => [l.address, l.topics, l.data]), [
      [node.address(token), [`0x${transfer}${z64}`, `0x${wideLower(accounts[0]!)}`, `0x${wideLower(accounts[2]!)}`], `0x${z64}${(777).toString(16).padStart(64, '0')}`],
    ]);
    const logs = await node.rpc<{ topics: string[] }[]>('qrl_getLogs', [{ address: node.address(token), topics: [`0x${transfer}${z64}`, null, `0x${wideLower(accounts[2]!)}`] }]);
    assert.deepEqual(logs.map((l) => l.topics[2]), [`0x${wideLower(accounts[2]!)}`]);

    const word = (n: bigint) => n.toString(16).padStart(128, '0');
    const call = (data: string) => node.rpc<string>('qrl_call', [{ to: node.address(token), data }, 'latest']);
    // balanceOf(address) with the 64-byte address as its one 64-byte argument word.
    assert.equal(await call(`0x70a08231${wideLower(accounts[2]!)}`), `0x${word(777n)}`);
    assert.equal(await call('0x313ce567'), `0x${word(18n)}`);
    const name = Buffer.from('Wide Token').toString('hex');
    assert.equal(await call('0x06fdde03'), `0x${word(64n)}${word(10n)}${name.padEnd(128, '0')}`);
  });

  it('keys txpool_content by the checksummed address, as Address.Hex() prints it', async () => {
    const node = await start({ modules: ['qrl', 'txpool', 'net', 'web3'] });
    await anvil.rpc('evm_setAutomine', [false]);
    try {
      await sendTx(anvil, { from: accounts[2]!, to: accounts[0]!, value: 1n });
      const content = await node.rpc<{ pending: Record<string, Record<string, { from: string }>> }>('txpool_content');
      const [key] = Object.keys(content.pending);
      // go-qrl's checksum (common/types.go checksumHex) is EIP-55's over the hex digits, with Q for 0x.
      const eip55 = (await import('viem')).getAddress(accounts[2]!);
      assert.equal(key, `Q${eip55.slice(2)}`);
      assert.equal(content.pending[key!]!['0']!.from, node.address(accounts[2]!));
    } finally {
      await anvil.rpc('evm_mine');
      await anvil.rpc('evm_setAutomine', [true]);
    }
  });
});
