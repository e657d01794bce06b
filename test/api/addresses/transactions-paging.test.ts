import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Store } from '../../../src/store/store.ts';
import { AUTH } from '../../support/app.ts';
import type { ChainBuilder } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { chainOf, comparable, expectedComparable, expectedFeed, ingestChain, POS, posChain, POW, powChain } from './fixtures.ts';

async function loadChains(store: Store): Promise<{ pow: ChainBuilder; pos: ChainBuilder }> {
  const pow = powChain(30);
  const pos = posChain(20);
  await ingestChain(store, pow);
  await ingestChain(store, pos);
  return { pow, pos };
}

/** Cursor pages while new blocks arrive between the requests, and the cursor's integrity. */
describeSeededApp('transactions feed: paging while blocks arrive', loadChains, (s) => {
  const pow = () => s.seeded().pow;
  const pos = () => s.seeded().pos;

  const fetch = async (address: string, query: string) =>
    s.t().app.inject({ url: `/api/v1/${chainOf(address)}/addresses/${address}/transactions${query}`, headers: AUTH });
  const get = async (address: string, query: string) => {
    const res = await fetch(address, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  /** Appends blocks that touch `address` every way it can be touched, and ingests them. */
  async function moreBlocks(chain: ChainBuilder, address: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      chain.block((b) => {
        if (chain.chain === 'pow') {
          b.multiTransfer(POW.pool, [{ to: address, amount: 1n }, { to: POW.m2, amount: 2n }]);
          b.transfer(address, POW.buyer, 3n, { ots: 1000 + chain.blocks.length });
          b.coinbase(POW.pool, 6_000_000_000n);
        } else {
          b.transfer(POS.alice, address, 5n);
          b.transfer(address, POS.carol, 1n);
        }
      });
    }
    await ingestChain(s.store(), chain);
  }

  for (const [name, chainOfTest, address, filter] of [
    ['pow user', pow, POW.user, ''],
    ['pow m1, incoming', pow, POW.m1, '&direction=in'],
    ['pos bob', pos, POS.bob, ''],
    ['pos bob, transfers', pos, POS.bob, '&tx_type=transfer'],
  ] as const) {
    it(`${name}: walking cursor pages yields each row of the first page's moment once, in order`, async () => {
      const chain = chainOfTest();
      const snapshot = expectedFeed(chain.blocks, address, { direction: filter.includes('in') ? 'in' : 'both', txType: filter.includes('transfer') ? 'transfer' : undefined });
      let body = await get(address, `?limit=4${filter}`);
      assert.equal(body.total, snapshot.total);
      const seen = [...body.items];
      while (body.has_more) {
        await moreBlocks(chain, address, 2);
        body = await get(address, `?limit=4&cursor=${encodeURIComponent(body.next_cursor)}${filter}`);
        seen.push(...body.items);
      }
      assert.deepEqual(seen.map(comparable), snapshot.rows.map(expectedComparable));
      // The total follows the chain: it counts what arrived meanwhile.
      assert.equal(body.total, expectedFeed(chain.blocks, address, {
        direction: filter.includes('in') ? 'in' : 'both', txType: filter.includes('transfer') ? 'transfer' : undefined,
      }).total);
      // And the first page now starts with the newest rows.
      const fresh = await get(address, `?limit=2${filter}`);
      assert.equal(fresh.items[0].height, chain.tip!.height);
    });
  }

  it('a cursor is bound to its address and filters, and tamper-proof', async () => {
    const body = await get(POW.user, '?limit=2');
    const cursor = encodeURIComponent(body.next_cursor);
    for (const [address, query] of [
      [POW.m1, `?cursor=${cursor}`],
      [POW.user, `?cursor=${cursor}&direction=in`],
      [POW.user, `?cursor=${cursor}&tx_type=transfer`],
      [POW.user, `?cursor=${cursor}&time_from=1`],
      [POW.user, `?cursor=${cursor}&time_to=99999999999`],
      [POW.user, `?cursor=${cursor.slice(0, -3)}AAA`],
      [POW.user, `?cursor=${Buffer.from('[1,2,3]').toString('base64url')}.${body.next_cursor.split('.')[1]}`],
      [POW.user, '?cursor=garbage'],
      [POW.user, `?cursor=${'x'.repeat(513)}`],
    ] as const) {
      const res = await fetch(address, query);
      assert.equal(res.statusCode, 400, `${query.slice(0, 40)} → ${res.body}`);
      assert.equal(res.json().errors[0].param, 'cursor');
    }
  });

  it('the limit may change between cursor pages', async () => {
    const all = expectedFeed(pow().blocks, POW.pool).rows.slice(0, 9);
    const first = await get(POW.pool, '?limit=2');
    const second = await get(POW.pool, `?limit=7&cursor=${encodeURIComponent(first.next_cursor)}`);
    assert.deepEqual([...first.items, ...second.items].map(comparable), all.map(expectedComparable));
  });

  it('an offset past the end is an empty last page', async () => {
    const body = await get(POW.user, '?offset=100000&limit=5');
    assert.deepEqual(body.items, []);
    assert.equal(body.has_more, false);
    assert.equal(body.next_cursor, null);
    assert.equal(body.total, expectedFeed(pow().blocks, POW.user).total);
  });
});
