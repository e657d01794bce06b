/**
 * End to end against QRL 2.0's execution surface: Quarry indexes a go-qrl node (test/fakes/go-qrl,
 * go-qrl v0.3.0's JSON-RPC in front of Anvil: `qrl_` methods only, `Q` addresses, type-2
 * transactions with ML-DSA-87 keys and signatures, no `eth_`, no `trace_`), finding the namespace
 * itself. What it stores must equal what that node says, asked as a go-qrl client asks: every
 * balance (qrl_getBalance), token holding (balanceOf by qrl_call), internal transfer (derived here
 * from the node’s callTracer frames, debug_traceBlockByNumber; test/support/go-qrl-oracle.ts), the
 * burned fees and the counts.
 * Then again after a reorg while following. The Ethereum twin is pos-anvil.test.ts.
 *
 * A node without the `debug` module (go-qrl's default HTTP modules are `net,web3`) is refused at
 * start with what to enable, unless the run is told `--no-traces`; then the store and the API say
 * that internal transfers are not indexed.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { startAnvil, type Anvil } from '../support/anvil.ts';
import { describeOnOneStore, openTestStore } from '../support/stores.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../fixtures/traffic.ts';
import { followThroughReorg } from '../support/pos-follow-reorg.ts';
import { waitFor } from '../support/wait-for.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { startGoQrl, type GoQrlNode } from '../fakes/go-qrl/server.ts';
import { assertMatchesNode } from '../support/go-qrl-oracle.ts';

const COINBASE = '0x00000000000000000000000000000000c0ffee03';
const silent = pino({ level: 'silent' });

describeOnOneStore('quarry index pos against go-qrl (its JSON-RPC before Anvil)', (getStore) => {
  let anvil: Anvil;
  let node: GoQrlNode;
  let traffic: Traffic;

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    await anvil.rpc('anvil_setCoinbase', [COINBASE]);
    // As an operator starts it for Quarry: `gqrl --http --http.api qrl,debug,net,web3`.
    node = await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'debug', 'net', 'web3'] });
    traffic = await setUpTraffic(anvil, { accounts: 30 });
    await driveTraffic(anvil, traffic, { blocks: 12, perBlock: 15 });
  });
  after(async () => {
    await node?.stop();
    await anvil?.stop();
  });

  // No --rpc-namespace: the indexer finds `qrl` itself (the node refuses eth_ and zond_).
  const settings = (extra: Record<string, unknown> = {}) => ({ ...resolveIndexPosSettings({ rpc: node.url, progress: false }, {}), ...extra });

  it('speaks go-qrl: qrl_ names and Q addresses only', async () => {
    await assert.rejects(node.rpc('eth_chainId'), { code: -32601, message: 'the method eth_chainId does not exist/is not available' });
    const [account] = await anvil.rpc<string[]>('eth_accounts');
    await assert.rejects(node.rpc('qrl_getBalance', [account, 'latest']), {
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal hex string without Q prefix into Go value of type common.Address',
    });
    const block = await node.rpc<Record<string, any>>('qrl_getBlockByNumber', ['latest', true]);
    assert.equal(block.miner, 'Q' + COINBASE.slice(2));
    for (const gone of ['uncles', 'sha3Uncles', 'difficulty', 'nonce', 'mixHash']) assert.ok(!(gone in block), gone);
    const tx = block.transactions[0];
    assert.match(tx.from, /^Q[0-9a-f]{40}$/);
    assert.equal((tx.publicKey.length - 2) / 2, 2592);
    assert.equal((tx.signature.length - 2) / 2, 4627);
    for (const gone of ['v', 'r', 's', 'yParity']) assert.ok(!(gone in tx), gone);
  });

  it('indexes to the head and stops; the store agrees with the node', async () => {
    const result = await indexPos(getStore(), settings(), { logger: silent });
    assert.equal(result.height, Number(await node.rpc<string>('qrl_blockNumber')));
    await assertMatchesNode(getStore(), node);
    const tokens = await getStore().query<{ name: string | null }>('t', sql`SELECT name FROM token_contracts WHERE chain = 'pos' ORDER BY name`);
    assert.deepEqual(tokens.map((t) => t.name), ['Maker-ish', 'Quarry Test Token', null]);
  });

  it('resumes where it stopped, then follows the head through a reorg, recording it once', async () => {
    await followThroughReorg({ store: getStore(), anvil, traffic, settings: settings(), logger: silent, headHash: async () => (await node.rpc<{ hash: string }>('qrl_getBlockByNumber', ['latest', false])).hash });
    await assertMatchesNode(getStore(), node);
  });
});

describeOnOneStore('quarry index pos against go-qrl without the debug module', (getStore) => {
  let anvil: Anvil;
  let node: GoQrlNode;
  let traffic: Traffic;

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    // `gqrl --http --http.api qrl,net,web3`: no tracer.
    node = await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'net', 'web3'] });
    traffic = await setUpTraffic(anvil, { accounts: 10 });
    await driveTraffic(anvil, traffic, { blocks: 3, perBlock: 12 });
  });
  after(async () => {
    await node?.stop();
    await anvil?.stop();
  });

  it('a traced run stops, rather than leave a hole, when the node restarts without debug', async () => {
    const traced = await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'debug', 'net', 'web3'] });
    const store = await openTestStore(getStore().kind);
    try {
      const running = indexPos(store, resolveIndexPosSettings({ rpc: traced.url, follow: true, pollInterval: '50', progress: false }, {}), { logger: silent });
      running.catch(() => undefined);
      const head = Number(await traced.rpc<string>('qrl_blockNumber'));
      await waitFor(async () => {
        const [tip] = await store.query<{ height: string }>('t', sql`SELECT max(height)::text AS height FROM blocks WHERE chain = 'pos'`);
        return Number(tip?.height ?? -1) === head;
      }, 'caught up');
      traced.setModules(['qrl', 'net', 'web3']);
      await driveTraffic(anvil, traffic, { blocks: 1, perBlock: 3, seed: 9 });
      await assert.rejects(running, /block \d+: the node no longer serves a tracer/);
      const [tip] = await store.query<{ height: string }>('t', sql`SELECT max(height)::text AS height FROM blocks WHERE chain = 'pos'`);
      assert.equal(Number(tip!.height), head);
    } finally {
      await store.close();
      await traced.stop();
    }
  });

  it('is refused at start, saying how to enable the tracer or go without', async () => {
    await assert.rejects(indexPos(getStore(), resolveIndexPosSettings({ rpc: node.url, progress: false }, {}), { logger: silent }), (error: Error) => {
      assert.match(error.message, new RegExp(`^the node at ${node.url} serves neither debug_traceBlockByNumber nor trace_block`));
      assert.match(error.message, /start it with --http\.api qrl,debug,net,web3/);
      assert.match(error.message, /--no-traces \(QUARRY_POS_TRACES=off\)/);
      return true;
    });
    const [blocks] = await getStore().query<{ n: string }>('t', sql`SELECT count(*)::text AS n FROM blocks WHERE chain = 'pos'`);
    assert.equal(Number(blocks!.n), 0);
  });

  it('with --no-traces indexes without internal transfers, and the store and the API say so', async () => {
    assert.equal(resolveIndexPosSettings({ rpc: node.url, traces: false }, {}).noTraces, true);
    assert.equal(resolveIndexPosSettings({ rpc: node.url }, { QUARRY_POS_TRACES: 'off' }).noTraces, true);
    assert.equal(resolveIndexPosSettings({ rpc: node.url }, {}).noTraces, false);

    const result = await indexPos(getStore(), resolveIndexPosSettings({ rpc: node.url, traces: false, progress: false }, {}), { logger: silent });
    assert.equal(result.height, Number(await node.rpc<string>('qrl_blockNumber')));
    const [internal] = await getStore().query<{ n: string }>('t', sql`SELECT count(*)::text AS n FROM internal_txs WHERE chain = 'pos'`);
    assert.equal(Number(internal!.n), 0);
    const [setting] = await getStore().query<{ value: string }>('t', sql`SELECT value FROM chain_settings WHERE chain = 'pos' AND key = 'internal_transfers'`);
    assert.deepEqual(JSON.parse(setting!.value), { status: 'not_indexed', from_height: 0 });

    const t = await buildTestApp(getStore());
    try {
      const get = async (url: string) => {
        const res = await t.app.inject({ url: `/api/v1/${url}`, headers: AUTH });
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      const health = await get('analytics/network/health');
      assert.equal(health.chains[`pos:${t.config.networks.pos}`].internal_transfers, 'not_indexed');
      assert.equal(health.chains[`pow:${t.config.networks.pow}`].internal_transfers, 'not_applicable');
      // The splitter passes value on to three accounts in many transactions: none of it is listed.
      const splitter = node.address(traffic.contracts.splitter);
      const internalTxs = await get(`pos/addresses/${splitter}/internal-transactions`);
      assert.equal(internalTxs.total, 0);
      assert.equal(internalTxs.internal_transfers, 'not_indexed');
      assert.equal(internalTxs.internal_transfers_not_indexed_from, 0);
      assert.equal((await get(`pos/addresses/${splitter}`)).internal_transfers, 'not_indexed');
    } finally {
      await t.close();
    }
  });
});
