/** GET /addresses/{address}/slaves against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { addr } from '../../support/chain-builder.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { POS, POW, addressGetter } from './fixtures.ts';
import { loadHoldingsChains, MASTER, SLAVES } from './holdings-fixtures.ts';

const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);

describeSeededApp('GET /addresses/{address}/slaves', loadHoldingsChains, (s) => {
  const chains = () => s.seeded();
  const get = addressGetter(s.t);

  it('slaves: newest registration first, with each slave\'s activity, paged by offset', async () => {
    const expected = expectedFromBlocks('pow', chains().pow.blocks);
    const registrations = chains().pow.blocks.flatMap((b) =>
      b.transactions.filter((tx) => tx.from === MASTER).flatMap((tx) => tx.slaves.map((s) => ({ block: b, tx, slave: s.slave }))),
    );
    const rows = registrations
      .sort((x, y) => y.block.height - x.block.height || y.tx.index - x.tx.index || (x.slave < y.slave ? -1 : 1))
      .map(({ block, slave }) => {
        const a = expected.addresses.get(slave);
        return {
          slave_address: slave,
          access_type: 0,
          registered_at: iso(block.timestamp),
          registered_height: block.height,
          tx_count: a?.txCount ?? 0,
          first_seen: a?.firstSeen ? iso(a.firstSeen) : null,
          last_seen: a?.lastSeen ? iso(a.lastSeen) : null,
        };
      });
    assert.equal(rows.length, 7);
    assert.equal(rows.find((r) => r.slave_address === SLAVES[1])!.tx_count, 2);
    const all = await get(MASTER, 'slaves');
    assert.deepEqual(all.items, rows);
    assert.equal(all.total, 7);
    assert.equal(all.count, 7);
    assert.equal(all.limit, 25);
    assert.equal(all.offset, 0);
    const page = await get(MASTER, 'slaves?limit=3&offset=3');
    assert.deepEqual(page.items, rows.slice(3, 6));
    assert.equal(page.has_next, true);
    assert.equal(page.has_prev, true);
    const end = await get(MASTER, 'slaves?limit=3&offset=6');
    assert.deepEqual(end.items, rows.slice(6));
    assert.equal(end.has_next, false);
    assert.deepEqual((await get(MASTER, 'slaves?offset=7')).items, []);
    assert.equal((await get(POW.exchange, 'slaves')).total, 1);
  });

  it('slaves: empty for an address without any, an unknown address and on pos', async () => {
    for (const address of [POW.user, addr('pow', 'nobody'), POS.alice, addr('pos', 'nobody')]) {
      const body = await get(address, 'slaves');
      assert.deepEqual(body.items, []);
      assert.equal(body.count, 0);
      assert.equal(body.total, 0);
      assert.equal(body.address, address);
    }
  });
});
