/**
 * GET /{chain}/transactions/pending on both stores, over pending sets written as a poll writes them
 * (src/ingest/pending-store.ts): the order, cursor paging, exact amounts, CSV, the 400s, the route
 * beside /transactions/{hash}, and the empty list with its reason when no indexer follows the node
 * (none ever did, it stopped, it polls no more, or its reads fail). The indexers' own polling of
 * real nodes is test/indexer/pos-pending.test.ts and pow-pending.test.ts.
 */
import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import sql from 'sql-template-tag';
import { CHAINS, type ChainId } from '../../../src/chain/chains.ts';
import type { PoolTx } from '../../../src/chain/model.ts';
import { PENDING_CAP, recordPollFailure, recordPollStopped, recordPollSuccess, writePending } from '../../../src/ingest/pending-store.ts';
import { AUTH } from '../../support/app.ts';
import { addr, hash } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { getter, iso, walk } from './fixtures.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const BIG = 10n ** 30n + 7n;

/** A pool of each chain: what the nodes' readers give (sources/*\/pool.ts). */
function poolOf(chain: ChainId): PoolTx[] {
  if (chain === 'pos') {
    return Array.from({ length: 7 }, (_, i) => ({
      hash: '0x' + hash('pending pos', i), pool: i === 6 ? ('queued' as const) : ('pending' as const), type: i === 5 ? ('contract_create' as const) : ('transfer' as const),
      typeEvm: 2, from: addr('pos', `sender ${i % 3}`), to: i === 5 ? null : addr('pos', `to ${i}`), value: BIG + BigInt(i), recipientCount: 1,
      fee: null, nonce: 10 + i, gas: 21_000 + i, gasPrice: 3_000_000_000n + BigInt(i), maxFeePerGas: 3_000_000_000n + BigInt(i), maxPriorityFeePerGas: 1_000_000_000n,
    }));
  }
  return Array.from({ length: 5 }, (_, i) => ({
    hash: hash('pending pow', i), pool: 'pending' as const, type: i === 4 ? ('message' as const) : ('transfer' as const), typeEvm: null,
    from: addr('pow', `sender ${i}`), to: i === 0 ? null : addr('pow', `to ${i}`), value: i === 4 ? 0n : 1_000_000_000n * BigInt(i + 1), recipientCount: i === 0 ? 3 : 1,
    fee: 1000n + BigInt(i), nonce: i + 1, gas: null, gasPrice: null, maxFeePerGas: null, maxPriorityFeePerGas: null,
  }));
}

/** An item by the route's definition: the pool transaction's fields, amounts as decimal strings. */
function expectedItem(tx: PoolTx, firstSeen: number) {
  const text = (v: bigint | null) => (v === null ? null : v.toString());
  return {
    tx_hash: tx.hash, first_seen: iso(firstSeen), pool: tx.pool, tx_type: tx.type, tx_type_evm: tx.typeEvm, from_addr: tx.from, to_addr: tx.to,
    value: tx.value.toString(), recipient_count: tx.recipientCount, fee: text(tx.fee), nonce: tx.nonce, gas: tx.gas, gas_price: text(tx.gasPrice),
    max_fee_per_gas: text(tx.maxFeePerGas), max_priority_fee_per_gas: text(tx.maxPriorityFeePerGas),
  };
}

describeSeededApp(
  'GET /{chain}/transactions/pending',
  async () => undefined,
  (s) => {
    const get = getter(s.t);
    /** Each chain's pool written in three polls 10 s apart (so three first_seen times), the last read `readAgo` seconds ago. */
    let expected: Record<ChainId, ReturnType<typeof expectedItem>[]>;
    const interval = 2000;

    beforeEach(async () => {
      await s.store().query('test.clear', sql`DELETE FROM pending_txs`);
      await s.store().query('test.clear_polls', sql`DELETE FROM pending_polls`);
      const now = nowSeconds();
      expected = { pow: [], pos: [] };
      for (const chain of CHAINS) {
        const pool = poolOf(chain);
        const seen = new Map<string, number>();
        for (const [k, upTo] of [[0, 2], [1, 4], [2, pool.length]] as const) {
          const at = now - 30 + 10 * k;
          await writePending(s.store(), chain, { txs: pool.slice(0, upTo), complete: true, poolSize: upTo }, at);
          for (const tx of pool.slice(0, upTo)) if (!seen.has(tx.hash)) seen.set(tx.hash, at);
        }
        await recordPollSuccess(s.store(), chain, chain === 'pos' ? 'txpool_content' : 'GetLatestData', interval, now, pool.length);
        expected[chain] = pool
          .map((tx) => ({ tx, at: seen.get(tx.hash)! }))
          .sort((a, b) => b.at - a.at || (a.tx.hash < b.tx.hash ? 1 : -1))
          .map(({ tx, at }) => expectedItem(tx, at));
      }
    });

    it('lists the pool newest first seen first (then by hash), with each field and the exact amounts; the envelope says where it comes from', async () => {
      for (const chain of CHAINS) {
        const body = await get(`${chain}/transactions/pending`);
        assert.deepEqual(body.items, expected[chain]);
        assert.equal(body.total, expected[chain].length);
        assert.deepEqual([body.chain, body.limit, body.has_more, body.next_cursor], [chain, 25, false, null]);
        const [poll] = await s.store().query<{ polled_ts: string }>('test.poll', sql`SELECT polled_ts::text FROM pending_polls WHERE chain = ${chain}`);
        assert.deepEqual(body.pending_source, {
          following: true, reason: null, method: chain === 'pos' ? 'txpool_content' : 'GetLatestData', interval_seconds: 2, stale_after_seconds: 60,
          last_poll_time: iso(Number(poll!.polled_ts)), last_read_time: iso(Number(poll!.polled_ts)), pool_size: expected[chain].length, cap: PENDING_CAP, error: null,
        });
      }
      const pos = await get('pos/transactions/pending');
      assert.ok(pos.items.some((item: { value: string }) => item.value === BIG.toString()));
    });

    it('pages by cursor through every pending transaction once, and the cursor is bound to its chain', async () => {
      for (const chain of CHAINS) {
        const { items, pages, totals } = await walk(get, `${chain}/transactions/pending`, 2);
        assert.deepEqual(items, expected[chain]);
        assert.equal(pages, Math.ceil(expected[chain].length / 2));
        assert.ok(totals.every((n) => n === expected[chain].length));
      }
      const first = await get('pos/transactions/pending?limit=2');
      const named = async (path: string, param: string) => assert.deepEqual((await get(path, 400)).errors.map((e: { param: string }) => e.param), [param], path);
      await named(`pow/transactions/pending?cursor=${encodeURIComponent(first.next_cursor)}`, 'cursor');
      const list = await get('pos/transactions?limit=1');
      await named(`pos/transactions/pending?cursor=${encodeURIComponent(list.next_cursor)}`, 'cursor');
      await named('pos/transactions/pending?cursor=nonsense', 'cursor');
      await named('pos/transactions/pending?limit=0', 'limit');
      await named('pos/transactions/pending?limit=101', 'limit');
      await get('nochain/transactions/pending', 404);
    });

    it('is its own route beside /transactions/{hash}: a malformed hash there is still a 400, a pending one a 404', async () => {
      const bad = await get('pos/transactions/pendingx', 400);
      assert.deepEqual(bad.errors.map((e: { param: string }) => e.param), ['hash']);
      await get(`pos/transactions/${expected.pos[0]!.tx_hash}`, 404);
      assert.equal((await get('pow/transactions/pending')).items.length, expected.pow.length);
    });

    it('answers CSV: a row per item, the item\'s columns', async () => {
      const res = await s.t().app.inject({ url: '/api/v1/pow/transactions/pending', headers: { ...AUTH, accept: 'text/csv' } });
      assert.equal(res.statusCode, 200, res.body);
      const lines = res.body.trimEnd().split('\r\n');
      assert.deepEqual(lines[0]!.split(','), Object.keys(expected.pow[0]!));
      assert.deepEqual(lines.slice(1).map((line) => line.split(',')[0]), expected.pow.map((item) => item.tx_hash));
      assert.equal(lines[1]!.split(',')[7], expected.pow[0]!.value);
    });

    it('is empty, saying why, when no indexer follows: none ever did, it stopped, it has not polled for three intervals (60 s at least)', async () => {
      const now = nowSeconds();
      const emptyWith = async (chain: ChainId, reason: string, following: boolean) => {
        const body = await get(`${chain}/transactions/pending`);
        assert.deepEqual([body.items, body.total, body.has_more, body.next_cursor], [[], 0, false, null]);
        assert.deepEqual([body.pending_source.following, body.pending_source.reason], [following, reason]);
        return body;
      };
      await s.store().query('test.forget_pow', sql`DELETE FROM pending_polls WHERE chain = 'pow'`);
      await emptyWith('pow', 'no indexer has followed this chain\'s node: no read of its pool is recorded', false);

      await recordPollStopped(s.store(), 'pos', now - 5);
      await emptyWith('pos', `the indexer stopped following the node at ${iso(now - 5)} UTC`, false);

      await recordPollSuccess(s.store(), 'pos', 'txpool_content', interval, now - 61, 7);
      await emptyWith('pos', `no indexer has polled the node's pool since ${iso(now - 61)} UTC (more than 60 s ago)`, false);
      // Three intervals when they are longer than 20 s.
      await recordPollSuccess(s.store(), 'pos', 'txpool_content', 40_000, now - 61, 7);
      assert.equal((await get('pos/transactions/pending')).items.length, expected.pos.length);
    });

    it('is empty while the indexer follows but cannot read the pool, with the node\'s error', async () => {
      const now = nowSeconds();
      await recordPollSuccess(s.store(), 'pos', 'txpool_content', interval, now - 100, 7);
      await recordPollFailure(s.store(), 'pos', 'txpool_content', interval, now - 1, 'txpool_content: the method txpool_content does not exist/is not available');
      const body = await get('pos/transactions/pending');
      assert.deepEqual([body.items, body.total], [[], 0]);
      assert.deepEqual(body.pending_source, {
        following: true,
        reason: `the node's pool is not read since ${iso(now - 100)} UTC: txpool_content: the method txpool_content does not exist/is not available`,
        method: 'txpool_content', interval_seconds: 2, stale_after_seconds: 60, last_poll_time: iso(now - 1), last_read_time: iso(now - 100), pool_size: 7,
        cap: PENDING_CAP, error: 'txpool_content: the method txpool_content does not exist/is not available',
      });
      // A failure within the bound of the last read still shows what that read saw.
      await recordPollSuccess(s.store(), 'pos', 'txpool_content', interval, now - 10, 7);
      await recordPollFailure(s.store(), 'pos', 'txpool_content', interval, now, 'txpool_content: fetch failed');
      const shown = await get('pos/transactions/pending');
      assert.deepEqual([shown.items.length, shown.pending_source.reason, shown.pending_source.error], [expected.pos.length, null, 'txpool_content: fetch failed']);
    });
  },
  { own: true },
);
