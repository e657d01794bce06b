/** GET /addresses/{address}/internal-transactions against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { addr } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { chainOf, POS, POW, addressGetter } from './fixtures.ts';
import { loadHoldingsChains } from './holdings-fixtures.ts';

const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);

interface Frame {
  height: number;
  txIndex: number;
  ts: number;
  blockHash: string;
  txHash: string;
  trace: string;
  callType: string;
  from: string;
  to: string;
  value: bigint;
}

function frames(blocks: CanonicalBlock[]): Frame[] {
  return blocks.flatMap((b) =>
    b.transactions.flatMap((tx) =>
      tx.internal.map((f) => ({
        height: b.height, txIndex: tx.index, ts: b.timestamp, blockHash: b.hash, txHash: tx.hash,
        trace: f.traceAddress, callType: f.callType, from: f.from, to: f.to, value: f.value,
      })),
    ),
  );
}

describeSeededApp('GET /addresses/{address}/internal-transactions', loadHoldingsChains, (s) => {
  const chains = () => s.seeded();
  const get = addressGetter(s.t);

  it('internal transactions: the frames touching the address, a self-transfer once, newest first', async () => {
    const all = frames(chains().pos.blocks);
    for (const address of [POS.router, POS.dave, POS.carol, POS.bob]) {
      const touching = all
        .filter((f) => f.from === address || f.to === address)
        .sort((x, y) => y.height - x.height || y.txIndex - x.txIndex || (y.trace > x.trace ? 1 : y.trace < x.trace ? -1 : 0))
        .map((f) => ({
          height: f.height, block_hash: f.blockHash, tx_hash: f.txHash, trace_address: f.trace, call_type: f.callType,
          from_addr: f.from, to_addr: f.to, value: f.value.toString(), timestamp: iso(f.ts),
          direction: f.from === f.to ? 'self' : f.from === address ? 'out' : 'in',
        }));
      const first = await get(address, 'internal-transactions');
      assert.equal(first.total, touching.length, address);
      assert.equal(first.page, 1);
      assert.equal(first.page_size, 25);
      assert.deepEqual(first.items, touching.slice(0, 25));
      const pages: unknown[] = [];
      for (let page = 1; page <= Math.max(1, Math.ceil(touching.length / 2)); page++) {
        const body = await get(address, `internal-transactions?page=${page}&page_size=2`);
        assert.equal(body.total_pages, Math.ceil(touching.length / 2));
        assert.equal(body.count, body.items.length);
        pages.push(...body.items);
      }
      assert.deepEqual(pages, touching);
      assert.deepEqual((await get(address, `internal-transactions?page=${touching.length + 1}&page_size=1`)).items, []);
    }
    const router = await get(POS.router, 'internal-transactions?page_size=100');
    assert.ok(router.items.some((i: any) => i.direction === 'self'));
    assert.ok(router.items.some((i: any) => i.direction === 'out'));
    assert.ok(router.items.some((i: any) => i.trace_address === '11'), 'a call with more than ten frames');
  });

  it('internal transactions: empty page on pow and for an unknown address', async () => {
    for (const address of [POW.user, addr('pos', 'nobody')]) {
      const body = await get(address, 'internal-transactions?page=2&page_size=10');
      assert.deepEqual(body, {
        items: [], count: 0, total: 0, page: 2, page_size: 10, total_pages: 0,
        chain: chainOf(address), network: s.t().config.networks[chainOf(address)], address,
        internal_transfers: chainOf(address) === 'pos' ? 'indexed' : 'not_applicable', internal_transfers_not_indexed_from: null,
      });
    }
  });
});
