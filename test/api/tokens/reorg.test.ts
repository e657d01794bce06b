/**
 * A reorg removes a token transfer from every token route: the abandoned branch moved a token (and
 * made a holder, and on one chain created a second token); after the rollback the list, the pages,
 * the holders, the transfers and the days are those of the new branch, computed from its blocks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHAINS, posZeroAddress, type ChainId } from '../../../src/chain/chains.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { AUTH } from '../../support/app.ts';
import { addr, ChainBuilder, coins, hash, type BlockBuilder } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { utcDay } from '../../support/utc-day.ts';
import { expectedDays, expectedDetail, expectedHolders, expectedList, expectedTransfers, tokenFacts } from './oracle.ts';

const T0 = Date.UTC(2026, 2, 1, 22) / 1000;

interface World {
  chain: ChainId;
  c: ChainBuilder;
  token: string;
  /** Created in the abandoned branch only. */
  orphanToken: string;
  /** A holder only the abandoned branch made. */
  dropped: string;
}

function buildWorld(chain: ChainId): World {
  // An hour apart: the abandoned blocks are on the next UTC day.
  const c = new ChainBuilder(chain, T0, 3600);
  const [alice, bob, carol, dave] = ['alice', 'bob', 'carol', 'dave'].map((n) => addr(chain, `reorg-${n}`)) as [string, string, string, string];
  const token = chain === 'pow' ? hash('reorg-token', chain) : addr('pos', 'reorg-token');
  const orphanToken = chain === 'pow' ? hash('reorg-orphan-token', chain) : addr('pos', 'reorg-orphan-token');
  const zero = posZeroAddress(20);
  const reward = (b: BlockBuilder) => void (chain === 'pow' && b.coinbase(carol, 1_000_000n));
  const create = (b: BlockBuilder, id: string, symbol: string, to: string, amount: bigint) => {
    if (chain === 'pow') {
      b.powToken(alice, id, { name: `${symbol} Token`, symbol, decimals: 2 }, [{ to, amount }]);
    } else {
      b.tokenTransfer(b.create(alice, id), id, zero, to, amount);
      b.token(id, `${symbol} Token`, symbol, 2);
    }
  };
  const move = (b: BlockBuilder, id: string, from: string, to: string, amount: bigint) =>
    chain === 'pow' ? b.transferToken(from, id, [{ to, amount }]) : b.tokenCall(from, id, [{ from, to, amount }]);
  c.block((b) => b.genesis([alice, bob].map((address) => ({ address, amount: coins(chain, 100) }))));
  c.block((b) => (create(b, token, 'RGT', alice, 10_000n), reward(b)));
  c.block((b) => (move(b, token, alice, bob, 2_500n), reward(b)));
  // The branch the reorg abandons: alice pays dave, who holds nothing else; a second token is made.
  c.block((b) => (move(b, token, alice, dave, 1_000n), reward(b)));
  c.block((b) => (create(b, orphanToken, 'ORF', bob, 77n), move(b, token, bob, carol, 2_500n), reward(b)));
  return { chain, c, token, orphanToken, dropped: dave };
}

describeSeededApp(
  'the token routes through a reorg',
  async (store) => {
    const worlds = CHAINS.map(buildWorld);
    for (const w of worlds) await ingest(store, w.c.source(), { batchBlocks: 2 });
    return worlds;
  },
  (s) => {
    const get = async (url: string, status = 200) => {
      const res = await s.t().app.inject({ url: `/api/v1/${url}`, headers: AUTH });
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      return res.json();
    };

    it('the abandoned branch\'s transfers, holder and token leave every route', async () => {
      for (const w of s.seeded()) {
        const { chain, c } = w;
        const network = (await get(`${chain}/tokens`)).network;
        const before = await get(`${chain}/tokens/${w.token}/holders`);
        assert.ok(before.items.some((h: { address: string }) => h.address === w.dropped), 'dave holds the token before the reorg');
        assert.equal((await get(`${chain}/tokens`)).total, 2);

        // The new branch replaces the two newest blocks: bob pays alice instead; two more blocks follow.
        const alice = addr(chain, 'reorg-alice');
        const bob = addr(chain, 'reorg-bob');
        const move = (b: BlockBuilder, from: string, to: string, amount: bigint) =>
          chain === 'pow' ? b.transferToken(from, w.token, [{ to, amount }]) : b.tokenCall(from, w.token, [{ from, to, amount }]);
        const reward = (b: BlockBuilder) => void (chain === 'pow' && b.coinbase(bob, 1_000_000n));
        c.fork(2, [(b) => (move(b, bob, alice, 500n), reward(b)), reward]);
        c.block((b) => (move(b, alice, bob, 1n), reward(b)));
        await ingest(s.store(), c.source(), { batchBlocks: 1, rollbackChunkBlocks: 1 });

        const facts = tokenFacts(chain, c.blocks);
        const t = facts.get(w.token)!;
        assert.deepEqual((await get(`${chain}/tokens`)).items, expectedList(facts, 'holders'));
        assert.equal((await get(`${chain}/tokens`)).total, 1);
        assert.deepEqual(await get(`${chain}/tokens/${w.token}`), expectedDetail(chain, network, t));
        const holders = await get(`${chain}/tokens/${w.token}/holders`);
        assert.deepEqual(holders.items.map((h: { address: string; balance: string }) => [h.address, h.balance]), expectedHolders(t).map((h) => [h.address, h.balance]));
        assert.ok(!holders.items.some((h: { address: string }) => h.address === w.dropped));
        assert.equal(holders.total, expectedHolders(t).length);
        const transfers = await get(`${chain}/tokens/${w.token}/transfers`);
        assert.deepEqual(transfers.items, expectedTransfers(t));
        assert.equal(transfers.total, t.transfers.length);
        assert.deepEqual((await get(`${chain}/tokens/${w.token}/daily?window=all`)).items, expectedDays(t, utcDay(c.tip!.timestamp), null));
        for (const page of ['', '/holders', '/transfers', '/daily']) await get(`${chain}/tokens/${w.orphanToken}${page}`, 404);
        assert.deepEqual((await get(`${chain}/tokens?q=orf`)).items, []);
      }
    });
  },
);
