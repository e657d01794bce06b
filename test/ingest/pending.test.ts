/**
 * The stored pending set (src/ingest/pending-store.ts) on both stores: newcomers kept with when
 * they were first seen, what a complete read no longer holds dropped, the cap, the pool state, and
 * the block write that deletes what it mines; and the poller's record of each poll.
 */
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import type { PoolRead, PoolReader, PoolTx } from '../../src/chain/model.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { PENDING_CAP, readPendingPoll, writePending } from '../../src/ingest/pending-store.ts';
import { followPending, pollPending } from '../../src/ingest/pending.ts';
import { addr, ChainBuilder, hash } from '../support/chain-builder.ts';
import { describeEachStore } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';

const silent = pino({ level: 'silent' });
const ALICE = addr('pos', 'alice');
const BOB = addr('pos', 'bob');
/** An amount no JavaScript number holds exactly. */
const BIG = 10n ** 30n + 7n;

function posTx(name: string, extra: Partial<PoolTx> = {}): PoolTx {
  return {
    hash: '0x' + hash('pending', name), pool: 'pending', type: 'transfer', typeEvm: 2, from: ALICE, to: BOB, value: BIG, recipientCount: 1,
    fee: null, nonce: 4, gas: 21_000, gasPrice: 2n * BIG, maxFeePerGas: 2n * BIG, maxPriorityFeePerGas: 3n, ...extra,
  };
}

const complete = (txs: PoolTx[]): PoolRead => ({ txs, complete: true, poolSize: txs.length });

describeEachStore('pending transactions in the store', (getStore) => {
  /** The stored rows of `chain`, by hash, every column as the database prints it. */
  const stored = async (chain: ChainId = 'pos') =>
    getStore().query<Record<string, string | null>>(
      'test.pending',
      sql`SELECT tx_hash, first_seen::text, pool, tx_type, tx_type_evm::text, from_addr, to_addr, value::text, recipient_count::text, fee::text,
                 nonce::text, gas::text, gas_price::text, max_fee_per_gas::text, max_priority_fee_per_gas::text
          FROM pending_txs WHERE chain = ${chain} ORDER BY tx_hash`,
    );
  const firstSeen = async () => Object.fromEntries((await stored()).map((r) => [r.tx_hash, Number(r.first_seen)]));

  beforeEach(async () => {
    await getStore().query('test.clear', sql`DELETE FROM pending_txs`);
  });

  it('keeps each transaction of the pool with its fields and when it was first seen; one still there keeps its first_seen', async () => {
    const a = posTx('a');
    const create = posTx('create', { type: 'contract_create', to: null, value: 0n, nonce: 5, gas: 900_000 });
    await writePending(getStore(), 'pos', complete([a, create]), 1000);
    assert.deepEqual(await stored(), [a, create].sort((x, y) => (x.hash < y.hash ? -1 : 1)).map((t) => ({
      tx_hash: t.hash, first_seen: '1000', pool: 'pending', tx_type: t.type, tx_type_evm: '2', from_addr: ALICE, to_addr: t.to, value: t.value.toString(),
      recipient_count: '1', fee: null, nonce: String(t.nonce), gas: String(t.gas), gas_price: (2n * BIG).toString(), max_fee_per_gas: (2n * BIG).toString(),
      max_priority_fee_per_gas: '3',
    })));
    const b = posTx('b');
    const result = await writePending(getStore(), 'pos', complete([a, create, b]), 1010);
    assert.deepEqual(result, { stored: 3, added: 1, removed: 0 });
    assert.deepEqual(await firstSeen(), { [a.hash]: 1000, [create.hash]: 1000, [b.hash]: 1010 });
  });

  it('a complete read drops what the pool no longer holds; a partial one drops nothing', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((n) => posTx(n));
    await writePending(getStore(), 'pos', complete([a!, b!, c!]), 1000);
    await writePending(getStore(), 'pos', { txs: [b!], complete: false, poolSize: null }, 1005);
    assert.deepEqual(Object.keys(await firstSeen()).sort(), [a!.hash, b!.hash, c!.hash].sort());
    assert.deepEqual(await writePending(getStore(), 'pos', complete([b!]), 1010), { stored: 1, added: 0, removed: 2 });
    assert.deepEqual(await firstSeen(), { [b!.hash]: 1000 });
    // An empty pool drops everything.
    await writePending(getStore(), 'pos', complete([]), 1015);
    assert.deepEqual(await stored(), []);
  });

  it('takes the pool state the node gives: a queued transaction whose nonce gap closed is pending', async () => {
    const q = posTx('q', { pool: 'queued', nonce: 9 });
    await writePending(getStore(), 'pos', complete([q]), 1000);
    assert.equal((await stored())[0]!.pool, 'queued');
    await writePending(getStore(), 'pos', complete([{ ...q, pool: 'pending' }]), 1005);
    assert.deepEqual((await stored()).map((r) => [r.pool, r.first_seen]), [['pending', '1000']]);
  });

  it('keeps at most PENDING_CAP per chain: the newcomers beyond it are refused, in the node\'s order, until room is made', async () => {
    const many = Array.from({ length: PENDING_CAP + 10 }, (_, i) => ({ ...posTx(`many-${i}`), value: BigInt(i) }));
    assert.deepEqual(await writePending(getStore(), 'pos', complete(many), 2000), { stored: PENDING_CAP, added: PENDING_CAP, removed: 0 });
    const kept = new Set(Object.keys(await firstSeen()));
    assert.deepEqual([...kept].sort(), many.slice(0, PENDING_CAP).map((t) => t.hash).sort());
    // Three of the kept leave the pool: the first three refused ones take their places, first seen now.
    const next = [...many.slice(3)];
    await writePending(getStore(), 'pos', complete(next), 2010);
    const after = await firstSeen();
    assert.equal(Object.keys(after).length, PENDING_CAP);
    assert.deepEqual(many.slice(PENDING_CAP, PENDING_CAP + 3).map((t) => after[t.hash]), [2010, 2010, 2010]);
    assert.equal(after[many[PENDING_CAP + 3]!.hash], undefined);
    assert.equal(after[many[3]!.hash], 2000);
    // The other chain has its own cap.
    await writePending(getStore(), 'pow', complete([{ ...posTx('pow-one'), hash: hash('pow-one'), type: 'transfer', typeEvm: null, fee: 100n }]), 2020);
    assert.equal((await stored('pow')).length, 1);
  });

  it('a block\'s write deletes the pending transactions it mines, and a poll stores none that a block holds', async () => {
    const chain = new ChainBuilder('pos', 1_700_000_000, 12);
    chain.block((b) => b.genesis([{ address: ALICE, amount: BIG }]));
    chain.block();
    await ingest(getStore(), chain.source());
    const [a, b, c] = ['mined-a', 'mined-b', 'mined-c'].map((n) => posTx(n));
    await writePending(getStore(), 'pos', complete([a!, b!]), 3000);
    // The next block mines a and c.
    chain.block((blk) => {
      blk.transfer(ALICE, BOB, 5n).hash = a!.hash;
      blk.transfer(ALICE, BOB, 6n).hash = c!.hash;
    });
    await ingest(getStore(), chain.source());
    assert.deepEqual(Object.keys(await firstSeen()), [b!.hash]);
    // A node that still lists them (its pool lags its chain) does not bring them back.
    await writePending(getStore(), 'pos', complete([a!, b!, c!]), 3005);
    assert.deepEqual(Object.keys(await firstSeen()), [b!.hash]);
  });

  it('records each poll: a read with the pool\'s size, a failure with its message, the stop when following ends', async () => {
    let fail = false;
    const reads: PoolTx[][] = [[posTx('p1'), posTx('p2')]];
    const reader: PoolReader = {
      chain: 'pos',
      method: 'txpool_content',
      async read() {
        if (fail) throw new Error('the method txpool_content does not exist/is not available');
        return complete(reads.at(-1)!);
      },
    };
    const options = { logger: silent, intervalMs: 5000, now: () => 4000 };
    assert.deepEqual(await pollPending(getStore(), reader, options), { ok: true, stored: 2 });
    assert.deepEqual(await readPendingPoll(getStore(), 'pos'), {
      chain: 'pos', method: 'txpool_content', intervalMs: 5000, polledTs: 4000, okTs: 4000, poolSize: 2, error: null, stoppedTs: null,
    });
    fail = true;
    assert.deepEqual(await pollPending(getStore(), reader, { ...options, now: () => 4005 }), { ok: false });
    assert.deepEqual(await readPendingPoll(getStore(), 'pos'), {
      chain: 'pos', method: 'txpool_content', intervalMs: 5000, polledTs: 4005, okTs: 4000, poolSize: 2,
      error: 'txpool_content: the method txpool_content does not exist/is not available', stoppedTs: null,
    });
    // The set stays what the last read saw.
    assert.equal((await stored()).length, 2);
    fail = false;
    const follower = followPending(getStore(), reader, { logger: silent, intervalMs: 20, now: () => 4010 });
    follower.start();
    await waitFor(async () => (await readPendingPoll(getStore(), 'pos'))?.okTs === 4010, 'a poll of the follower');
    await follower.done();
    assert.deepEqual(await readPendingPoll(getStore(), 'pos'), {
      chain: 'pos', method: 'txpool_content', intervalMs: 20, polledTs: 4010, okTs: 4010, poolSize: 2, error: null, stoppedTs: 4010,
    });
  });
});
