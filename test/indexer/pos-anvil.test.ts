/**
 * End to end: Quarry indexes a real node (Anvil) running a few hundred transactions of every kind,
 * and what it stores must equal what the node says: every balance (eth_getBalance), every token
 * holding (balanceOf), the internal transfers (the node's own traces), the burned fees
 * (Σ base fee × gas used) and the transaction counts. Then again after a reorg while following.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { encodeFunctionData, parseAbi } from 'viem';
import { posAddressToHex } from '../../src/chain/addresses.ts';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import type { Store } from '../../src/store/store.ts';
import { startAnvil, type Anvil } from '../support/anvil.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../fixtures/traffic.ts';
import { followThroughReorg } from '../support/pos-follow-reorg.ts';

const COINBASE = '0x00000000000000000000000000000000c0ffee02';
const ZERO = 'Q' + '0'.repeat(40);
const silent = pino({ level: 'silent' });
const hex = (n: number) => `0x${n.toString(16)}`;

/** Everything the store must agree with the node on, checked at the node's current head. */
async function assertMatchesNode(store: Store, anvil: Anvil): Promise<void> {
  const head = Number(await anvil.rpc<string>('eth_blockNumber'));
  const [tip] = await store.query<{ height: string; hash: string }>('t', sql`SELECT height, hash FROM blocks WHERE chain = 'pos' ORDER BY height DESC LIMIT 1`);
  assert.equal(Number(tip!.height), head);
  assert.equal(tip!.hash, (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash);

  // Native balances of every address Quarry knows.
  const balances = await store.query<{ address: string; balance: string }>('t', sql`SELECT address, balance::text AS balance FROM address_summary WHERE chain = 'pos'`);
  assert.ok(balances.length > 40, `only ${balances.length} addresses`);
  for (const row of balances) {
    const onNode = BigInt(await anvil.rpc<string>('eth_getBalance', [posAddressToHex(row.address), 'latest']));
    assert.equal(BigInt(row.balance), onNode, `balance of ${row.address}`);
  }

  // Token holdings.
  const abi = parseAbi(['function balanceOf(address) view returns (uint256)']);
  const holdings = await store.query<{ address: string; contract: string; balance: string }>('t', sql`SELECT address, contract, balance::text AS balance FROM token_balances WHERE chain = 'pos' AND address <> ${ZERO}`);
  assert.ok(holdings.length > 30);
  for (const row of holdings) {
    const data = encodeFunctionData({ abi, functionName: 'balanceOf', args: [posAddressToHex(row.address)] });
    const onNode = BigInt(await anvil.rpc<string>('eth_call', [{ to: posAddressToHex(row.contract), data }, 'latest']));
    assert.equal(BigInt(row.balance), onNode, `${row.contract} held by ${row.address}`);
  }

  // Internal transfers against the node's parity traces, derived here independently.
  const expected: string[] = [];
  let txCount = 0;
  let burned = 0n;
  for (let height = 0; height <= head; height++) {
    const block = await anvil.rpc<{ gasUsed: string; baseFeePerGas: string; transactions: string[] }>('eth_getBlockByNumber', [hex(height), false]);
    txCount += block.transactions.length;
    burned += BigInt(block.gasUsed) * BigInt(block.baseFeePerGas);
    if (block.transactions.length === 0) continue;
    const traces = await anvil.rpc<any[]>('trace_block', [hex(height)]);
    const failed = new Set(traces.filter((t) => t.error).map((t) => `${t.transactionHash}/${t.traceAddress.join('.')}`));
    for (const t of traces) {
      if (t.traceAddress.length === 0) continue;
      const path: number[] = t.traceAddress;
      if (failed.has(`${t.transactionHash}/`) || path.some((_, i) => failed.has(`${t.transactionHash}/${path.slice(0, i + 1).join('.')}`))) continue;
      const [from, to, value] = t.type === 'suicide' ? [t.action.address, t.action.refundAddress, t.action.balance] : t.type === 'create' ? [t.action.from, t.result?.address, t.action.value] : [t.action.from, t.action.to, t.action.value];
      if (t.type === 'call' && t.action.callType !== 'call') continue;
      if (BigInt(value ?? 0) === 0n) continue;
      expected.push(`${t.transactionHash}/${path.join('.')}/${'Q' + from.slice(2).toLowerCase()}/${'Q' + to.slice(2).toLowerCase()}/${BigInt(value)}`);
    }
  }
  const stored = await store.query<{ key: string }>('t', sql`SELECT tx_hash || '/' || trace_address || '/' || from_addr || '/' || to_addr || '/' || value::text AS key FROM internal_txs WHERE chain = 'pos'`);
  assert.ok(expected.length > 20);
  assert.deepEqual(stored.map((r) => r.key).sort(), expected.sort());

  // Burned fees and counts.
  const [totals] = await store.query<{ burned: string; txs: string; blocks: string }>('t', sql`SELECT sum(burned)::text AS burned, sum(tx_count)::text AS txs, count(*)::text AS blocks FROM blocks WHERE chain = 'pos'`);
  assert.equal(BigInt(totals!.burned), burned);
  assert.equal(Number(totals!.txs), txCount);
  const [counted] = await store.query<{ n: string }>('t', sql`SELECT count(*)::text AS n FROM transactions WHERE chain = 'pos'`);
  assert.equal(Number(counted!.n), txCount);
  const senders = await store.query<{ from_addr: string; n: string }>('t', sql`SELECT from_addr, count(*)::text AS n FROM transactions WHERE chain = 'pos' GROUP BY from_addr`);
  for (const row of senders) {
    assert.equal(Number(row.n), Number(await anvil.rpc<string>('eth_getTransactionCount', [posAddressToHex(row.from_addr), 'latest'])), `nonce of ${row.from_addr}`);
  }
}

describeOnOneStore('quarry index pos against Anvil', (getStore) => {
  let anvil: Anvil;
  let traffic: Traffic;

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    await anvil.rpc('anvil_setCoinbase', [COINBASE]);
    traffic = await setUpTraffic(anvil, { accounts: 30 });
    await driveTraffic(anvil, traffic, { blocks: 12, perBlock: 15 });
  });
  after(() => anvil?.stop());

  const settings = (extra: Record<string, unknown> = {}) => ({ ...resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {}), ...extra });

  it('indexes to the head and stops; the store agrees with the node', async () => {
    const result = await indexPos(getStore(), settings(), { logger: silent });
    assert.equal(result.height, Number(await anvil.rpc<string>('eth_blockNumber')));
    await assertMatchesNode(getStore(), anvil);
    const tokens = await getStore().query<{ name: string | null }>('t', sql`SELECT name FROM token_contracts WHERE chain = 'pos' ORDER BY name`);
    assert.deepEqual(tokens.map((t) => t.name), ['Maker-ish', 'Quarry Test Token', null]);
    // The node's finalized block, recorded beside its tip for the block pages (docs/api-blocks.md).
    const finalized = await anvil.rpc<{ number: string } | null>('eth_getBlockByNumber', ['finalized', false]);
    const [tip] = await getStore().query<{ finalized_height: number | null }>('t', sql`SELECT finalized_height FROM chain_node_tips WHERE chain = 'pos'`);
    assert.equal(tip?.finalized_height, finalized === null ? null : Number(finalized.number));
  });

  it('resumes where it stopped, then follows the head through a reorg, recording it once', async () => {
    await followThroughReorg({ store: getStore(), anvil, traffic, settings: settings(), logger: silent, headHash: async () => (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash });
    await assertMatchesNode(getStore(), anvil);
  });
});
