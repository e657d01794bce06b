/**
 * The pos token routes equal what the node says: Quarry indexes a real node (Anvil) running three
 * ERC-20 flavours (transfers, burns, mints in constructors), and every token's holders are the
 * addresses whose `balanceOf` is positive, each with that balance; its supply is `totalSupply()`
 * (or, for the tokens without one, the sum of the balances); its transfers are the node's Transfer
 * logs, newest first; its creation is the deploying transaction. Then again after the indexer
 * followed the node through a reorg.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import { decodeFunctionResult, encodeFunctionData, parseAbi } from 'viem';
import { resolveIndexPosSettings } from '../../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../../src/ingest/index-pos.ts';
import { buildTestApp, type TestApp } from '../../support/app.ts';
import { startAnvil, type Anvil } from '../../support/anvil.ts';
import { followThroughReorg } from '../../support/pos-follow-reorg.ts';
import { describeOnOneStore } from '../../support/stores.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../../fixtures/traffic.ts';
import { getter, walk } from '../transactions/fixtures.ts';

const silent = pino({ level: 'silent' });
const hex = (n: number) => `0x${n.toString(16)}`;
const q = (address: string) => 'Q' + address.slice(2).toLowerCase();
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO = '0x' + '0'.repeat(40);
const abi = parseAbi(['function balanceOf(address) view returns (uint256)', 'function totalSupply() view returns (uint256)', 'function name() view returns (string)', 'function symbol() view returns (string)', 'function decimals() view returns (uint8)']);

interface NodeLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
}

describeOnOneStore('pos token routes against Anvil', (getStore) => {
  let anvil: Anvil;
  let traffic: Traffic;
  let t: TestApp;
  const get = getter(() => t);
  const settings = () => resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {});

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    traffic = await setUpTraffic(anvil, { accounts: 20 });
    await driveTraffic(anvil, traffic, { blocks: 6, perBlock: 12 });
    await indexPos(getStore(), settings(), { logger: silent });
    t = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '100000' });
  });
  after(async () => {
    await t?.close();
    await anvil?.stop();
  });

  const call = async (to: string, data: `0x${string}`) => anvil.rpc<`0x${string}`>('eth_call', [{ to, data }, 'latest']);
  const balanceOf = async (token: string, holder: string) => BigInt(await call(token, encodeFunctionData({ abi, functionName: 'balanceOf', args: [holder as `0x${string}`] })));

  /** The deploying transaction of each contract, from the receipts of the node's first blocks (setUpTraffic deploys first). */
  async function deployments(): Promise<Map<string, { tx: string; from: string; height: number; ts: number }>> {
    const found = new Map<string, { tx: string; from: string; height: number; ts: number }>();
    for (let height = 0; height <= 12; height++) {
      const block = await anvil.rpc<{ timestamp: string; transactions: { hash: string; from: string; to: string | null }[] }>('eth_getBlockByNumber', [hex(height), true]);
      for (const tx of block.transactions) {
        if (tx.to !== null) continue;
        const receipt = await anvil.rpc<{ contractAddress: string }>('eth_getTransactionReceipt', [tx.hash]);
        found.set(receipt.contractAddress.toLowerCase(), { tx: tx.hash, from: tx.from, height, ts: Number(block.timestamp) });
      }
    }
    return found;
  }

  async function assertTokensMatchNode(): Promise<void> {
    const created = await deployments();
    const counts: [string, number][] = [];
    for (const token of traffic.tokens) {
      const logs = (await anvil.rpc<NodeLog[]>('eth_getLogs', [{ address: token, fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER] }]))
        .filter((l) => l.topics.length === 3 && l.data.length === 66);
      const parties = new Set(logs.flatMap((l) => [`0x${l.topics[1]!.slice(26)}`, `0x${l.topics[2]!.slice(26)}`]).filter((a) => a !== ZERO));
      const balances = new Map<string, bigint>();
      for (const party of parties) balances.set(party, await balanceOf(token, party));
      const holders = [...balances].filter(([, b]) => b > 0n).map(([a, b]) => [q(a), b.toString()] as const)
        .sort((x, y) => (BigInt(y[1]) > BigInt(x[1]) ? 1 : BigInt(y[1]) < BigInt(x[1]) ? -1 : x[0] < y[0] ? 1 : -1));
      const held = [...balances.values()].reduce((a, b) => a + b, 0n);
      let supply = held;
      try {
        supply = BigInt(await call(token, encodeFunctionData({ abi, functionName: 'totalSupply' })));
        assert.equal(held, supply, `${token}: the balances add up to totalSupply()`);
      } catch (error) {
        // Bytes32Token and BareToken have no totalSupply(): their supply is what they hold.
        if (token === traffic.contracts.token) throw error;
      }

      const page = await get(`pos/tokens/${token}`);
      const origin = created.get(token.toLowerCase())!;
      assert.deepEqual(
        [page.token, page.holders, page.transfers, page.total_supply, page.creator, page.created_tx, page.created_height],
        [q(token), holders.length, logs.length, supply.toString(), q(origin.from), origin.tx, origin.height],
        token,
      );
      assert.equal(page.created_at, new Date(origin.ts * 1000).toISOString().slice(0, 19));
      if (token === traffic.contracts.token) {
        const read = async (functionName: 'name' | 'symbol' | 'decimals') => decodeFunctionResult({ abi, functionName, data: await call(token, encodeFunctionData({ abi, functionName })) });
        assert.deepEqual([page.name, page.symbol, page.decimals], [await read('name'), await read('symbol'), Number(await read('decimals'))]);
      }

      const listed = await walk(get, `pos/tokens/${token}/holders`, 4);
      assert.deepEqual((listed.items as { address: string; balance: string }[]).map((h) => [h.address, h.balance]), holders, `${token} holders`);
      assert.ok(listed.totals.every((n) => n === holders.length));

      const moved = await walk(get, `pos/tokens/${token}/transfers`, 9);
      const newest = [...logs].sort((a, b) => Number(b.blockNumber) - Number(a.blockNumber) || Number(b.transactionIndex) - Number(a.transactionIndex) || Number(b.logIndex) - Number(a.logIndex));
      assert.deepEqual(
        (moved.items as Record<string, unknown>[]).map((x) => [x.tx_hash, x.height, x.log_index, x.from_addr, x.to_addr, x.amount]),
        newest.map((l) => [l.transactionHash, Number(l.blockNumber), Number(l.logIndex), 'Q' + l.topics[1]!.slice(26), 'Q' + l.topics[2]!.slice(26), BigInt(l.data).toString()]),
        `${token} transfers`,
      );
      counts.push([q(token), logs.length]);
    }
    const list = await get('pos/tokens?sort=transfers');
    assert.deepEqual(
      list.items.map((i: { token: string; transfers: number }) => [i.token, i.transfers]),
      counts.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)),
    );
    assert.equal(list.total, traffic.tokens.length);
  }

  it('every token\'s holders, supply, transfers and creation equal the node\'s', async () => {
    await assertTokensMatchNode();
  });

  it('after following the node through a reorg, they equal the node\'s new branch', async () => {
    await followThroughReorg({ store: getStore(), anvil, traffic, settings: settings(), logger: silent, headHash: async () => (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash });
    await assertTokensMatchNode();
  });
});
