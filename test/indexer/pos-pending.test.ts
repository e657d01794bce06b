/**
 * Pending transactions while the pos indexer follows a real node: Anvil with automine off keeps
 * what is sent in its pool, read as Anvil itself serves it (`eth_` namespace) and through the
 * go-qrl fake (`qrl_`, `Q` addresses, checksummed txpool keys, test/fakes/go-qrl). The pending list
 * must be the node's txpool_content, field by field (the type by the rule of docs/api-transactions.md,
 * asked of the node with eth_getCode), each first seen between its sending and the read; a
 * transaction the node drops leaves the list, and those a mined block holds leave it when the block
 * is indexed; the one waiting for a nonce stays, queued. When the indexer stops, the list is empty
 * and says so.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { callData, compileContracts, deployData, sendTx, startAnvil, type Anvil } from '../support/anvil.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';
import { setUpTraffic, type Traffic } from '../fixtures/traffic.ts';
import { startGoQrl } from '../fakes/go-qrl/server.ts';
import { getter } from '../api/transactions/fixtures.ts';

const silent = pino({ level: 'silent' });
const q = (address: string | null) => (address ? 'Q' + address.slice(2).toLowerCase() : null);
const big = (value: string | null | undefined) => (value === null || value === undefined ? null : BigInt(value).toString());

type PoolEntry = Record<string, any>;

describeOnOneStore('pending transactions while the pos indexer follows a node', (getStore) => {
  let anvil: Anvil;
  let traffic: Traffic;
  let dev: `0x${string}`[];
  let t: TestApp;
  const get = getter(() => t);

  before(async () => {
    anvil = await startAnvil({ accounts: 6 });
    traffic = await setUpTraffic(anvil, { accounts: 4 });
    dev = await anvil.rpc<`0x${string}`[]>('eth_accounts');
    t = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '100000' });
  });
  after(async () => {
    await t?.close();
    await anvil?.stop();
  });

  /** The pool as Anvil holds it, each entry with the pool it is in and its type by the rule, sorted by hash. */
  async function nodePool() {
    const content = await anvil.rpc<Record<'pending' | 'queued', Record<string, Record<string, PoolEntry>>>>('txpool_content');
    const entries = (['pending', 'queued'] as const).flatMap((pool) => Object.values(content[pool]).flatMap((byNonce) => Object.values(byNonce).map((tx) => ({ pool, tx }))));
    const out = [];
    for (const { pool, tx } of entries) {
      const code = tx.to ? await anvil.rpc<string>('eth_getCode', [tx.to, 'latest']) : '0x';
      const type = tx.to === null ? 'contract_create' : tx.input !== '0x' || code !== '0x' ? 'contract_call' : 'transfer';
      out.push({
        tx_hash: tx.hash, pool, tx_type: type, tx_type_evm: Number(tx.type), from_addr: q(tx.from), to_addr: q(tx.to), value: big(tx.value), recipient_count: 1,
        fee: null, nonce: Number(tx.nonce), gas: Number(tx.gas), gas_price: big(tx.gasPrice), max_fee_per_gas: big(tx.maxFeePerGas),
        max_priority_fee_per_gas: big(tx.maxPriorityFeePerGas),
      });
    }
    return out.sort((a, b) => (a.tx_hash < b.tx_hash ? -1 : 1));
  }

  /** The list's items without first_seen, sorted by hash, and the first_seen of each. */
  async function listed() {
    const body = await get('pos/transactions/pending?limit=100');
    const items = (body.items as Record<string, unknown>[]).map(({ first_seen: _f, ...rest }) => rest).sort((a, b) => (String(a.tx_hash) < String(b.tx_hash) ? -1 : 1));
    return { body, items, seen: new Map((body.items as { tx_hash: string; first_seen: string }[]).map((i) => [i.tx_hash, i.first_seen])) };
  }

  /**
   * Mines what a run left in the pool, so that the next starts from an empty one: the nonces a
   * queued transaction waits for are sent first (Anvil does not drop a queued transaction).
   */
  async function emptyPool() {
    const content = await anvil.rpc<{ queued: Record<string, Record<string, unknown>> }>('txpool_content');
    for (const [sender, byNonce] of Object.entries(content.queued)) {
      const waiting = Object.keys(byNonce).map(Number);
      for (let n = Number(await anvil.rpc<string>('eth_getTransactionCount', [sender, 'pending'])); n < Math.max(...waiting); n++) {
        if (!waiting.includes(n)) await sendTx(anvil, { from: sender, to: sender, nonce: n });
      }
    }
    await anvil.rpc('evm_mine');
    assert.deepEqual(await nodePool(), []);
  }

  const headHash = async () => (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash;
  const indexedTip = async () => (await getStore().query<{ hash: string }>('t', sql`SELECT hash FROM blocks WHERE chain = 'pos' ORDER BY height DESC LIMIT 1`))[0]?.hash;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);

  for (const via of ['anvil', 'go-qrl'] as const) {
    it(`lists what ${via === 'anvil' ? 'Anvil' : 'go-qrl'} has not mined, and lets each go as the node drops or mines it`, async () => {
      const node = via === 'go-qrl' ? await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'debug', 'txpool', 'net', 'web3'] }) : null;
      const settings = { ...resolveIndexPosSettings({ rpc: node?.url ?? anvil.url, rpcNamespace: via === 'anvil' ? 'eth' : 'qrl', progress: false }, {}), follow: true, pollIntervalMs: 50, pendingIntervalMs: 50 };
      const controller = new AbortController();
      const running = indexPos(getStore(), settings, { logger: silent, signal: controller.signal });
      running.catch(() => undefined);
      try {
        await waitFor(async () => (await indexedTip()) === (await headHash()) && (await get('pos/transactions/pending')).pending_source.following, 'following');
        await anvil.rpc('evm_setAutomine', [false]);
        const sentFrom = Date.now() - 1000;
        const c = compileContracts();
        const sender = dev[1]!;
        const gapped = dev[5]!;
        const next = Number(await anvil.rpc<string>('eth_getTransactionCount', [sender, 'pending']));
        const sent = [
          // From a sender of its own, so that dropping it leaves the others executable.
          await sendTx(anvil, { from: dev[3]!, to: dev[2]!, value: 10n ** 18n + 1n }),
          await sendTx(anvil, { from: sender, to: dev[2]!, value: 12n, nonce: next }),
          // Empty input to a contract with a receive(): a call by the target's code.
          await sendTx(anvil, { from: sender, to: traffic.contracts.vault, value: 5n, nonce: next + 1 }),
          await sendTx(anvil, { from: sender, to: traffic.contracts.token, data: callData(c.Token!, 'transfer', [dev[3]!, 7n]), nonce: next + 2, gas: 100_000n }),
          await sendTx(anvil, { from: dev[4]!, data: deployData(c.Splitter!), gas: 2_000_000n, maxPriorityFeePerGas: 3n }),
          // A nonce gap: it waits, queued.
          await sendTx(anvil, { from: gapped, to: dev[2]!, value: 9n, nonce: Number(await anvil.rpc<string>('eth_getTransactionCount', [gapped, 'pending'])) + 3 }),
        ];
        const pool = await nodePool();
        assert.deepEqual(pool.map((p) => p.tx_hash), [...sent].sort());
        assert.deepEqual(pool.map((p) => p.tx_type).sort(), ['contract_call', 'contract_call', 'contract_create', 'transfer', 'transfer', 'transfer']);
        await waitFor(async () => (await listed()).items.length === sent.length, 'the pool listed');
        const first = await listed();
        assert.deepEqual(first.items, pool);
        const readAt = Date.now() + 1000;
        for (const hash of sent) assert.ok(first.seen.get(hash)! >= iso(sentFrom) && first.seen.get(hash)! <= iso(readAt), `${hash} first seen ${first.seen.get(hash)}`);
        assert.deepEqual([first.body.total, first.body.pending_source.method, first.body.pending_source.pool_size], [sent.length, 'txpool_content', sent.length]);

        // The node drops one: it leaves the list at the next read; the others keep when they were first seen.
        assert.equal(await anvil.rpc('anvil_dropTransaction', [sent[0]]), sent[0]);
        await waitFor(async () => !(await listed()).seen.has(sent[0]!), 'the dropped transaction gone');
        const afterDrop = await listed();
        assert.deepEqual(afterDrop.items, await nodePool());
        for (const hash of sent.slice(1)) assert.equal(afterDrop.seen.get(hash), first.seen.get(hash));

        // A block mines the executable ones: once it is indexed they are transactions, not pending; the queued one stays.
        await anvil.rpc('evm_mine');
        await waitFor(async () => (await indexedTip()) === (await headHash()), 'the block indexed');
        const afterBlock = await listed();
        assert.deepEqual(afterBlock.items.map((i) => i.tx_hash), [sent[5]]);
        assert.equal(afterBlock.items[0]!.pool, 'queued');
        for (const hash of sent.slice(1, 5)) assert.equal((await get(`pos/transactions/${hash}`)).tx_hash, hash);
        await waitFor(async () => JSON.stringify((await listed()).items) === JSON.stringify(await nodePool()), 'the pool read after the block');
      } finally {
        controller.abort();
        await running.catch(() => undefined);
        await node?.stop();
        await emptyPool();
        await anvil.rpc('evm_setAutomine', [true]);
      }
      const stopped = await get('pos/transactions/pending');
      assert.deepEqual([stopped.items, stopped.pending_source.following], [[], false]);
      assert.match(stopped.pending_source.reason, /^the indexer stopped following the node at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d UTC$/);
    });
  }

  it('goes on indexing when the node does not serve its pool (go-qrl without the txpool module): the list and the health say why', async () => {
    const node = await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'debug', 'net', 'web3'] });
    const settings = { ...resolveIndexPosSettings({ rpc: node.url, progress: false }, {}), follow: true, pollIntervalMs: 50, pendingIntervalMs: 50 };
    const controller = new AbortController();
    const running = indexPos(getStore(), settings, { logger: silent, signal: controller.signal });
    running.catch(() => undefined);
    const refused = 'txpool_content: the method txpool_content does not exist/is not available';
    try {
      await waitFor(async () => (await get('pos/transactions/pending')).pending_source.error === refused, 'the refusal recorded');
      const body = await get('pos/transactions/pending');
      assert.deepEqual([body.items, body.pending_source.following, body.pending_source.method], [[], true, 'txpool_content']);
      assert.equal(body.pending_source.reason, `the node's pool could not be read: ${refused}`);
      assert.equal(body.pending_source.last_read_time, null);
      const health = await get('analytics/network/health');
      const pos = Object.entries(health.chains).find(([key]) => key.startsWith('pos:'))![1] as { pending_pool: Record<string, unknown> };
      // The same object, but for the time of the last poll, which moves every 50 ms.
      const { last_poll_time: _a, ...inHealth } = pos.pending_pool;
      const { last_poll_time: _b, ...inList } = body.pending_source;
      assert.deepEqual(inHealth, inList);
      // The chain is not stopped by it.
      await sendTx(anvil, { from: dev[1]!, to: dev[2]!, value: 3n });
      await waitFor(async () => (await indexedTip()) === (await headHash()), 'the next block indexed');
    } finally {
      controller.abort();
      await running.catch(() => undefined);
      await node.stop();
    }
  });
});
