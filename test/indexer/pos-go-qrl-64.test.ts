/**
 * End to end on a 64-byte QRL 2.0 network: Quarry indexes the 64-byte go-qrl (test/fakes/go-qrl
 * with `addressBytes: 64`: the fork rgeraldes24/go-qrl 7f427122d, `Q` + 128 hex addresses printed
 * QIP-55 mixed case, 64-byte log topics and ABI words) and a qrysm beacon whose credentials are
 * 64-byte execution addresses (test/fakes/beacon). Learning the width from the node, it must
 * store every address as `Q` + 128 lowercase hex and agree with the node on every figure
 * (test/support/go-qrl-oracle.ts, asked as a 64-byte go-qrl client asks), decode the tokens'
 * VM64 metadata, record the width with the network's facts, and answer the per-address routes at
 * that width: the node's mixed-case form as lowercase, a 20-byte address a 400. The 20-byte twin is
 * pos-go-qrl.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { startAnvil, type Anvil } from '../support/anvil.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../fixtures/traffic.ts';
import { startGoQrl, type GoQrlNode } from '../fakes/go-qrl/server.ts';
import { createBeaconModel, startFakeBeacon, type FakeBeacon, type FakeBeaconConfig } from '../fakes/beacon/server.ts';
import { QRYSM_BEACON } from '../support/expected-staking.ts';
import { assertMatchesNode, canonical } from '../support/go-qrl-oracle.ts';

const COINBASE = '0x00000000000000000000000000000000c0ffee03';
const silent = pino({ level: 'silent' });
const WIDE = /^Q[0-9a-f]{128}$/;
const BEACON: FakeBeaconConfig = { ...QRYSM_BEACON, addressBytes: 64 };

describeOnOneStore('quarry index pos against a 64-byte go-qrl and qrysm', (getStore) => {
  let anvil: Anvil;
  let node: GoQrlNode;
  let beacon: FakeBeacon;
  let traffic: Traffic;

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    await anvil.rpc('anvil_setCoinbase', [COINBASE]);
    node = await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'debug', 'net', 'web3'], addressBytes: 64 });
    beacon = await startFakeBeacon(BEACON);
    traffic = await setUpTraffic(anvil, { accounts: 30 });
    await driveTraffic(anvil, traffic, { blocks: 10, perBlock: 15 });
  });
  after(async () => {
    await beacon?.close();
    await node?.stop();
    await anvil?.stop();
  });

  it('speaks 64-byte go-qrl: full-width miner, QIP-55 addresses, 64-byte topics', async () => {
    assert.equal((await node.rpc<{ miner: string }>('qrl_getBlockByNumber', ['0x0', false])).miner, `Q${'0'.repeat(128)}`);
    const block = await node.rpc<Record<string, any>>('qrl_getBlockByNumber', ['latest', true]);
    assert.equal(canonical(block.miner), canonical(node.address(COINBASE)));
    assert.match(block.transactions[0].from, /^Q[0-9a-fA-F]{128}$/);
    assert.match(block.transactions[0].from, /[A-F]/);
    const receipts = await node.rpc<{ logs: { topics: string[] }[] }[]>('qrl_getBlockReceipts', ['latest']);
    const topics = receipts.flatMap((r) => r.logs.flatMap((l) => l.topics));
    assert.ok(topics.length > 0);
    for (const t of topics) assert.match(t, /^0x[0-9a-f]{128}$/);
  });

  it('indexes to the head at 64 bytes; the store agrees with the node', async () => {
    const store = getStore();
    const result = await indexPos(store, resolveIndexPosSettings({ rpc: node.url, beacon: beacon.url, progress: false }, {}), { logger: silent });
    assert.equal(result.height, Number(await node.rpc<string>('qrl_blockNumber')));
    await assertMatchesNode(store, node, 64);

    // The node's own (mixed-case) form of every address it printed in a transaction is what the store holds, lowercased.
    const head = Number(await node.rpc<string>('qrl_blockNumber'));
    const printed = new Set<string>();
    for (let h = head - 3; h <= head; h++) {
      const b = await node.rpc<{ transactions: { from: string; to: string | null }[] }>('qrl_getBlockByNumber', [`0x${h.toString(16)}`, true]);
      for (const tx of b.transactions) for (const a of [tx.from, tx.to]) if (a !== null) printed.add(a);
    }
    assert.ok(printed.size > 10);
    for (const mixed of printed) {
      const [row] = await store.query<{ balance: string }>('t', sql`SELECT balance::text AS balance FROM address_summary WHERE chain = 'pos' AND address = ${canonical(mixed)}`);
      assert.ok(row, `${mixed} is stored lowercase`);
      assert.equal(BigInt(row.balance), BigInt(await node.rpc<string>('qrl_getBalance', [mixed, 'latest'])), `balance of ${mixed}`);
    }

    // Token metadata comes back from VM64 words: a string, a bytes32 and none.
    const tokens = await store.query<{ address: string; name: string | null; symbol: string | null; decimals: number | null }>(
      't',
      sql`SELECT address, name, symbol, decimals FROM token_contracts WHERE chain = 'pos' ORDER BY name`,
    );
    assert.deepEqual(
      tokens.map((t) => [t.address, t.name, t.symbol, t.decimals]),
      [
        [canonical(node.address(traffic.contracts.bytes32Token)), 'Maker-ish', 'MKRI', 18],
        [canonical(node.address(traffic.contracts.token)), 'Quarry Test Token', 'QTT', 18],
        [canonical(node.address(traffic.contracts.bareToken)), null, null, null],
      ],
    );

    const facts = await store.query<{ key: string; value: string }>('t', sql`SELECT key, value FROM chain_settings WHERE chain = 'pos' AND key IN ('address_bytes', 'slot_seconds', 'clock_source') ORDER BY key`);
    assert.deepEqual(facts.map((f) => [f.key, f.value]), [['address_bytes', '64'], ['clock_source', 'beacon'], ['slot_seconds', '60']]);

    // Every validator's withdrawal address is the 64-byte execution address of its credentials.
    const model = createBeaconModel(BEACON);
    const validators = await store.query<{ withdrawal_address: string | null }>('t', sql`SELECT withdrawal_address FROM validators WHERE chain = 'pos' ORDER BY validator_index`);
    const headState = model.validatorsAt(BEACON.headSlot);
    assert.equal(validators.length, headState.length);
    for (const [i, v] of validators.entries()) {
      const credentials = String(headState[i]!.validator.withdrawal_credentials);
      assert.equal(credentials.length, 2 + 128);
      assert.equal(v.withdrawal_address, `Q${credentials.slice(2).toLowerCase()}`);
    }
  });

  it('answers the per-address routes with 64-byte addresses', async () => {
    const t = await buildTestApp(getStore());
    try {
      const inject = (url: string) => t.app.inject({ url: `/api/v1/pos/addresses/${url}`, headers: AUTH });
      const get = async (url: string) => {
        const res = await inject(url);
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        return res.json();
      };
      const token = node.address(traffic.contracts.token);
      const holder = node.address(traffic.accounts[0]!);
      const lower = canonical(holder);
      assert.notEqual(holder, lower, 'the node prints a mixed-case form');

      const detail = await get(lower);
      assert.equal(detail.address, lower);
      assert.equal(detail.tx_sent_count, Number(await node.rpc<string>('qrl_getTransactionCount', [holder, 'latest'])));
      assert.deepEqual(await get(holder), detail);

      const txs = await get(`${lower}/transactions?limit=100`);
      assert.ok(txs.items.length > 0);
      for (const tx of txs.items as { from_addr: string; to_addr: string | null }[]) {
        assert.match(tx.from_addr, WIDE);
        if (tx.to_addr !== null) assert.match(tx.to_addr, WIDE);
        assert.ok(tx.from_addr === lower || tx.to_addr === lower);
      }
      assert.deepEqual(await get(`${holder}/transactions?limit=100`), txs);

      const holdings = await get(`${lower}/token-holdings`);
      assert.equal(holdings.address, lower);
      const qtt = (holdings.items as { token_contract: string; balance_raw: string }[]).find((i) => i.token_contract === canonical(token));
      assert.ok(qtt, JSON.stringify(holdings.items));
      assert.equal(BigInt(qtt.balance_raw), BigInt(await node.rpc<string>('qrl_call', [{ to: token, data: `0x70a08231${holder.slice(1)}` }, 'latest'])));
      for (const item of holdings.items as { token_contract: string }[]) assert.match(item.token_contract, WIDE);
      assert.deepEqual(await get(`${holder}/token-holdings`), holdings);

      // A 20-byte address (the Anvil account's own) is of the wrong width for this network.
      const res = await inject(`Q${traffic.accounts[0]!.slice(2)}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().errors[0].param, 'address');
    } finally {
      await t.close();
    }
  });
});
