import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { beginBulkLoad } from '../../src/ingest/bulk.ts';
import { refreshRollups } from '../../src/ingest/refresh.ts';
import type { Store } from '../../src/store/store.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { expectedFromBlocks } from '../support/expected.ts';
import { assertRanksMatch } from '../support/rollup-assertions.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

const T0 = Date.UTC(2026, 0, 1, 22, 0, 0) / 1000;

/** A pos chain over three days with every kind of movement, and a reorg of depth 2. */
function posChain(): ChainBuilder {
  const c = new ChainBuilder('pos', T0, 3600);
  const [alice, bob, carol, dave, contract, token] = ['alice', 'bob', 'carol', 'dave', 'contract', 'token'].map((n) => addr('pos', n)) as string[];
  c.block((b) => b.genesis([{ address: alice!, amount: coins('pos', 1000) }, { address: bob!, amount: coins('pos', 50) }]));
  c.block((b) => {
    b.transfer(alice!, bob!, coins('pos', 10));
    b.transfer(alice!, carol!, coins('pos', 5), { tip: 5n });
    b.create(bob!, contract!, 1000n);
  });
  c.block((b) => {
    b.contractCall(carol!, contract!, coins('pos', 2), [{ to: dave!, value: coins('pos', 1) }, { to: carol!, value: 5n }]);
    b.transfer(bob!, bob!, 7n); // a self-transfer
    b.transfer(dave!, alice!, coins('pos', 1), { status: 0 }); // reverted: fee only
    b.withdrawal(dave!, 123_456_789n);
  });
  c.block((b) => {
    const call = b.contractCall(alice!, token!, 0n, []);
    b.token(token!, 'Test', 'TST', 18);
    b.tokenTransfer(call, token!, 'Q' + '0'.repeat(40), alice!, 1000n); // mint
    b.tokenTransfer(call, token!, alice!, bob!, 300n);
    b.mint(carol!, coins('pos', 3), 'acct-1');
  });
  for (let i = 0; i < 40; i++) c.block((b) => void (i % 3 === 0 && b.transfer(bob!, carol!, BigInt(i + 1))));
  // A fork of depth 2 replaces the last two blocks with different ones.
  c.fork(2, [(b) => void b.transfer(carol!, dave!, 99n), (b) => void b.transfer(alice!, dave!, 1n)]);
  for (let i = 0; i < 10; i++) c.block((b) => void b.transfer(alice!, bob!, BigInt(1000 + i)));
  return c;
}

/** A pow chain: coinbase, multi-recipient transfers, slaves, messages, a reorg of depth 1. */
function powChain(): ChainBuilder {
  const c = new ChainBuilder('pow', T0, 60 * 53);
  const [pool, m1, m2, user, slave] = ['pool', 'm1', 'm2', 'user', 'slave'].map((n) => addr('pow', n)) as string[];
  c.block((b) => b.genesis([{ address: user!, amount: coins('pow', 500) }]));
  for (let i = 0; i < 60; i++) {
    c.block((b) => {
      if (i % 5 === 0) b.multiTransfer(pool!, [{ to: m1!, amount: 1000n }, { to: m2!, amount: 2000n }, { to: m1!, amount: 5n }]);
      if (i === 3) b.slave(user!, [slave!]);
      if (i === 7) b.message(user!, 100n, { signer: slave!, masterAddr: user!, otsIndex: 0 });
      if (i % 7 === 1) b.transfer(user!, m2!, 10_000n, { ots: i });
      b.coinbase(pool!, 6_000_000_000n);
    });
  }
  c.fork(1, [(b) => void b.coinbase(m1!, 6_000_000_000n)]);
  c.block((b) => void b.coinbase(pool!, 6_000_000_000n));
  return c;
}

async function assertMatchesOracle(store: Store, chain: ChainId, blocks: CanonicalBlock[]) {
  const expected = expectedFromBlocks(chain, blocks);
  const rows = await store.query<Record<string, any>>('test.summary', sql`SELECT * FROM address_summary WHERE chain = ${chain}`);
  const actual = new Map(rows.map((r) => [r.address as string, r]));
  assert.deepEqual([...actual.keys()].sort(), [...expected.addresses.keys()].sort(), 'the same addresses');
  for (const [address, e] of expected.addresses) {
    const a = actual.get(address)!;
    const label = `${chain} ${address.slice(0, 10)}`;
    assert.equal(a.balance, e.balance.toString(), `${label} balance`);
    assert.equal(a.total_received, e.totalReceived.toString(), `${label} received`);
    assert.equal(a.total_sent, e.totalSent.toString(), `${label} sent`);
    assert.equal(a.total_fees_paid, e.totalFees.toString(), `${label} fees`);
    assert.equal(a.tx_count, e.txCount, `${label} tx_count`);
    assert.equal(a.tx_received_count, e.txIn, `${label} tx_received_count`);
    assert.equal(a.tx_sent_count, e.txOut, `${label} tx_sent_count`);
    assert.equal(a.first_seen, e.firstSeen, `${label} first_seen`);
    assert.equal(a.last_seen, e.lastSeen, `${label} last_seen`);
    assert.equal(a.first_tx, e.firstTx, `${label} first_tx`);
    assert.equal(a.last_tx, e.lastTx, `${label} last_tx`);
    assert.equal(a.funded_by, e.fundedBy, `${label} funded_by`);
    assert.equal(a.funded_tx, e.fundedTx, `${label} funded_tx`);
    assert.equal(a.withdrawal_count, e.withdrawalCount, `${label} withdrawals`);
    assert.equal(a.withdrawal_total, e.withdrawalTotal.toString(), `${label} withdrawal total`);
    assert.equal(a.internal_tx_count, e.internalCount, `${label} internal`);
    assert.equal(a.master_address, e.masterAddress, `${label} master`);
    assert.equal(a.slave_count, e.slaveCount, `${label} slaves`);
  }
  const daily = await store.query<Record<string, any>>('test.daily', sql`SELECT * FROM address_daily WHERE chain = ${chain}`);
  const expectedDays = [...expected.daily].flatMap(([address, days]) => [...days].map(([day, d]) => ({ address, day, ...d })));
  assert.equal(daily.length, expectedDays.length, 'address_daily rows');
  for (const e of expectedDays) {
    const a = daily.find((r) => r.address === e.address && r.day === e.day);
    assert.ok(a, `daily row ${e.address.slice(0, 10)} ${e.day}`);
    assert.equal(a.received, e.received.toString());
    assert.equal(BigInt(a.sent) + BigInt(a.fees), e.sentWithFees);
    assert.equal(a.tx_in, e.txIn);
    assert.equal(a.tx_out, e.txOut);
  }
  const tokens = await store.query<Record<string, any>>('test.tokens', sql`SELECT * FROM token_balances WHERE chain = ${chain}`);
  assert.equal(tokens.length, expected.tokens.size);
  for (const t of tokens) assert.equal(t.balance, expected.tokens.get(`${t.address}|${t.contract}`)?.toString());
  const pairs = await store.query<Record<string, any>>('test.pairs', sql`SELECT address, counterparty, tx_count FROM address_counterparties WHERE chain = ${chain}`);
  const expectedPairs = [...expected.counterparties].flatMap(([a, m]) => [...m].map(([b, n]) => `${a}|${b}|${n}`)).sort();
  assert.deepEqual(pairs.map((p) => `${p.address}|${p.counterparty}|${p.tx_count}`).sort(), expectedPairs);
  const heat = await store.query<Record<string, any>>('test.heat', sql`SELECT * FROM address_heatmap WHERE chain = ${chain}`);
  const expectedHeat = [...expected.heatmap].flatMap(([a, m]) => [...m].map(([slot, c]) => `${a}|${slot}|${c.in}|${c.out}|${c.total}`)).sort();
  assert.deepEqual(heat.map((h) => `${h.address}|${h.day_of_week}:${h.hour_of_day}|${h.tx_in}|${h.tx_out}|${h.tx_total}`).sort(), expectedHeat);
  const [stats] = await store.query<Record<string, any>>('test.stats', sql`SELECT * FROM chain_stats WHERE chain = ${chain}`);
  assert.equal(stats!.address_count, expected.addresses.size);
  assert.equal(stats!.block_count, expected.blocks);
  assert.equal(stats!.tx_count, expected.transactions);
  assert.equal(stats!.address_tx_touches, [...expected.addresses.values()].reduce((n, a) => n + a.txCount, 0));
  await assertRanksMatch(store, chain, expected, blocks.at(-1)?.timestamp ?? null);
  const [daysum] = await store.query<Record<string, any>>('test.chain_daily', sql`SELECT sum(block_count)::int AS blocks, sum(tx_count)::int AS txs, sum(burned) AS burned FROM chain_daily WHERE chain = ${chain}`);
  assert.equal(daysum!.blocks, expected.blocks);
  assert.equal(daysum!.txs, expected.transactions);
  assert.equal(daysum!.burned, expected.burned.toString());
}

describeEachStore('ingest pipeline', (getStore, kind) => {
  for (const [name, build] of [['pos', posChain], ['pow', powChain]] as const) {
    it(`${name}: rollups match the oracle after incremental batches and a reorg`, async () => {
      const c = build();
      const result = await ingest(getStore(), c.source(), { batchBlocks: 3 });
      assert.equal(result.height, c.tip!.height);
      assert.equal(result.reorgs, 1);
      await assertMatchesOracle(getStore(), name, c.blocks);
      const reorgs = await getStore().query<Record<string, any>>('test.reorgs', sql`SELECT * FROM reorgs WHERE chain = ${name}`);
      assert.equal(reorgs.length, 1);
    });
  }

  it('a replayed range changes nothing', async () => {
    const c = posChain();
    const before = await getStore().query('test.snapshot', sql`SELECT * FROM address_summary WHERE chain = 'pos' ORDER BY address`);
    const result = await ingest(getStore(), c.canonicalSource(), { fromHeight: 0 });
    assert.equal(result.blocks, 0);
    assert.equal(result.reorgs, 0);
    assert.deepEqual(await getStore().query('test.snapshot', sql`SELECT * FROM address_summary WHERE chain = 'pos' ORDER BY address`), before);
  });

  it('a bulk load gives the same rollups as incremental batches', async () => {
    const store = await openTestStore(kind);
    try {
      const bulk = await beginBulkLoad(store);
      const pos = posChain();
      const pow = powChain();
      await ingest(store, pos.source(), { bulk: true, batchBlocks: 5 });
      await ingest(store, pow.source(), { bulk: true, batchBlocks: 5 });
      await bulk.finish();
      await assertMatchesOracle(store, 'pos', pos.blocks);
      await assertMatchesOracle(store, 'pow', pow.blocks);
      // Every index the bulk load dropped is back, as the migrations define it.
      const fresh = await openTestStore(kind);
      try {
        const indexes = sql`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`;
        const expected = await fresh.query<{ indexname: string }>('test.indexes', indexes);
        assert.ok(expected.some((index) => index.indexname === 'address_counterparties_by_sent'));
        assert.ok(expected.some((index) => index.indexname === 'blocks_miner'), 'the block list\'s producer index, rebuilt like the others');
        assert.deepEqual(await store.query('test.indexes', indexes), expected);
      } finally {
        await fresh.close();
      }
    } finally {
      await store.close();
    }
  });
});

describeEachStore('quarry refresh', (_getStore, kind) => {
  for (const range of [undefined, { fromHeight: 20, toHeight: 30 }] as const) {
    it(`rebuilds ${range ? 'what a range touched' : 'every rollup'} from the raw rows after the rollups were damaged`, async () => {
      const store = await openTestStore(kind);
      try {
        const c = posChain();
        await ingest(store, c.source(), { batchBlocks: 7 });
        const touched = range ? expectedFromBlocks('pos', c.blocks.filter((b) => b.height >= 20 && b.height <= 30)) : undefined;
        const victims = touched ? [...touched.addresses.keys()] : [addr('pos', 'alice')];
        // Damage the rollups of addresses the range touched, the way a definition bug would.
        await store.query('test.damage', sql`UPDATE address_summary SET balance = balance + 5, tx_count = tx_count + 1 WHERE chain = 'pos' AND address = ANY(${victims}::text[])`);
        await store.query('test.damage', sql`DELETE FROM address_daily WHERE chain = 'pos' AND address = ANY(${victims}::text[])`);
        await store.query('test.damage', sql`UPDATE chain_stats SET address_tx_touches = 0`);
        const result = await refreshRollups(store, 'pos', { ...range, step: 9 });
        assert.ok(result);
        await assertMatchesOracle(store, 'pos', c.blocks);
      } finally {
        await store.close();
      }
    });
  }
});
