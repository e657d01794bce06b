/** GET /{chain}/transactions against the canonical blocks: order, cursor paging, tx_type, totals, 400s. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CHAINS } from '../../../src/chain/chains.ts';
import { TX_TYPES } from '../../../src/chain/model.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { expectedItem, getter, loadTransactionChains, newestFirst, walk } from './fixtures.ts';

describeSeededApp('GET /{chain}/transactions', loadTransactionChains, (s) => {
  const get = getter(s.t);

  it('the first page: the newest 25 transactions, one item per transaction, the exact total', async () => {
    for (const chain of CHAINS) {
      const all = newestFirst(s.seeded()[chain].blocks);
      const body = await get(`${chain}/transactions`);
      assert.equal(body.chain, chain);
      assert.equal(body.tx_type, null);
      assert.equal(body.limit, 25);
      assert.equal(body.total, all.length);
      assert.equal(body.has_more, all.length > 25);
      assert.deepEqual(body.items, all.slice(0, 25).map(({ block, tx }) => expectedItem(chain, body.network, block, tx)));
    }
  });

  it('paging the whole list by cursor gives every transaction once, newest first', async () => {
    for (const chain of CHAINS) {
      const all = newestFirst(s.seeded()[chain].blocks);
      const { network } = await get(`${chain}/transactions?limit=1`);
      const { items, pages, totals } = await walk(get, `${chain}/transactions`, 9);
      assert.deepEqual(items, all.map(({ block, tx }) => expectedItem(chain, network, block, tx)));
      assert.equal(pages, Math.ceil(all.length / 9));
      assert.ok(totals.every((t) => t === all.length));
    }
  });

  it('a multi-recipient pow transfer is one item: to_addr null, the total value, recipient_count', async () => {
    const { items } = await walk(get, 'pow/transactions?tx_type=transfer', 100);
    const payout = (items as Record<string, unknown>[]).find((item) => item.recipient_count === 100)!;
    assert.equal(payout.to_addr, null);
    assert.equal(payout.recipient_index, null);
    assert.equal(payout.value, String(Array.from({ length: 100 }, (_, i) => 10 + i).reduce((a, b) => a + b, 0)));
  });

  it('tx_type: only that type, paged to the end, with its exact total from the rollups', async () => {
    for (const chain of CHAINS) {
      const all = newestFirst(s.seeded()[chain].blocks);
      const { network } = await get(`${chain}/transactions?limit=1`);
      for (const type of TX_TYPES[chain]) {
        const want = all.filter(({ tx }) => tx.type === type).map(({ block, tx }) => expectedItem(chain, network, block, tx));
        const { items, totals } = await walk(get, `${chain}/transactions?tx_type=${type}`, 4);
        assert.deepEqual(items, want, `${chain} ${type}`);
        assert.ok(totals.every((t) => t === want.length), `${chain} ${type} total`);
      }
      assert.ok(all.some(({ tx }) => tx.type !== 'transfer'));
    }
  });

  it('a bad tx_type, limit or cursor is a 400 naming it', async () => {
    const named = async (path: string, param: string) => {
      const body = await get(path, 400);
      assert.deepEqual(body.errors.map((e: { param: string }) => e.param), [param], path);
      return body;
    };
    const wrong = await named('pow/transactions?tx_type=contract_call', 'tx_type');
    assert.match(wrong.detail, /must be one of: transfer, coinbase, latticePK, message, token, transfer_token, slave, multi_sig_create, multi_sig_spend, multi_sig_vote/);
    assert.match((await named('pos/transactions?tx_type=coinbase', 'tx_type')).detail, /transfer, contract_call, contract_create$/);
    await named('pos/transactions?limit=0', 'limit');
    await named('pos/transactions?limit=101', 'limit');
    await named('pos/transactions?limit=1e1', 'limit');
    await named('pos/transactions?cursor=not-a-cursor', 'cursor');
    // A cursor is bound to its chain and filter.
    const first = await get('pos/transactions?limit=2');
    await named(`pos/transactions?tx_type=transfer&cursor=${encodeURIComponent(first.next_cursor)}`, 'cursor');
    await named(`pow/transactions?cursor=${encodeURIComponent(first.next_cursor)}`, 'cursor');
    const other = await get('pos/addresses/Q' + '1'.repeat(40) + '/transactions?limit=1');
    assert.equal(other.next_cursor, null);
    await get('nochain/transactions', 404);
  });
});
