/**
 * A following indexer keeps the node's tip current (chain_node_tips: what `quarry_chain_node_lag_blocks`,
 * /readyz `indexer_seen_seconds_ago` and the supply overview's `node_tip_height` read). Found by the
 * soak: the tip was recorded at start and when the backfill caught up, never while following, so a
 * healthy indexer looked stopped after a while and an indexer falling behind a slow node showed no
 * lag. Now every head read is told to a recorder that writes a tip that moved at once, and one that
 * did not at least every 30 s (not at every poll: each commit ends the answers the API keeps).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { indexPow } from '../../src/ingest/index-pow.ts';
import { nodeTipRecorder } from '../../src/ingest/node-tip.ts';
import type { Store } from '../../src/store/store.ts';
import { feed, generatePowItems, startNodeWithChain } from '../fakes/qrl-node/world.ts';
import { describeOnOneStore, openTestStore, singleStoreKinds } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';

const silent = pino({ level: 'silent' });

const tipOf = async (store: Store) => {
  const [row] = await store.query<{ height: string; seen_ts: string }>('t', sql`SELECT height::text AS height, seen_ts::text AS seen_ts FROM chain_node_tips WHERE chain = 'pow'`);
  return row ? { height: Number(row.height), seenTs: Number(row.seen_ts) } : null;
};

const kind = singleStoreKinds().at(-1)!;
describe(`a following pow indexer records the node's tip as it moves [${kind}]`, () => {
  let store: Store;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store?.close());

  it('the stored tip follows the node\'s head while following, not only at the catch-up', async () => {
    const items = await generatePowItems({ seed: 13, days: 0.05 });
    const start = Math.floor(items.length / 2);
    const { node, address } = await startNodeWithChain(items.slice(0, start));
    const controller = new AbortController();
    const settings = { ...resolveIndexPowSettings({ node: address, progress: false }, {}), follow: true, pollIntervalMs: 20 };
    let following = false;
    const logger = pino({ level: 'info' }, { write: (line: string) => void (line.includes('caught up with the node; following its head') && (following = true)) });
    const running = indexPow(store, settings, { logger, signal: controller.signal });
    running.catch(() => undefined);
    try {
      const caughtUp = node.height;
      await waitFor(async () => following && (await tipOf(store))?.height === caughtUp, 'the indexer following, the tip at the catch-up');
      const first = (await tipOf(store))!;
      // The node grows while the indexer follows it.
      feed(node, items.slice(start));
      assert.ok(node.height > caughtUp + 10);
      await waitFor(async () => {
        const [checkpoint] = await store.query<{ hash: string }>('t', sql`SELECT hash FROM checkpoints WHERE chain = 'pow'`);
        return checkpoint?.hash === node.headHash;
      }, 'the indexer at the node\'s head', 60_000);
      await waitFor(async () => (await tipOf(store))?.height === node.height, 'the recorded tip at the node\'s head', 10_000);
      assert.ok((await tipOf(store))!.seenTs >= first.seenTs);
    } finally {
      controller.abort();
      await running.catch(() => undefined);
      await node.stop();
    }
  });
});

describeOnOneStore('the node tip recorder', (getStore) => {
  it('writes a tip that moved at once, one that did not only after the refresh interval', async () => {
    const store = getStore();
    const writes = () => store.stats().get('ingest.node_tip')?.count ?? 0;
    const record = nodeTipRecorder(store, 'pow', silent, 300);
    const settle = async (count: number) => waitFor(async () => writes() === count, `${count} writes`, 5000);
    const before = writes();
    record({ height: 5 });
    await settle(before + 1);
    assert.deepEqual((await tipOf(store))?.height, 5);
    record({ height: 5 });
    record({ height: 5 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(writes(), before + 1, 'an unmoved tip is not written again at once');
    record({ height: 6 });
    await settle(before + 2);
    assert.equal((await tipOf(store))?.height, 6);
    await new Promise((resolve) => setTimeout(resolve, 350));
    record({ height: 6 });
    await settle(before + 3);
  });
});
