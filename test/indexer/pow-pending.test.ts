/**
 * Pending transactions while the pow indexer follows a fake QRL node (test/fakes/qrl-node) over
 * real gRPC: the generated blocks above the node's head are sent to its pool (more than the 100
 * GetLatestData answers per call, so the indexer pages it). The pending list must be those
 * transactions as the node holds them (their node views: the generator's, in the node's
 * addresses), each first seen between its sending and the read; one the node drops leaves the
 * list, and each block the node then mines takes its transactions out once indexed.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import type { CanonicalTx, SourceItem } from '../../src/chain/model.ts';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { indexPow } from '../../src/ingest/index-pow.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';
import { generatePowItems, startNodeWithChain } from '../fakes/qrl-node/world.ts';
import type { FakeQrlNode } from '../fakes/qrl-node/server.ts';
import { getter, walk } from '../api/transactions/fixtures.ts';

const silent = pino({ level: 'silent' });
/** Blocks 0..FED are on the node at the start; FED+1..LAST are sent to its pool, then mined. */
const FED = 60;
const LAST = 300;

/** A pool transaction as the list shows it (first_seen aside), from its node view. */
function expectedItem(tx: CanonicalTx) {
  return {
    tx_hash: tx.hash, pool: 'pending', tx_type: tx.type, tx_type_evm: null, from_addr: tx.from, to_addr: tx.to, value: tx.value.toString(),
    recipient_count: tx.recipients?.length ?? 1, fee: tx.fee.toString(), nonce: tx.nonce, gas: null, gas_price: null, max_fee_per_gas: null,
    max_priority_fee_per_gas: null,
  };
}

const byHash = <T extends { tx_hash: string }>(items: T[]) => [...items].sort((a, b) => (a.tx_hash < b.tx_hash ? -1 : 1));
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);

describeOnOneStore('pending transactions while the pow indexer follows a QRL node', (getStore) => {
  let items: SourceItem[];
  let node: FakeQrlNode;
  let address: string;
  let t: TestApp;
  const get = getter(() => t);

  before(async () => {
    // A mainnet-shaped history: one block per height, no reorgs.
    items = await generatePowItems({ coinbaseOnlyShare: 0.2, days: 1, scale: 800, toHeight: LAST });
    ({ node, address } = await startNodeWithChain(items.slice(0, FED + 1)));
    t = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '100000' });
  });
  after(async () => {
    await t?.close();
    await node?.stop();
  });

  const indexedTip = async () => (await getStore().query<{ hash: string }>('t', sql`SELECT hash FROM blocks WHERE chain = 'pow' ORDER BY height DESC LIMIT 1`))[0]?.hash;
  const listed = async () => {
    const { items: all } = await walk(get, 'pow/transactions/pending', 100);
    return all as (ReturnType<typeof expectedItem> & { first_seen: string })[];
  };
  const withoutTime = (all: { first_seen: string }[]) => byHash(all.map(({ first_seen: _f, ...rest }) => rest) as ReturnType<typeof expectedItem>[]);

  it('lists what the node has not mined, paging its pool, and lets each go as the node drops or mines it', async () => {
    const settings = { ...resolveIndexPowSettings({ node: address, progress: false }, {}), follow: true, pollIntervalMs: 20, pendingIntervalMs: 50 };
    const controller = new AbortController();
    const running = indexPow(getStore(), settings, { logger: silent, signal: controller.signal });
    running.catch(() => undefined);
    try {
      await waitFor(async () => (await indexedTip()) === node.headHash && (await get('pow/transactions/pending')).pending_source.following, 'following');
      const sentFrom = Date.now() - 1000;
      const sent = items.slice(FED + 1).flatMap((item) => node.submit(item));
      assert.ok(sent.length > 100, `${sent.length} transactions: more than one GetLatestData page`);
      assert.ok(sent.some((tx) => (tx.recipients?.length ?? 1) > 1) && new Set(sent.map((tx) => tx.type)).size >= 3, 'several types, a transfer to several recipients');
      await waitFor(async () => (await listed()).length === sent.length, 'the pool listed', 120_000);
      const first = await listed();
      assert.deepEqual(withoutTime(first), byHash(sent.map(expectedItem)));
      const readAt = Date.now() + 1000;
      for (const item of first) assert.ok(item.first_seen >= iso(sentFrom) && item.first_seen <= iso(readAt), `${item.tx_hash} first seen ${item.first_seen}`);
      const body = await get('pow/transactions/pending');
      assert.deepEqual([body.total, body.pending_source.method, body.pending_source.pool_size], [sent.length, 'GetLatestData', sent.length]);
      const seen = new Map(first.map((item) => [item.tx_hash, item.first_seen]));

      // The node drops one (a transaction of the last block): it leaves the list.
      const dropped = sent.at(-1)!;
      node.dropFromPool(dropped.hash);
      await waitFor(async () => !(await listed()).some((item) => item.tx_hash === dropped.hash), 'the dropped transaction gone');

      // The node mines the next blocks (up to one with a transaction besides its coinbase): once indexed, their transactions are not pending.
      const mined = new Set<string>();
      let next = FED + 1;
      do {
        const item = items[next++]!;
        node.push(item);
        if (item.kind === 'block') for (const tx of item.block.transactions) if (tx.type !== 'coinbase') mined.add(tx.hash);
      } while (mined.size === 0);
      await waitFor(async () => (await indexedTip()) === node.headHash, 'a block mined');
      assert.ok((await listed()).every((item) => !mined.has(item.tx_hash)), 'no mined transaction listed');
      // The others keep when they were first seen.
      const stillPending = sent.filter((tx) => !mined.has(tx.hash) && tx.hash !== dropped.hash);
      await waitFor(async () => (await listed()).length === stillPending.length, 'the pool read after the block');
      const later = await listed();
      assert.deepEqual(withoutTime(later), byHash(stillPending.map(expectedItem)));
      for (const item of later) assert.equal(item.first_seen, seen.get(item.tx_hash));

      // The rest is mined: nothing is pending.
      for (const item of items.slice(next)) node.push(item);
      await waitFor(async () => (await indexedTip()) === node.headHash, 'every block mined', 120_000);
      assert.deepEqual(node.poolHashes(), []);
      await waitFor(async () => (await listed()).length === 0, 'an empty pool read');
      const empty = await get('pow/transactions/pending');
      assert.deepEqual([empty.total, empty.pending_source.following, empty.pending_source.reason, empty.pending_source.pool_size], [0, true, null, 0]);
    } finally {
      controller.abort();
      await running.catch(() => undefined);
    }
    const stopped = await get('pow/transactions/pending');
    assert.deepEqual([stopped.items, stopped.pending_source.following], [[], false]);
  });
});
