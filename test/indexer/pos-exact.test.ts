/**
 * `quarry index pos` exact from any starting height, against a real node (Anvil):
 * - indexed from a height H above genesis, every address's balance equals the node's at the head
 *   (opening balances seeded from the node's state at H−1), and none is negative;
 * - contracts a factory creates without value make the factory a deployer and the child a contract;
 * - a reorg to a branch whose head is at our tip's height (Anvil's `anvil_reorg`, which replaces the
 *   head block in one step) is taken as soon as the node switches, without waiting for another block.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { createPublicClient, decodeAbiParameters, http, keccak256, toHex } from 'viem';
import { posAddressFromHex, posAddressToHex } from '../../src/chain/addresses.ts';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import type { Store } from '../../src/store/store.ts';
import { callData, compileContracts, sendTx, waitForReceipt, type Anvil, startAnvil } from '../support/anvil.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../fixtures/traffic.ts';
import { waitFor } from '../support/wait-for.ts';

const silent = pino({ level: 'silent' });
const CREATED_TOPIC = keccak256(toHex('Created(address,bool)'));

async function assertBalancesMatchHead(store: Store, anvil: Anvil): Promise<number> {
  const client = createPublicClient({ transport: http(anvil.url) });
  const head = await client.getBlockNumber();
  const rows = await store.query<{ address: string; balance: string }>('t', sql`SELECT address, balance::text AS balance FROM address_summary WHERE chain = 'pos'`);
  for (const row of rows) {
    const onNode = await client.getBalance({ address: posAddressToHex(row.address) as `0x${string}`, blockNumber: head });
    assert.ok(BigInt(row.balance) >= 0n, `balance of ${row.address} is ${row.balance}`);
    assert.equal(BigInt(row.balance), onNode, `balance of ${row.address}`);
  }
  return rows.length;
}

async function storeTip(store: Store): Promise<{ height: number; hash: string } | undefined> {
  const [tip] = await store.query<{ height: string; hash: string }>('t', sql`SELECT height, hash FROM blocks WHERE chain = 'pos' ORDER BY height DESC LIMIT 1`);
  return tip && { height: Number(tip.height), hash: tip.hash };
}

describeOnOneStore('quarry index pos from above genesis, factories and same-height reorgs (Anvil)', (getStore) => {
  let anvil: Anvil;
  let traffic: Traffic;
  let from: number;
  /** Children the factory created without value in the indexed range. */
  const children: string[] = [];

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    traffic = await setUpTraffic(anvil, { accounts: 20 });
    await driveTraffic(anvil, traffic, { blocks: 4, perBlock: 12 });
    from = Number(await anvil.rpc<string>('eth_blockNumber')) - 1;
    await driveTraffic(anvil, traffic, { blocks: 3, perBlock: 12, seed: 3 });
    const c = compileContracts();
    for (const [i, account] of traffic.accounts.slice(0, 3).entries()) {
      const data = i === 1 ? callData(c.Factory!, 'create2', [keccak256(toHex(`zero-${i}`))]) : callData(c.Factory!, 'create');
      const hash = await sendTx(anvil, { from: account, to: traffic.contracts.factory, value: 0n, data, gas: 400_000n });
      await waitForReceipt(anvil, hash);
      const receipt = await anvil.rpc<{ status: string; logs: { topics: string[]; data: `0x${string}` }[] }>('eth_getTransactionReceipt', [hash]);
      assert.equal(receipt.status, '0x1');
      const created = receipt.logs.find((log) => log.topics[0] === CREATED_TOPIC)!;
      const [child] = decodeAbiParameters([{ type: 'address' }, { type: 'bool' }], created.data);
      children.push(posAddressFromHex(child));
    }
  });
  after(() => anvil?.stop());

  const settings = (extra: Record<string, unknown> = {}) => ({ ...resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {}), ...extra });

  it('indexed from a height above genesis, every balance equals the node at the head', async () => {
    assert.ok(from > 50);
    await indexPos(getStore(), settings({ fromHeight: from }), { logger: silent });
    const [first] = await getStore().query<{ height: string }>('t', sql`SELECT min(height)::text AS height FROM blocks WHERE chain = 'pos'`);
    assert.equal(Number(first!.height), from);
    const n = await assertBalancesMatchHead(getStore(), anvil);
    assert.ok(n > 20, `only ${n} addresses`);
    // The openings are the node's balances at H-1, one per address first seen in the range.
    const client = createPublicClient({ transport: http(anvil.url) });
    const openings = await getStore().query<{ address: string; amount: string | null; height: string }>('t', sql`SELECT address, amount::text AS amount, height::text AS height FROM opening_balances WHERE chain = 'pos'`);
    assert.equal(openings.length, n);
    for (const o of openings) {
      assert.equal(BigInt(o.amount!), await client.getBalance({ address: posAddressToHex(o.address) as `0x${string}`, blockNumber: BigInt(from - 1) }), `opening of ${o.address}`);
    }
    assert.ok(openings.some((o) => BigInt(o.amount!) > 0n));
  });

  it('records contracts a factory created without value: the factory deploys, the children are contracts', async () => {
    const factory = posAddressFromHex(traffic.contracts.factory);
    const rows = await getStore().query<{ address: string; is_contract: boolean; deployed_count: number }>(
      't',
      sql`SELECT address, is_contract, deployed_count FROM address_summary WHERE chain = 'pos' AND address = ANY(${[factory, ...children]}::text[])`,
    );
    const byAddress = new Map(rows.map((r) => [r.address, r]));
    for (const child of children) assert.equal(byAddress.get(child)?.is_contract, true, `child ${child}`);
    // Every creation frame of the indexed range, zero-value or not, from the node's own traces.
    let expected = 0;
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    for (let height = from; height <= head; height++) {
      const traces = await anvil.rpc<{ type: string; action: { from: string }; traceAddress: number[]; error?: string }[]>('trace_block', [toHex(height)]);
      expected += traces.filter((t) => t.type === 'create' && t.traceAddress.length > 0 && !t.error && t.action.from.toLowerCase() === traffic.contracts.factory.toLowerCase()).length;
    }
    assert.ok(expected >= children.length);
    assert.equal(Number(byAddress.get(factory)?.deployed_count), expected);
    const [zero] = await getStore().query<{ n: string }>('t', sql`SELECT count(*)::text AS n FROM contract_creations WHERE chain = 'pos' AND address = ANY(${children}::text[])`);
    assert.equal(Number(zero!.n), children.length);
    // What the API says of them.
    const t = await buildTestApp(getStore());
    try {
      const res = await t.app.inject({ url: `/api/v1/pos/addresses/${factory}`, headers: AUTH });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().is_deployer, true);
    } finally {
      await t.close();
    }
  });

  it('takes a reorg to a branch of the same height when the node switches, not one block later', async () => {
    const controller = new AbortController();
    const running = indexPos(getStore(), settings({ follow: true, pollIntervalMs: 50 }), { logger: silent, signal: controller.signal });
    running.catch(() => undefined);
    const nodeHead = () => anvil.rpc<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
    const synced = async () => (await storeTip(getStore()))?.hash === (await nodeHead()).hash;
    const [alice, bob] = traffic.accounts;
    // Development accounts funded at genesis and last active before H: each branch's sender is first
    // seen on it, so its opening balance comes with the branch and must go with it.
    const dev = await anvil.rpc<`0x${string}`[]>('eth_accounts');
    const [senderA, senderB] = [dev[8]!, dev[9]!];
    const opened = async () => new Map((await getStore().query<{ address: string; amount: string }>('t', sql`SELECT address, amount::text AS amount FROM opening_balances WHERE chain = 'pos'`)).map((r) => [r.address, BigInt(r.amount)]));
    assert.equal((await opened()).has(posAddressFromHex(senderA)), false);
    assert.equal((await opened()).has(posAddressFromHex(senderB)), false);
    try {
      await waitFor(synced, 'resume');
      await waitForReceipt(anvil, await sendTx(anvil, { from: senderA, to: bob!, value: 10n ** 15n, gas: 21_000n }));
      await waitFor(synced, 'branch A');
      const a = await nodeHead();
      assert.ok(((await opened()).get(posAddressFromHex(senderA)) ?? 0n) > 0n, 'branch A opens its sender');
      // One step, never shorter in between: the head block is replaced by one with another transaction.
      await anvil.rpc('anvil_reorg', [1, [[{ from: senderB, to: alice!, value: toHex(2n * 10n ** 15n) }, 0]]]);
      const b = await nodeHead();
      assert.equal(b.number, a.number);
      assert.notEqual(b.hash, a.hash);
      // No block is mined from here on: the store must take branch B on its own.
      await waitFor(synced, 'branch B at the same height', 15_000);
      assert.equal((await nodeHead()).hash, b.hash);
    } finally {
      controller.abort();
    }
    const result = await running;
    assert.equal(result.reorgs, 1);
    const reorgs = await getStore().query<{ depth: number }>('t', sql`SELECT depth FROM reorgs WHERE chain = 'pos'`);
    assert.equal(reorgs.length, 1);
    await assertBalancesMatchHead(getStore(), anvil);
    // Branch A's opening went with it; branch B's sender opened at its balance at H-1.
    const openings = await opened();
    assert.equal(openings.has(posAddressFromHex(senderA)), false);
    const [summaryA] = await getStore().query('t', sql`SELECT 1 FROM address_summary WHERE chain = 'pos' AND address = ${posAddressFromHex(senderA)}`);
    assert.equal(summaryA, undefined);
    const client = createPublicClient({ transport: http(anvil.url) });
    assert.equal(openings.get(posAddressFromHex(senderB)), await client.getBalance({ address: senderB, blockNumber: BigInt(from - 1) }));
  });
});

describeOnOneStore('quarry index pos from above genesis on a node without history', (getStore) => {
  let anvil: Anvil;
  before(async () => {
    anvil = await startAnvil({ accounts: 3, extraArgs: ['--prune-history', '2'] });
    const dev = await anvil.rpc<`0x${string}`[]>('eth_accounts');
    // With input data, so that reading the blocks needs no state (a plain transfer's type asks for code at the parent).
    for (let i = 0; i < 12; i++) await waitForReceipt(anvil, await sendTx(anvil, { from: dev[i % 3]!, to: dev[(i + 1) % 3]!, value: 10n ** 15n, data: '0x01', gas: 30_000n }));
  });
  after(() => anvil?.stop());

  it('stops rather than store balances without their opening', async () => {
    const settings = { ...resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {}), fromHeight: 4 };
    // Without the state of block 3 the node can neither trace block 4 nor tell the balances it opens from:
    // the chain stalls at block 4 (the first of the two that fails), and nothing is stored.
    await assert.rejects(
      indexPos(getStore(), settings, { logger: silent, refetch: { attempts: 1, delayMs: 1, maxDelayMs: 1 } }),
      /pos stalled at height 4: block 4 does not decode: traces\[0\]: the tracer failed|cannot tell balances at block 3/,
    );
    const [stored] = await getStore().query<{ n: string }>('t', sql`SELECT count(*)::text AS n FROM address_summary WHERE chain = 'pos'`);
    assert.equal(Number(stored!.n), 0);
  });
});
