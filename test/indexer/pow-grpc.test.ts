/**
 * End to end: `quarry index pow` against a fake QRL node that serves a generated pow chain (with
 * reorgs, undecodable blocks and transactions, slaves, messages, tokens, lattice keys) over real
 * gRPC in the node's real messages. Indexing it must give exactly the store that ingesting the
 * generator directly gives, and every address's balance must equal the node's GetAddressState.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import type { SourceItem } from '../../src/chain/model.ts';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { checkSentinel, indexPow } from '../../src/ingest/index-pow.ts';
import { createQrlClient } from '../../src/sources/qrl-grpc/client.ts';
import { u64 } from '../../src/sources/qrl-grpc/proto.ts';
import { describeOnOneStore } from '../support/stores.ts';
import type { Store } from '../../src/store/store.ts';
import type { FakeQrlNode } from '../fakes/qrl-node/server.ts';
import { generatePowItems, referenceDigest, startNodeWithChain, storeDigest, feed } from '../fakes/qrl-node/world.ts';
import { waitFor } from '../support/wait-for.ts';
import { POW_GENESIS_COINBASE_DEBIT, POW_TESTNET_GENESIS_COINBASE_DEBIT } from '../support/expected.ts';
import { POW_DEMO_NETWORK_ID } from '../../src/sources/synthetic/pow.ts';

const silent = pino({ level: 'silent' });

/** The digest of the store that ingesting `items` directly (in the node's addresses) gives. */
async function expectedDigest(items: SourceItem[]): Promise<Record<string, string>> {
  const { node, views } = await startNodeWithChain(items);
  await node.stop();
  return referenceDigest(views);
}

/** Equal digests; on a difference, names the tables that differ (not the whole digest). */
function assertSameStore(actual: Record<string, string>, expected: Record<string, string>): void {
  const differ = Object.keys({ ...actual, ...expected }).filter((table) => actual[table] !== expected[table]);
  assert.deepEqual(differ.map((t) => `${t}: ${actual[t]?.slice(0, 80)} vs ${expected[t]?.slice(0, 80)}`), []);
}

let items: SourceItem[];
let expected: Record<string, string>;
let followItems: SourceItem[];
let followExpected: Record<string, string>;
/**
 * The node the backfill suite indexes, one for the file: a run on every store kind reads the same
 * chain from it (a suite's transient failures are its own, used up by its run), and its views give
 * the reference store.
 */
let node: FakeQrlNode;
let address: string;

before(async () => {
  items = await generatePowItems();
  let views: SourceItem[];
  ({ node, address, views } = await startNodeWithChain(items));
  expected = await referenceDigest(views);
  followItems = await generatePowItems({ seed: 12, days: 0.15 });
  followExpected = await expectedDigest(followItems);
});
after(() => node?.stop());

const settings = (node: string, extra: Partial<ReturnType<typeof resolveIndexPowSettings>> = {}) => ({ ...resolveIndexPowSettings({ node, progress: false }, {}), ...extra });

const SENTINEL = 'Q' + '0'.repeat(64);

/**
 * GetAddressState's balance of every address the node holds, asked over gRPC once for the file's
 * node (all at once: the client keeps 16 calls in flight): its chain does not change.
 */
let nodeBalances: Promise<Map<string, bigint>> | undefined;
function balancesOnNode(): Promise<Map<string, bigint>> {
  return (nodeBalances ??= (async () => {
    const client = createQrlClient({ address });
    try {
      const onNode = node.addresses();
      const answers = await Promise.all(onNode.map((address) => client.call('GetAddressState', { address: Buffer.from(address.slice(1), 'hex') })));
      return new Map(onNode.map((address, i) => [address, u64(answers[i]!.message.state.balance)]));
    } finally {
      client.close();
    }
  })());
}

/** Every stored balance, the coinbase sentinel's included, equals GetAddressState's, and the node knows every stored address. */
async function assertBalancesMatchNode(store: Store): Promise<void> {
  const rows = await store.query<{ address: string; balance: string }>('t', sql`SELECT address, balance::text AS balance FROM address_summary WHERE chain = 'pow'`);
  assert.ok(rows.length > 100, `only ${rows.length} addresses`);
  const stored = new Map(rows.map((r) => [r.address, BigInt(r.balance)]));
  const answers = await balancesOnNode();
  const onNode = [...answers.keys()];
  assert.ok(onNode.includes(SENTINEL), 'the node holds the zero address');
  // Compared in the node's order.
  for (const address of onNode) {
    assert.equal(stored.get(address) ?? 0n, answers.get(address), `balance of ${address}`);
  }
  const known = new Set(onNode);
  for (const [address, balance] of stored) if (!known.has(address)) assert.equal(balance, 0n, `${address} is not on the node`);
  // The zero address: its genesis reserve less every reward the node paid out of it.
  const rewards = await store.query<{ total: string }>('t', sql`SELECT sum(reward)::text AS total FROM blocks WHERE chain = 'pow' AND height > 0`);
  assert.equal(stored.get(SENTINEL), 105_000_000n * 10n ** 9n - POW_GENESIS_COINBASE_DEBIT - BigInt(rewards[0]!.total));
}

describeOnOneStore('quarry index pow against a fake QRL node', (getStore) => {
  it('backfills to the head through transient failures: the store equals the generator ingested directly', async () => {
    const types = new Set(items.flatMap((i) => (i.kind === 'block' ? i.block.transactions.map((t) => t.type) : [])));
    for (const type of ['transfer', 'coinbase', 'latticePK', 'message', 'token', 'transfer_token', 'slave']) assert.ok(types.has(type as never), `the chain has no ${type}`);
    assert.ok(items.some((i) => i.kind === 'undecodable'));
    // Transient failures on the way are waited out.
    node.failNext(3);
    const result = await indexPow(getStore(), settings(address), { logger: silent });
    assert.equal(result.height, node.height);
    assertSameStore(await storeDigest(getStore()), expected);
    // The supply overview's node_tip_height.
    const [tip] = await getStore().query<{ height: number }>('t', sql`SELECT height FROM chain_node_tips WHERE chain = 'pow'`);
    assert.equal(Number(tip?.height), node.height);
  });

  it('every balance equals the node\'s GetAddressState', async () => {
    await assertBalancesMatchNode(getStore());
  });

  it('indexes the mainnet-shaped genesis as the node serves it: network id, coinbase and transfers, the reserve', async () => {
    const client = createQrlClient({ address });
    let served: any;
    try {
      ({ message: served } = await client.call('GetBlockByNumber', { block_number: 0 }));
    } finally {
      client.close();
    }
    const header = served.block.header;
    const networkId = Buffer.from(header.hash_header_prev).toString('utf8');
    assert.equal(networkId, POW_DEMO_NETWORK_ID);
    assert.equal(served.block.genesis_balance.length, 1);
    assert.deepEqual(Buffer.from(served.block.genesis_balance[0].address), Buffer.alloc(32));
    const kinds = served.block.transactions.map((tx: any) => tx.transactionType);
    assert.equal(kinds[0], 'coinbase');
    assert.ok(kinds.length > 1 && kinds.slice(1).every((k: string) => k === 'transfer'), 'a coinbase, then transfers');
    const store = getStore();
    const [block] = await store.query<{ parent_hash: string; tx_count: number; reward: string }>('t', sql`SELECT parent_hash, tx_count, reward::text FROM blocks WHERE chain = 'pow' AND height = 0`);
    assert.equal(block!.parent_hash, Buffer.from(POW_DEMO_NETWORK_ID, 'utf8').toString('hex'));
    assert.equal(block!.tx_count, kinds.length);
    assert.equal(block!.reward, String(65_000_000n * 10n ** 9n));
    const [stored] = await store.query<{ n: number }>('t', sql`SELECT count(*)::int AS n FROM transactions WHERE chain = 'pow' AND height = 0`);
    assert.equal(stored!.n, kinds.length);
    const allocations = await store.query<{ address: string; amount: string }>('t', sql`SELECT address, amount::text FROM genesis_allocations WHERE chain = 'pow'`);
    assert.deepEqual(allocations, [{ address: SENTINEL, amount: String(105_000_000n * 10n ** 9n) }]);
    // Block 1's parent is the genesis hash.
    const [one] = await store.query<{ ok: boolean }>('t', sql`SELECT b1.parent_hash = b0.hash AS ok FROM blocks b0 JOIN blocks b1 ON b1.chain = b0.chain AND b1.height = 1 WHERE b0.chain = 'pow' AND b0.height = 0`);
    assert.equal(one!.ok, true);
  });
});

// On one store, PostgreSQL when the run has it, as every suite of the file: following a chain through
// reorgs into PGlite is the demo's (test/cli/demo.test.ts), killed and run again pow-grpc-kill.test.ts's.
describeOnOneStore('quarry index pow following a fake QRL node through reorgs', (getStore) => {

  it('follows the head as the node grows and switches branches; ends with the same store', async () => {
    const items = followItems;
    const start = Math.floor(items.length / 3);
    const { node, address } = await startNodeWithChain(items.slice(0, start));
    const controller = new AbortController();
    const running = indexPow(getStore(), settings(address, { follow: true, pollIntervalMs: 20 }), { logger: silent, signal: controller.signal });
    running.catch(() => undefined);
    const synced = async () => {
      const [tip] = await getStore().query<{ hash: string }>('t', sql`SELECT hash FROM checkpoints WHERE chain = 'pow'`);
      return tip?.hash === node.headHash;
    };
    try {
      // Item by item around reorgs (so the indexer holds the orphan branch when the node leaves it), in chunks elsewhere.
      const slow = new Set<number>();
      let highest = -1;
      items.forEach((item, index) => {
        const height = item.kind === 'block' ? item.block.height : item.kind === 'undecodable' ? item.height : -1;
        if (height <= highest) for (let k = index - 4; k <= index; k++) slow.add(k);
        highest = Math.max(highest, height);
      });
      let i = start;
      while (i < items.length) {
        let step = 1;
        while (!slow.has(i) && !slow.has(i + step) && step < 25 && i + step < items.length) step++;
        feed(node, items.slice(i, i + step));
        i += step;
        if (node.views().at(-1)!.kind === 'block') await waitFor(synced, `height ${node.height}`, 120_000);
      }
      await waitFor(synced, 'the head', 120_000);
    } catch (error) {
      controller.abort();
      await node.stop();
      throw error;
    }
    controller.abort();
    try {
      const result = await running;
      assert.ok(result.reorgs > 0, 'no reorg was seen');
      assertSameStore(await storeDigest(getStore()), followExpected);
    } finally {
      await node.stop();
    }
  });
});

/**
 * A node started with `--network-type testnet` (the fake's testnet mode): its reward fork is at
 * height 0, so the genesis coinbase takes 0.4 of mainnet's 6,656,350,568 shor from the zero address.
 * Quarry reads the network from the genesis block's network id; the sentinel must read what the node
 * answers for the 32 zero bytes.
 */
describeOnOneStore('quarry index pow against a fake QRL testnet node', (getStore) => {
  it('debits the genesis coinbase by the testnet\'s rule: the sentinel\'s balance is the node\'s', async () => {
    const chain = await generatePowItems({ coinbaseOnlyShare: 0.8, days: 1, toHeight: 40 });
    const { node: testnet, address: at } = await startNodeWithChain(chain, { network: 'testnet' });
    const client = createQrlClient({ address: at });
    try {
      const { message: state } = await client.call('GetNodeState', {});
      assert.equal(state.info.network_id, 'Final Testnet');
      const result = await indexPow(getStore(), settings(at), { logger: silent });
      assert.equal(result.height, 40);
      const store = getStore();
      const [genesis] = await store.query<{ parent_hash: string }>('t', sql`SELECT parent_hash FROM blocks WHERE chain = 'pow' AND height = 0`);
      assert.equal(genesis!.parent_hash, Buffer.from('Final Testnet', 'utf8').toString('hex'));
      // formulas.block_reward(1) is 6,656,349,462 on mainnet; the testnet pays floor(0.4 x that).
      const [one] = await store.query<{ reward: string }>('t', sql`SELECT reward::text FROM blocks WHERE chain = 'pow' AND height = 1`);
      assert.equal(one!.reward, '2662539784');
      const { message: answer } = await client.call('GetOptimizedAddressState', { address: Buffer.alloc(32) });
      const onNode = u64(answer.state.balance);
      const [sentinel] = await store.query<{ balance: string }>('t', sql`SELECT balance::text AS balance FROM address_summary WHERE chain = 'pow' AND address = ${SENTINEL}`);
      assert.equal(BigInt(sentinel!.balance), onNode);
      const rewards = await store.query<{ total: string }>('t', sql`SELECT sum(reward)::text AS total FROM blocks WHERE chain = 'pow' AND height > 0`);
      assert.equal(onNode, 105_000_000n * 10n ** 9n - POW_TESTNET_GENESIS_COINBASE_DEBIT - BigInt(rewards[0]!.total));
      // Every other address too.
      const rows = await store.query<{ address: string; balance: string }>('t', sql`SELECT address, balance::text AS balance FROM address_summary WHERE chain = 'pow'`);
      const stored = new Map(rows.map((r) => [r.address, BigInt(r.balance)]));
      for (const address of testnet.addresses()) assert.equal(stored.get(address) ?? 0n, testnet.balance(address), `balance of ${address}`);
      // The indexer's own check against the node agrees, and tells a difference with both figures.
      assert.deepEqual(await checkSentinel(store, client, silent), { status: 'same', height: 40, balance: onNode });
      await store.query('t', sql`UPDATE address_summary SET balance = balance - 3993810341 WHERE chain = 'pow' AND address = ${SENTINEL}`);
      assert.deepEqual(await checkSentinel(store, client, silent), { status: 'differs', height: 40, stored: onNode - 3_993_810_341n, node: onNode });
    } finally {
      client.close();
      await testnet.stop();
    }
  });
});
