/**
 * GET /search through a reorg on both chains: the abandoned block, the transaction only it held and
 * the token it created are no longer hits; the height names the replacing block; a transaction the
 * new branch mines again is a hit in its new block. Figures from the chain builder's own blocks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHAINS, type ChainId } from '../../../src/chain/chains.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { AUTH } from '../../support/app.ts';
import { addr, ChainBuilder, coins, hash, type BlockBuilder } from '../../support/chain-builder.ts';
import { isoSeconds } from '../../support/expected-transaction.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';

const T0 = Date.UTC(2026, 4, 1) / 1000;

interface World {
  chain: ChainId;
  c: ChainBuilder;
  kept: string;
  dropped: string;
  token: { contract: string; symbol: string };
}

function buildWorld(chain: ChainId): World {
  const c = new ChainBuilder(chain, T0);
  const [alice, bob] = [addr(chain, 'search alice'), addr(chain, 'search bob')] as [string, string];
  const txHash = (name: string) => (chain === 'pos' ? '0x' : '') + hash('search-reorg', chain, name);
  const kept = txHash('kept');
  const dropped = txHash('dropped');
  const reward = (b: BlockBuilder) => void (chain === 'pow' && b.coinbase(bob, 1_000_000n));
  const ots = (n: number) => (chain === 'pow' ? { ots: n } : {});
  c.block((b) => b.genesis([{ address: alice, amount: coins(chain, 100) }]));
  c.block((b) => (b.transfer(alice, bob, 10n, ots(1)), reward(b)));
  c.block((b) => ((b.transfer(alice, bob, 11n, ots(2)).hash = kept), reward(b)));
  // The block the reorg abandons: a transaction no other block holds, and a token.
  const token = { contract: chain === 'pos' ? addr(chain, 'doomed token') : dropped, symbol: `DOOM${chain.toUpperCase()}` };
  c.block((b) => {
    b.transfer(bob, alice, 3n, ots(3)).hash = dropped;
    b.block.tokens.push({ contract: token.contract, name: `Doomed ${chain}`, symbol: token.symbol, decimals: 0, creator: bob, createdTx: dropped });
    reward(b);
  });
  return { chain, c, kept, dropped, token };
}

describeSeededApp(
  'GET /search through a reorg',
  async (store) => {
    const worlds = CHAINS.map(buildWorld);
    for (const w of worlds) await ingest(store, w.c.source(), { batchBlocks: 2 });
    return worlds;
  },
  (s) => {
    const search = async (q: string) => {
      const res = await s.t().app.inject({ url: `/api/v1/search?q=${encodeURIComponent(q)}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().items as { kind: string; chain: string; id: string; match: string; height: number | null; timestamp: string | null; path: string }[];
    };
    const kinds = (items: { kind: string; chain: string }[]) => items.map((h) => `${h.kind} ${h.chain}`);

    it('the abandoned block, its own transaction and its token leave the hits; the replacing block and a re-mined transaction are hits', async () => {
      for (const w of s.seeded()) {
        const { chain, c } = w;
        const old = c.tip!;
        const oldKeptBlock = c.blocks.at(-2)!;
        assert.deepEqual(kinds(await search(old.hash)), [`block ${chain}`]);
        assert.deepEqual(kinds(await search(w.dropped)), chain === 'pow' ? ['transaction pow', 'token pow'] : ['transaction pos']);
        assert.deepEqual(kinds(await search(w.token.symbol)), [`token ${chain}`]);
        assert.equal((await search(w.kept))[0]!.height, oldKeptBlock.height);

        // The two newest blocks are replaced: the kept transaction comes back one block later, the
        // dropped one never; a block follows (the indexer meets the new branch above its old tip).
        const [alice, bob] = [addr(chain, 'search alice'), addr(chain, 'search bob')];
        const ots = (n: number) => (chain === 'pow' ? { ots: n } : {});
        const reward = (b: BlockBuilder) => void (chain === 'pow' && b.coinbase(alice, 1_000_000n));
        const [, replacement] = c.fork(2, [
          (b) => (b.transfer(alice, bob, 5n, ots(10)), reward(b)),
          (b) => ((b.transfer(alice, bob, 11n, ots(11)).hash = w.kept), reward(b)),
          (b) => (b.transfer(alice, bob, 6n, ots(12)), reward(b)),
        ]);
        await ingest(s.store(), c.source(), { batchBlocks: 1, rollbackChunkBlocks: 1 });
        assert.equal(replacement!.height, old.height);

        assert.deepEqual(await search(old.hash), [], 'the abandoned block');
        assert.deepEqual(await search(w.dropped), [], 'its transaction (and pow token creation)');
        assert.deepEqual(await search(w.token.symbol), [], 'its token');
        if (chain === 'pos') assert.deepEqual(kinds(await search(w.token.contract)), ['address pos'], 'the contract is only an address now');
        const byHeight = (await search(String(old.height))).filter((h) => h.chain === chain);
        assert.deepEqual(byHeight.map((h) => [h.kind, h.id, h.path]), [['block', replacement!.hash, `/api/v1/${chain}/blocks/${replacement!.hash}`]]);
        assert.deepEqual(kinds(await search(replacement!.hash)), [`block ${chain}`]);
        const kept = await search(w.kept);
        assert.deepEqual(kept.map((h) => [h.kind, h.height, h.timestamp]), [['transaction', replacement!.height, isoSeconds(replacement!.timestamp)]]);
        // The transaction's page answers it from the block the hit names.
        const page = await s.t().app.inject({ url: kept[0]!.path, headers: AUTH });
        assert.equal(page.json().block_hash, replacement!.hash);
      }
    });
  },
);
