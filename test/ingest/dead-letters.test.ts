/**
 * Dead letters as an operator handles them (`quarry dead-letters list|resolve|retry`): listed,
 * marked resolved, and retried by rewinding the chain below the letter's block, after which a new
 * run fetches the blocks again and the store equals a clean run's.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { listDeadLetters, planRetry, resolveDeadLetters, retryDeadLetter } from '../../src/ingest/dead-letters.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { storeDigest } from '../fakes/qrl-node/world.ts';
import { randomChain } from '../support/random-chain.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

describeEachStore('dead letters', (_getStore, kind) => {
  it('lists the open ones, resolves them, and a retry rewinds below the block so that a new run ends where a clean one does', async () => {
    const c = randomChain('pow', 61, 40);
    c.blocks[12]!.deadLetters.push({ item: 'tx-a', error: 'body set aside', payload: { raw: 'aa' } });
    c.blocks[30]!.deadLetters.push({ item: 'tx-b', error: 'body set aside', payload: { raw: 'bb' } });
    const store = await openTestStore(kind);
    const clean = await openTestStore(kind);
    try {
      await ingest(clean, c.canonicalSource('test'));
      await ingest(store, c.canonicalSource('test'));
      const open = await listDeadLetters(store);
      assert.deepEqual(open.map((l) => [l.chain, l.height, l.item]), [['pow', 30, 'tx-b'], ['pow', 12, 'tx-a']]);
      const [b, a] = open;

      assert.deepEqual(await resolveDeadLetters(store, [a!.id, 999_999]), [a!.id]);
      assert.deepEqual((await listDeadLetters(store)).map((l) => l.item), ['tx-b']);
      assert.deepEqual((await listDeadLetters(store, { all: true })).map((l) => [l.item, l.resolvedTs !== null]), [['tx-b', false], ['tx-a', true]]);

      const plan = await planRetry(store, b!.id);
      assert.deepEqual({ rewindTo: plan!.rewindTo, tip: plan!.tip }, { rewindTo: 29, tip: c.tip!.height });
      await retryDeadLetter(store, plan!);
      const [top] = await store.query<{ height: number }>('t', sql`SELECT max(height)::int AS height FROM blocks WHERE chain = 'pow'`);
      assert.equal(top!.height, 29);
      assert.deepEqual((await listDeadLetters(store, { all: true })).map((l) => l.item), ['tx-a'], 'the letters of the rewound blocks are gone');

      // The next run fetches block 30 on: the part is set aside again, and the rest equals a clean run.
      await ingest(store, c.canonicalSource('test'));
      assert.deepEqual((await listDeadLetters(store)).map((l) => [l.height, l.item]), [[30, 'tx-b']]);
      const { dead_letters: _ours, ...ours } = await storeDigest(store);
      const { dead_letters: _theirs, ...theirs } = await storeDigest(clean);
      assert.deepEqual(ours, theirs);
      assert.equal(await planRetry(store, 999_999), null);
    } finally {
      await store.close();
      await clean.close();
    }
  });
});
