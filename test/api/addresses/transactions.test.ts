import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { TX_TYPES } from '../../../src/chain/model.ts';
import { tuningWith } from '../../../src/api/context.ts';
import type { Store } from '../../../src/store/store.ts';
import { AUTH, buildTestApp, type TestApp } from '../../support/app.ts';
import { addr, type ChainBuilder } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { chainOf, comparable, expectedComparable, expectedFeed, ingestChain, POS, posChain, POW, powChain, T0, type FeedFilters } from './fixtures.ts';

const DAY = 86_400;

async function loadChains(store: Store): Promise<{ pow: ChainBuilder; pos: ChainBuilder }> {
  const pow = powChain();
  const pos = posChain();
  await ingestChain(store, pow);
  await ingestChain(store, pos);
  return { pow, pos };
}

describeSeededApp('GET /addresses/{address}/transactions', loadChains, (s) => {
  const pow = () => s.seeded().pow;
  const pos = () => s.seeded().pos;
  // A second app on the same store (the helper builds one): every offset located by days and every type count probed.
  let located: TestApp;
  before(async () => {
    located = await buildTestApp(s.store(), { QUARRY_RATE_LIMIT_MAX: '100000' }, { tuning: tuningWith({ feed: { directOffset: 0, typeCountProbe: 2 } }) });
  });
  after(() => located.close());

  const get = async (address: string, query = '', app = s.t()) => {
    const res = await app.app.inject({ url: `/api/v1/${chainOf(address)}/addresses/${address}/transactions${query}`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  /** Every row of the feed with these filters, by offset pages of `limit`, and the last page's body. */
  async function walkOffsets(address: string, query: string, limit: number, app = s.t()) {
    const items: Record<string, unknown>[] = [];
    for (let offset = 0; ; offset += limit) {
      const body = await get(address, `?limit=${limit}&offset=${offset}${query}`, app);
      assert.equal(body.offset, offset);
      items.push(...body.items);
      if (!body.has_more) {
        assert.equal(body.next_cursor, null);
        return items;
      }
      assert.equal(body.count, limit);
    }
  }

  async function walkCursor(address: string, query: string, limit: number) {
    const items: Record<string, unknown>[] = [];
    let body = await get(address, `?limit=${limit}${query}`);
    for (;;) {
      items.push(...body.items);
      if (!body.has_more) {
        assert.equal(body.next_cursor, null);
        return items;
      }
      body = await get(address, `?limit=${limit}&cursor=${encodeURIComponent(body.next_cursor)}${query}`);
      assert.equal('offset' in body, false, 'cursor pages carry no offset (the spec types it as an integer)');
    }
  }

  const toQuery = (f: FeedFilters) =>
    [
      f.direction ? `&direction=${f.direction}` : '',
      f.txType ? `&tx_type=${f.txType}` : '',
      f.from !== undefined ? `&time_from=${f.from}` : '',
      f.to !== undefined ? `&time_to=${f.to}` : '',
    ].join('');

  const cases: [string, () => ChainBuilder, string, FeedFilters][] = [];
  for (const [name, address] of Object.entries(POW)) {
    for (const direction of ['both', 'in', 'out'] as const) cases.push([`pow ${name} ${direction}`, pow, address, { direction }]);
  }
  for (const [name, address] of Object.entries(POS)) {
    for (const direction of ['both', 'in', 'out'] as const) cases.push([`pos ${name} ${direction}`, pos, address, { direction }]);
  }
  cases.push(
    ['pow user transfers', pow, POW.user, { txType: 'transfer' }],
    ['pow user transfer_token', pow, POW.user, { txType: 'transfer_token' }],
    ['pow user messages', pow, POW.user, { txType: 'message' }],
    ['pow slave transfers out', pow, POW.slave, { txType: 'transfer', direction: 'out' }],
    ['pow pool coinbase in', pow, POW.pool, { txType: 'coinbase', direction: 'in' }],
    ['pow m1 coinbase', pow, POW.m1, { txType: 'coinbase' }],
    ['pow m2 in, days 2-3', pow, POW.m2, { direction: 'in', from: T0 + DAY, to: T0 + 3 * DAY }],
    ['pow user, mid-day to mid-day', pow, POW.user, { from: T0 + 5 * 3600, to: T0 + 4 * DAY + 7 * 3600 }],
    ['pow user, whole days', pow, POW.user, { from: Math.ceil(T0 / DAY) * DAY, to: Math.ceil(T0 / DAY) * DAY + 3 * DAY }],
    ['pow exchange, from only', pow, POW.exchange, { from: T0 + 2 * DAY + 1 }],
    ['pow exchange, to only', pow, POW.exchange, { to: T0 + 2 * DAY + 1 }],
    ['pow exchange transfers out, time range', pow, POW.exchange, { direction: 'out', txType: 'transfer', from: T0 + DAY, to: T0 + 5 * DAY }],
    ['pow pool, most of one day', pow, POW.pool, { from: Math.ceil(T0 / DAY) * DAY + 3600, to: Math.ceil(T0 / DAY) * DAY + 23 * 3600 }],
    ['pow pool in, a few hours', pow, POW.pool, { direction: 'in', from: Math.ceil(T0 / DAY) * DAY + 3600, to: Math.ceil(T0 / DAY) * DAY + 5 * 3600 }],
    ['pow pool out, 20 hours over midnight', pow, POW.pool, { direction: 'out', from: T0 + 2 * DAY - 3600, to: T0 + 2 * DAY + 19 * 3600 }],
    ['pow m1, from midnight to late evening', pow, POW.m1, { from: Math.ceil(T0 / DAY) * DAY + DAY, to: Math.ceil(T0 / DAY) * DAY + 2 * DAY - 3600 }],
    ['pow m2, from early morning to midnight', pow, POW.m2, { from: Math.ceil(T0 / DAY) * DAY + 3600, to: Math.ceil(T0 / DAY) * DAY + 3 * DAY }],
    ['pow pool coinbase, mid-day to mid-day', pow, POW.pool, { txType: 'coinbase', from: T0 + 5 * 3600, to: T0 + 4 * DAY + 7 * 3600 }],
    ['pos router contract_create', pos, POS.router, { txType: 'contract_create' }],
    ['pos carol contract_call out', pos, POS.carol, { txType: 'contract_call', direction: 'out' }],
    ['pos bob transfers, within a day', pos, POS.bob, { txType: 'transfer', from: T0 + 7200, to: T0 + 12 * 3600 }],
    ['pos empty range', pos, POS.bob, { from: T0 + 1000 * DAY }],
    ['pos inverted range', pos, POS.bob, { from: T0 + 2 * DAY, to: T0 + DAY }],
  );

  for (const [title, chain, address, filters] of cases) {
    it(`${title}: rows, order and total match the blocks`, async () => {
      const expected = expectedFeed(chain().blocks, address, filters);
      const items = await walkOffsets(address, toQuery(filters), 9);
      assert.deepEqual(items.map(comparable), expected.rows.map(expectedComparable));
      const first = await get(address, `?limit=9${toQuery(filters)}`);
      assert.equal(first.total, expected.total);
      assert.ok(first.total <= expected.rows.length, 'a transaction counts once, whatever its rows');
      // Cursor pages give the same rows as offset pages on a quiet chain.
      assert.deepEqual(await walkCursor(address, toQuery(filters), 5), items);
    });

    const deep = filters.txType !== undefined || filters.from !== undefined || filters.to !== undefined ||
      ['pow user', 'pow pool', 'pow slave', 'pow exchange', 'pow m1', 'pos bob', 'pos carol'].some((prefix) => title.startsWith(prefix));
    if (!deep) continue;
    it(`${title}: the same with every offset located by days and every type count probed`, async () => {
      const expected = expectedFeed(chain().blocks, address, filters);
      const items = await walkOffsets(address, toQuery(filters), 3, located);
      assert.deepEqual(items.map(comparable), expected.rows.map(expectedComparable));
      for (const offset of [1, 5, expected.rows.length - 1, expected.rows.length, expected.rows.length + 3].filter((o) => o >= 0)) {
        const body = await get(address, `?limit=2&offset=${offset}${toQuery(filters)}`, located);
        assert.deepEqual(body.items.map(comparable), expected.rows.slice(offset, offset + 2).map(expectedComparable), `offset ${offset}`);
        assert.equal(body.total, expected.total);
        assert.equal(body.has_more, offset + 2 < expected.rows.length);
      }
    });
  }

  it('covers the shapes it means to: multi-recipient, self, signer, creation, reverted', () => {
    const user = expectedFeed(pow().blocks, POW.user).rows;
    assert.ok(user.some((r) => r.from_addr === POW.user && r.to_addr === POW.user && r.recipient_index === null), 'single self-transfer');
    assert.ok(user.some((r) => r.from_addr === POW.user && r.to_addr === POW.user && r.recipient_index === 0), 'self inside a multi-recipient transfer');
    const m1 = expectedFeed(pow().blocks, POW.m1, { txType: 'transfer' }).rows;
    assert.ok(m1.some((r, i) => i > 0 && r.tx_hash === m1[i - 1]!.tx_hash), 'one recipient twice in a transaction');
    assert.ok(expectedFeed(pow().blocks, POW.slave).rows.some((r) => r.recipient_index === 1), 'a signer sees every recipient');
    assert.ok(expectedFeed(pos().blocks, POS.child).rows.length === 1);
  });

  it('rows carry TransactionDetail fields: block hash, per-row value, whole fee, pos gas data', async () => {
    const body = await get(POS.carol, '?tx_type=contract_call&limit=1');
    const [item] = body.items;
    const block = pos().blocks.find((b) => b.height === item.height)!;
    const tx = block.transactions[item.tx_index]!;
    assert.equal(item.block_hash, block.hash);
    assert.equal(item.chain, 'pos');
    assert.equal(item.network, s.t().config.networks.pos);
    assert.equal(item.gas_used, tx.gasUsed);
    assert.equal(item.effective_gas_price, tx.effectiveGasPrice!.toString());
    assert.equal(item.status, 1);
    assert.equal(item.input_data, '0xabcdef01');
    assert.equal(item.tx_type_evm, 2);
    assert.equal(typeof item.value, 'string');

    const payout = (await get(POW.m2, '?tx_type=transfer&direction=in&limit=100')).items.find((i: any) => i.from_addr === POW.pool);
    assert.equal(payout.value, '2000');
    assert.equal(payout.fee, '3000');
    assert.equal(payout.recipient_index, 1);
  });

  it('a contract creation shows to_addr null and the contract it made', async () => {
    const body = await get(POS.child);
    assert.equal(body.total, 1);
    assert.equal(body.items[0].to_addr, null);
    assert.equal(body.items[0].contract_address, POS.child);
    assert.equal(body.items[0].from_addr, POS.factory);
    assert.equal(body.items[0].tx_type, 'contract_create');
  });

  it('offset takes precedence over cursor', async () => {
    const first = await get(POW.user, '?limit=4');
    const viaCursor = await get(POW.user, `?limit=4&cursor=${encodeURIComponent(first.next_cursor)}`);
    const both = await get(POW.user, `?limit=4&offset=0&cursor=${encodeURIComponent(first.next_cursor)}`);
    assert.deepEqual(both.items, first.items);
    assert.equal(both.offset, 0);
    const deeper = await get(POW.user, `?limit=4&offset=4&cursor=${encodeURIComponent(first.next_cursor)}`);
    assert.deepEqual(deeper.items, viaCursor.items);
    assert.equal(deeper.offset, 4);
    assert.equal('offset' in viaCursor, false);
  });

  it('defaults: limit 25, direction both, offset 0', async () => {
    const body = await get(POW.pool);
    assert.equal(body.limit, 25);
    assert.equal(body.count, 25);
    assert.equal(body.offset, 0);
    assert.equal(body.direction, 'both');
    assert.equal(body.tx_type, null);
    assert.equal(body.has_more, true);
    assert.equal(body.address, POW.pool);
  });

  it('an unknown address has an empty feed', async () => {
    for (const address of [addr('pow', 'nobody'), addr('pos', 'nobody')]) {
      const body = await get(address);
      assert.deepEqual(body.items, []);
      assert.equal(body.count, 0);
      assert.equal(body.total, 0);
      assert.equal(body.has_more, false);
      assert.equal(body.next_cursor, null);
    }
  });

  it('pos answers Q, Z and 0x forms in any case alike, in the Q form', async () => {
    const hex = POS.bob.slice(1);
    const canonical = await get(POS.bob, '?limit=5');
    for (const form of [`Z${hex}`, `0x${hex.toUpperCase()}`, `q${hex}`, `0X${hex}`]) {
      const res = await s.t().app.inject({ url: `/api/v1/pos/addresses/${form}/transactions?limit=5`, headers: AUTH });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), canonical);
    }
    assert.equal(canonical.address, POS.bob);
  });

  it('a pow address is accepted in upper case and answered in lower case', async () => {
    const res = await s.t().app.inject({ url: `/api/v1/pow/addresses/Q${POW.user.slice(1).toUpperCase()}/transactions?limit=2`, headers: AUTH });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().address, POW.user);
  });

  it('tx_type values are per chain', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const address = chain === 'pow' ? POW.user : POS.bob;
      for (const txType of TX_TYPES[chain]) assert.equal((await get(address, `?tx_type=${txType}`)).tx_type, txType);
    }
    const res = await s.t().app.inject({ url: `/api/v1/pos/addresses/${POS.bob}/transactions?tx_type=coinbase`, headers: AUTH });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].param, 'tx_type');
    assert.match(res.json().errors[0].message, /transfer, contract_call, contract_create/);
  });
});
