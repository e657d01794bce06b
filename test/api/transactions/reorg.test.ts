/**
 * A reorg on both chains: the transactions of the abandoned blocks leave the list, their pages
 * answer 404 saying which block held them and when it was removed, and a transaction the new branch
 * mines again answers 200 from its new block.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { CHAINS, type ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalTx } from '../../../src/chain/model.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { addr, ChainBuilder, coins, hash, type BlockBuilder } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { expectedItem, getter, iso, newestFirst, walk } from './fixtures.ts';

const T0 = Date.UTC(2026, 2, 1) / 1000;
/** When the rollback runs, as the pipeline is told the time. */
const REORG_TS = T0 + 10 * 86_400;

interface World {
  chain: ChainId;
  c: ChainBuilder;
  /** In the block below the old tip; mined again by the new branch. */
  kept: string;
  /** In the old tip only. */
  dropped: string;
  oldTip: { height: number; hash: string };
}

function txHash(chain: ChainId, name: string): string {
  return (chain === 'pos' ? '0x' : '') + hash('reorg-tx', name);
}

function buildWorld(chain: ChainId): World {
  const c = new ChainBuilder(chain, T0);
  const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((n) => addr(chain, n)) as [string, string, string];
  const kept = txHash(chain, `${chain}-kept`);
  const dropped = txHash(chain, `${chain}-dropped`);
  const send = (b: BlockBuilder, from: string, to: string, value: bigint, name?: string): CanonicalTx => {
    const tx = b.transfer(from, to, value, chain === 'pow' ? { ots: Number(value % 1000n) } : {});
    if (name) tx.hash = name;
    return tx;
  };
  const reward = (b: BlockBuilder) => void (chain === 'pow' && b.coinbase(carol, 1_000_000n));
  c.block((b) => b.genesis([{ address: alice, amount: coins(chain, 100) }, { address: bob, amount: coins(chain, 100) }]));
  for (let i = 0; i < 5; i++) c.block((b) => (send(b, alice, bob, 10n + BigInt(i)), reward(b)));
  c.block((b) => (send(b, alice, bob, 500n, kept), reward(b)));
  c.block((b) => (send(b, bob, alice, 600n, dropped), send(b, alice, carol, 601n), reward(b)));
  return { chain, c, kept, dropped, oldTip: { height: c.tip!.height, hash: c.tip!.hash } };
}

describeSeededApp(
  'GET /{chain}/transactions through a reorg',
  async (store) => {
    const worlds = CHAINS.map(buildWorld);
    for (const w of worlds) await ingest(store, w.c.source(), { batchBlocks: 3 });
    return worlds;
  },
  (s) => {
    const get = getter(s.t);

    it('the abandoned branch leaves the list; its hashes answer 404 saying why; a re-mined one answers from its new block', async () => {
      for (const w of s.seeded()) {
        const { chain, c } = w;
        assert.equal((await get(`${chain}/transactions/${w.dropped}`)).height, w.oldTip.height);
        const before = await get(`${chain}/transactions/${w.kept}`);
        const alice = addr(chain, 'alice');
        const dave = addr(chain, 'dave');
        // The new branch replaces the two newest blocks: the kept transaction comes back one block
        // later, the dropped one never does; two blocks follow.
        const oldKept = c.blocks.at(-2)!.transactions.find((tx) => tx.hash === w.kept)!;
        c.fork(2, [
          (b) => void (b.transfer(alice, dave, 3n, chain === 'pow' ? { ots: 500 } : {}), chain === 'pow' && b.coinbase(dave, 1_000_000n)),
          (b) => {
            const again = b.transfer(oldKept.from, oldKept.to!, oldKept.value, chain === 'pow' ? { ots: 501 } : {});
            again.hash = w.kept;
            if (chain === 'pow') b.coinbase(dave, 1_000_000n);
          },
        ]);
        c.block((b) => void (b.transfer(alice, dave, 4n, chain === 'pow' ? { ots: 502 } : {}), chain === 'pow' && b.coinbase(dave, 1_000_000n)));
        // One block per rollback transaction: the dropped transaction's block is not the last one reverted.
        await ingest(s.store(), c.source(), { batchBlocks: 1, rollbackChunkBlocks: 1, now: () => REORG_TS });

        const { network } = await get(`${chain}/transactions?limit=1`);
        const { items } = await walk(get, `${chain}/transactions`, 4);
        assert.deepEqual(items, newestFirst(c.blocks).map(({ block, tx }) => expectedItem(chain, network, block, tx)));
        assert.ok(!(items as { tx_hash: string }[]).some((item) => item.tx_hash === w.dropped));

        const gone = await get(`${chain}/transactions/${w.dropped.toUpperCase().replace('0X', '0x')}`, 404);
        assert.equal(
          gone.detail,
          `${chain} transaction ${w.dropped} is not in the canonical chain: it was in block ${w.oldTip.height} (hash ${w.oldTip.hash}), ` +
            `removed by a reorganisation at height ${w.oldTip.height - 1} on ${iso(REORG_TS)} UTC`,
        );
        const back = await get(`${chain}/transactions/${w.kept}`);
        assert.equal(back.height, w.oldTip.height);
        assert.notEqual(back.block_hash, before.block_hash);
        assert.equal(back.block_hash, c.blocks[w.oldTip.height]!.hash);
        const orphans = await s.store().query<{ tx_hash: string }>('test.orphans', sql`SELECT tx_hash FROM orphaned_txs WHERE chain = ${chain} ORDER BY tx_hash`);
        assert.ok(orphans.some((o) => o.tx_hash === w.dropped));
        assert.ok(!orphans.some((o) => o.tx_hash === w.kept), 'a transaction stored again is no longer orphaned');
        // Every orphan is a transaction the store no longer holds.
        const stored = await s.store().query<{ n: number }>('test.orphans_stored', sql`SELECT count(*)::int AS n FROM orphaned_txs o JOIN transactions t ON t.chain = o.chain AND t.tx_hash = o.tx_hash`);
        assert.equal(stored[0]!.n, 0);
      }
    });
  },
);
