/**
 * The block routes on the generated world: every figure against the generator's own canonical
 * blocks (test/api/blocks/oracle.ts), whole lists walked by cursor, filters, bad input and unknown
 * blocks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHAINS, type ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { AUTH } from '../../support/app.ts';
import { loadAnalyticsWorld, NETWORK } from '../../support/analytics-world.ts';
import { addr } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { expectedBlockRows, expectedDetail, expectedSummary, expectedWithdrawals } from './oracle.ts';

describeSeededApp('GET /{chain}/blocks and a block\'s pages', loadAnalyticsWorld, (s) => {
  const blocks = (chain: ChainId) => s.seeded().blocks[chain];
  const tip = (chain: ChainId) => blocks(chain).at(-1)!;
  const request = (url: string) => s.t().app.inject({ url, headers: AUTH });
  const get = async (url: string) => {
    const res = await request(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };
  /** Every item of a cursor list, page by page. */
  const walk = async (url: string, limit: number) => {
    const items: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = url.includes('?') ? '&' : '?';
      const body = await get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(body.count, body.items.length);
      assert.ok(body.items.length <= limit);
      assert.equal(body.has_more, body.next_cursor !== null);
      items.push(...body.items);
      cursor = body.next_cursor;
      pages++;
    } while (cursor !== null);
    return { items, pages };
  };
  const newestFirst = (chain: ChainId, keep: (b: CanonicalBlock) => boolean = () => true) =>
    blocks(chain).filter(keep).reverse().map((b) => expectedSummary(chain, b));
  /** The busiest producer of the chain. */
  const busiest = (chain: ChainId) => {
    const counts = new Map<string, number>();
    for (const b of blocks(chain)) if (b.miner) counts.set(b.miner, (counts.get(b.miner) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  };

  for (const chain of CHAINS) {
    it(`${chain}: the first page, newest first, with the chain's block count`, async () => {
      const body = await get(`/api/v1/${chain}/blocks`);
      assert.deepEqual(body.items, newestFirst(chain).slice(0, 25));
      assert.equal(body.total, blocks(chain).length);
      assert.equal(body.limit, 25);
      assert.equal(body.has_more, true);
      assert.equal(body.chain, chain);
      assert.equal(body.network, NETWORK[chain]);
      assert.equal(body.producer, null);
      assert.equal(body.time_from, null);
    });

    it(`${chain}: paging through the whole list by cursor gives every block once, newest first`, async () => {
      const { items } = await walk(`/api/v1/${chain}/blocks`, 100);
      assert.deepEqual(items, newestFirst(chain));
    });

    it(`${chain}: producer and time filters, alone and together, paged`, async () => {
      const producer = busiest(chain);
      const byProducer = newestFirst(chain, (b) => b.miner === producer);
      assert.ok(byProducer.length > 1 && byProducer.length < blocks(chain).length);
      const produced = await walk(`/api/v1/${chain}/blocks?producer=${producer}`, 100);
      assert.deepEqual(produced.items, byProducer);
      const first = await get(`/api/v1/${chain}/blocks?producer=${producer}&limit=5`);
      assert.equal(first.total, null, 'a filtered list is not counted');
      assert.equal(first.producer, producer);

      const all = blocks(chain);
      const from = all[Math.floor(all.length / 3)]!.timestamp + 1;
      const to = all[Math.floor(all.length / 2)]!.timestamp;
      const inRange = (b: CanonicalBlock) => b.timestamp >= from && b.timestamp < to;
      const ranged = await walk(`/api/v1/${chain}/blocks?time_from=${from}&time_to=${to}`, 100);
      assert.deepEqual(ranged.items, newestFirst(chain, inRange));
      const both = await walk(`/api/v1/${chain}/blocks?time_from=${from}&time_to=${to}&producer=${producer}`, 7);
      assert.deepEqual(both.items, newestFirst(chain, (b) => inRange(b) && b.miner === producer));
      assert.deepEqual((await walk(`/api/v1/${chain}/blocks?time_to=${all[3]!.timestamp}`, 2)).items, newestFirst(chain, (b) => b.timestamp < all[3]!.timestamp));
      assert.deepEqual((await get(`/api/v1/${chain}/blocks?time_from=${tip(chain).timestamp + 1}`)).items, []);
      assert.deepEqual((await get(`/api/v1/${chain}/blocks?producer=${addr(chain, 'produced nothing')}`)).items, []);
    });

    it(`${chain}: a block by height and by hash, in every accepted form`, async () => {
      const all = blocks(chain);
      const tipHeight = tip(chain).height;
      for (const b of [all[0]!, all[Math.floor(all.length / 2)]!, tip(chain)]) {
        // pos: nothing recorded a finalized block for the generated chain; pow: no block is a week deep.
        const want = expectedDetail(chain, NETWORK[chain], b, tipHeight, chain === 'pos' ? null : false);
        assert.deepEqual(await get(`/api/v1/${chain}/blocks/${b.height}`), want);
        const bare = b.hash.replace(/^0x/, '');
        for (const id of [b.hash, bare, bare.toUpperCase(), `0x${bare.toUpperCase()}`]) {
          assert.deepEqual(await get(`/api/v1/${chain}/blocks/${id}`), want, id);
        }
      }
    });

    it(`${chain}: a block's transactions in block order, one row per recipient, paged by cursor`, async () => {
      // The block with the most rows, and one with none.
      const rowsOf = (b: CanonicalBlock) => expectedBlockRows(chain, NETWORK[chain], b);
      const rowCount = (b: CanonicalBlock) => b.transactions.reduce((n, tx) => n + Math.max(1, tx.recipients?.length ?? 1), 0);
      const busy = blocks(chain).reduce((best, b) => (rowCount(b) > rowCount(best) ? b : best));
      const want = rowsOf(busy);
      assert.ok(want.length >= 3, `${chain}: a busy block`);
      const first = await get(`/api/v1/${chain}/blocks/${busy.height}/transactions?limit=2`);
      assert.equal(first.total, want.length);
      assert.equal(first.height, busy.height);
      assert.equal(first.hash, busy.hash);
      assert.deepEqual(first.items, want.slice(0, 2));
      const { items, pages } = await walk(`/api/v1/${chain}/blocks/${busy.hash}/transactions`, 2);
      assert.deepEqual(items, want);
      assert.equal(pages, Math.ceil(want.length / 2));
      // Every block of a stretch of the chain, whole in one page.
      for (const b of blocks(chain).slice(-20)) assert.deepEqual((await get(`/api/v1/${chain}/blocks/${b.height}/transactions?limit=100`)).items, rowsOf(b), `block ${b.height}`);
      if (chain === 'pow') assert.ok(want.some((r) => r.recipient_index !== null), 'multi-recipient rows');
      const empty = blocks(chain).find((b) => b.transactions.length === 0);
      if (empty) assert.deepEqual((await get(`/api/v1/${chain}/blocks/${empty.height}/transactions`)).items, []);
    });
  }

  it('pos: a block\'s withdrawals in block order, paged; the route does not exist on pow', async () => {
    const withWithdrawals = blocks('pos').filter((b) => b.withdrawals.length > 0);
    assert.ok(withWithdrawals.length > 0);
    const b = [...withWithdrawals].sort((x, y) => y.withdrawals.length - x.withdrawals.length)[0]!;
    const { items } = await walk(`/api/v1/pos/blocks/${b.height}/withdrawals`, 1);
    assert.deepEqual(items, expectedWithdrawals(b));
    const body = await get(`/api/v1/pos/blocks/${b.hash}/withdrawals`);
    assert.equal(body.total, b.withdrawals.length);
    assert.equal(body.height, b.height);
    const none = blocks('pos').find((x) => x.withdrawals.length === 0)!;
    assert.deepEqual((await get(`/api/v1/pos/blocks/${none.height}/withdrawals`)).items, []);
    const pow = await request(`/api/v1/pow/blocks/1/withdrawals`);
    assert.equal(pow.statusCode, 404);
    assert.equal(pow.headers['content-type'], 'application/problem+json; charset=utf-8');
  });

  it('a malformed id, producer, cursor or limit is a 400 naming it; a well-formed unknown block is a 404', async () => {
    const bad = async (url: string, param: string) => {
      const res = await request(url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.deepEqual(res.json().errors.map((e: { param: string }) => e.param), [param], url);
    };
    for (const id of ['-1', '+1', '01', '1.5', '1e3', 'abc', '0x12', '0x' + 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), '0x' + 'a'.repeat(66), '99999999999999999', ' 1']) {
      for (const path of ['', '/transactions']) await bad(`/api/v1/pos/blocks/${encodeURIComponent(id)}${path}`, 'id');
      await bad(`/api/v1/pos/blocks/${encodeURIComponent(id)}/withdrawals`, 'id');
    }
    await bad('/api/v1/pow/blocks?producer=Qnot-an-address', 'producer');
    await bad(`/api/v1/pow/blocks?producer=${addr('pos', 'a pos address')}`, 'producer');
    await bad('/api/v1/pos/blocks?cursor=garbage', 'cursor');
    await bad('/api/v1/pos/blocks?limit=0', 'limit');
    await bad('/api/v1/pos/blocks?limit=101', 'limit');
    await bad('/api/v1/pos/blocks?time_from=-1', 'time_from');
    await bad('/api/v1/pos/blocks/1/transactions?limit=101', 'limit');
    // A cursor belongs to its query: the list's filters, a block's hash.
    const listCursor = (await get('/api/v1/pos/blocks?limit=1')).next_cursor;
    await bad(`/api/v1/pos/blocks?limit=1&producer=${busiest('pos')}&cursor=${encodeURIComponent(listCursor)}`, 'cursor');
    const busy = blocks('pow').find((b) => expectedBlockRows('pow', 'mainnet', b).length > 2)!;
    const other = blocks('pow').find((b) => b.height !== busy.height && b.transactions.length > 0)!;
    const txCursor = (await get(`/api/v1/pow/blocks/${busy.height}/transactions?limit=1`)).next_cursor;
    await bad(`/api/v1/pow/blocks/${other.height}/transactions?cursor=${encodeURIComponent(txCursor)}`, 'cursor');

    for (const chain of CHAINS) {
      const unknownHash = (chain === 'pos' ? '0x' : '') + 'ab'.repeat(32);
      for (const id of [String(tip(chain).height + 1), unknownHash]) {
        for (const path of ['', '/transactions']) {
          const res = await request(`/api/v1/${chain}/blocks/${id}${path}`);
          assert.equal(res.statusCode, 404, `${chain} ${id}${path}`);
          assert.match(String(res.headers['content-type']), /application\/problem\+json/);
          assert.match(res.json().detail, /no .* block with/);
        }
      }
    }
    assert.equal((await request(`/api/v1/pos/blocks/${tip('pos').height + 1}/withdrawals`)).statusCode, 404);
  });
});
