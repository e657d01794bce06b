/**
 * The block routes across a reorg (the abandoned block leaves every one of them) and their
 * finality: the finalized height an indexer records from its node (indexFromNode, the pos source's
 * `finalizedHeight`), figures against the chain builder's own blocks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import pino from 'pino';
import type { ChainId } from '../../../src/chain/chains.ts';
import { indexFromNode } from '../../../src/ingest/indexer.ts';
import { recordFinalizedHeight } from '../../../src/ingest/node-tip.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { AUTH, buildTestApp } from '../../support/app.ts';
import { NETWORK } from '../../support/analytics-world.ts';
import { addr, ChainBuilder, coins } from '../../support/chain-builder.ts';
import { describeOnOneStore, openTestStore } from '../../support/stores.ts';
import { expectedBlockRows, expectedDetail, expectedSummary, expectedWithdrawals } from './oracle.ts';

const silent = pino({ level: 'silent' });

describeOnOneStore('block routes across a reorg, and finality', (_getStore, kind) => {
  for (const chain of ['pos', 'pow'] as const satisfies readonly ChainId[]) {
    it(`${chain}: the abandoned block leaves the list, the detail by height and hash, its transactions (and withdrawals)`, async () => {
      const store = await openTestStore(kind);
      const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' });
      try {
        const get = (url: string) => t.app.inject({ url: `/api/v1/${chain}${url}`, headers: AUTH });
        const json = async (url: string) => {
          const res = await get(url);
          assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
          return res.json();
        };
        const [alice, bob, carol] = [addr(chain, 'reorg alice'), addr(chain, 'reorg bob'), addr(chain, 'reorg carol')] as const;
        const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
        const miner = addr(chain, 'reorg miner');
        builder.block((b) => b.genesis([{ address: alice, amount: coins(chain, 1000) }]));
        builder.block((b) => {
          b.transfer(alice, bob, coins(chain, 1));
          if (chain === 'pow') b.coinbase(miner, 50n);
        });
        builder.block((b) => {
          b.transfer(alice, carol, coins(chain, 2));
          b.transfer(alice, bob, coins(chain, 3));
          if (chain === 'pos') b.withdrawal(carol, 5n, 7).withdrawal(bob, 6n, 8);
        });
        // The node names block 1 finalized (pos; pow sources name none but an archive's end).
        const source = { ...builder.source(), finalizedHeight: async () => (chain === 'pos' ? 1 : null), close() {} };
        await indexFromNode(store, source, { from: 0, fromHeight: undefined, head: builder.tip!.height, follow: false }, { logger: silent });

        const abandoned = builder.tip!;
        const finalizedOf = (height: number) => (chain === 'pos' ? height <= 1 : false);
        for (const b of builder.blocks) assert.deepEqual(await json(`/blocks/${b.height}`), expectedDetail(chain, NETWORK[chain], b, 2, finalizedOf(b.height)));
        const oldCursor = (await json(`/blocks/${abandoned.height}/transactions?limit=1`)).next_cursor;
        assert.ok(oldCursor);

        const [replacement] = builder.fork(1, [(b) => b.transfer(bob, alice, coins(chain, 1)), () => {}]);
        await ingest(store, builder.source());
        assert.equal(replacement!.height, abandoned.height);
        const tipHeight = builder.tip!.height;

        const list = await json('/blocks');
        assert.deepEqual(list.items, [...builder.blocks].reverse().map((b) => expectedSummary(chain, b)));
        assert.equal(list.total, builder.blocks.length);
        assert.ok(!list.items.some((item: { hash: string }) => item.hash === abandoned.hash));
        for (const path of ['', '/transactions', ...(chain === 'pos' ? ['/withdrawals'] : [])]) {
          const res = await get(`/blocks/${abandoned.hash}${path}`);
          assert.equal(res.statusCode, 404, `the abandoned block's ${path || 'detail'}`);
        }
        assert.deepEqual(await json(`/blocks/${abandoned.height}`), expectedDetail(chain, NETWORK[chain], replacement!, tipHeight, finalizedOf(abandoned.height)));
        assert.deepEqual((await json(`/blocks/${abandoned.height}/transactions`)).items, expectedBlockRows(chain, NETWORK[chain], replacement!));
        if (chain === 'pos') {
          assert.deepEqual(expectedWithdrawals(abandoned).length, 2);
          assert.deepEqual((await json(`/blocks/${abandoned.height}/withdrawals`)).items, []);
        }
        // A cursor of the abandoned block is not one of the block now at its height.
        const replayed = await get(`/blocks/${abandoned.height}/transactions?cursor=${encodeURIComponent(oldCursor)}`);
        assert.equal(replayed.statusCode, 400);
        assert.equal(replayed.json().errors[0].param, 'cursor');

        // A finalized height recorded later (pow: an archive's end) makes the blocks at or below it final.
        await recordFinalizedHeight(store, chain, 2);
        for (const b of builder.blocks) assert.equal((await json(`/blocks/${b.hash}`)).finalized, b.height <= 2, `block ${b.height}`);
        // Never lowered.
        await recordFinalizedHeight(store, chain, 0);
        assert.equal((await json('/blocks/2')).finalized, true);
      } finally {
        await t.close();
        await store.close();
      }
    });
  }
});
