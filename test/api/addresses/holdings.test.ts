/** slaves, token-holdings and internal-transactions against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { AUTH, buildTestApp, type TestApp } from '../../support/app.ts';
import { addr, type ChainBuilder } from '../../support/chain-builder.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { describeEachStore } from '../../support/stores.ts';
import { chainOf, ingestChain, POS, posChain, POW, powChain } from './fixtures.ts';

const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);

/** Display of a raw amount: whole part, a point and the fraction without trailing zeros. */
function display(raw: bigint, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const fraction = (raw % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${raw / unit}${fraction ? `.${fraction}` : ''}`;
}

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

describeEachStore('slaves, token holdings, internal transactions', (getStore) => {
  let t: TestApp;
  let pow: ChainBuilder;
  let pos: ChainBuilder;
  const MASTER = addr('pow', 'master');
  const SLAVES = Array.from({ length: 7 }, (_, i) => addr('pow', `slave-${i}`));

  before(async () => {
    pow = powChain(20);
    // A master with seven slaves, registered over three transactions; some sign afterwards.
    pow.block((b) => {
      b.slave(MASTER, SLAVES.slice(0, 3));
      b.slave(MASTER, SLAVES.slice(3, 5));
      b.coinbase(POW.pool, 1n);
    });
    pow.block((b) => {
      b.slave(MASTER, SLAVES.slice(5));
      b.message(MASTER, 10n, { signer: SLAVES[1]!, masterAddr: MASTER, otsIndex: 0 });
      b.coinbase(POW.pool, 1n);
    });
    pow.block((b) => {
      b.message(MASTER, 10n, { signer: SLAVES[1]!, masterAddr: MASTER, otsIndex: 1 });
      b.message(MASTER, 10n, { signer: SLAVES[6]!, masterAddr: MASTER, otsIndex: 0 });
      b.coinbase(POW.pool, 1n);
    });
    pos = posChain(20);
    await ingestChain(getStore(), pow);
    await ingestChain(getStore(), pos);
    t = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '100000' });
  });
  after(() => t.close());

  const get = async (address: string, path: string) => {
    const res = await t.app.inject({ url: `/api/v1/${chainOf(address)}/addresses/${address}/${path}`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('slaves: newest registration first, with each slave\'s activity, paged by offset', async () => {
    const expected = expectedFromBlocks('pow', pow.blocks);
    const registrations = pow.blocks.flatMap((b) =>
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

  it('token holdings: positive balances, largest display amount first, exact display strings', async () => {
    const expected = expectedFromBlocks('pos', pos.blocks);
    const info = new Map(pos.blocks.flatMap((b) => b.tokens).map((token) => [token.contract, token]));
    const lastTransfer = (holder: string, contract: string) =>
      Math.max(...pos.blocks.filter((b) => b.transactions.some((tx) => tx.tokenTransfers.some((tt) => tt.contract === contract && (tt.to === holder || tt.from === holder)))).map((b) => b.timestamp));
    const transfers = (holder: string, contract: string) =>
      pos.blocks.flatMap((b) => b.transactions.flatMap((tx) => tx.tokenTransfers)).filter((tt) => tt.contract === contract && (tt.to === holder || tt.from === holder)).length;
    for (const holder of [POS.alice, POS.bob, POS.carol]) {
      const holdings = [...expected.tokens]
        .filter(([key, balance]) => key.startsWith(`${holder}|`) && balance > 0n)
        .map(([key, balance]) => {
          const contract = key.split('|')[1]!;
          const token = info.get(contract)!;
          return {
            token_contract: contract,
            token_name: token.name,
            token_symbol: token.symbol,
            token_decimals: token.decimals,
            balance_raw: balance.toString(),
            balance_display: display(balance, token.decimals ?? 0),
            transfer_count: transfers(holder, contract),
            last_activity: iso(lastTransfer(holder, contract)),
          };
        })
        // Richest first by the displayed amount, compared exactly.
        .sort((x, y) => {
          const scale = (h: typeof x) => BigInt(h.balance_raw) * 10n ** BigInt(36 - (h.token_decimals ?? 0));
          return scale(y) > scale(x) ? 1 : scale(y) < scale(x) ? -1 : x.token_contract < y.token_contract ? -1 : 1;
        });
      const body = await get(holder, 'token-holdings');
      assert.deepEqual(body.items, holdings, holder);
      assert.equal(body.count, holdings.length);
      assert.deepEqual((await get(holder, 'token-holdings?limit=1')).items, holdings.slice(0, 1));
    }
    // alice: 3 SIX (raw 3,000,000) outranks 1.5 EIG (raw 1.5e18).
    const alice = await get(POS.alice, 'token-holdings');
    assert.deepEqual(alice.items.map((i: any) => [i.token_symbol, i.balance_display]), [['SIX', '3'], ['EIG', '1.5']]);
    const bob = await get(POS.bob, 'token-holdings');
    assert.deepEqual(bob.items.map((i: any) => [i.token_symbol, i.balance_raw, i.balance_display]), [['EIG', '500000000000000000', '0.5'], ['SIX', '1', '0.000001']]);
  });

  it('token holdings: empty on pow, for an unknown address and for one that holds nothing', async () => {
    for (const address of [POW.user, POW.buyer, addr('pos', 'nobody'), POS.dave]) {
      const body = await get(address, 'token-holdings');
      assert.deepEqual(body.items, []);
      assert.equal(body.count, 0);
    }
  });

  it('internal transactions: the frames touching the address, a self-transfer once, newest first', async () => {
    const all = frames(pos.blocks);
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
        chain: chainOf(address), network: t.config.networks[chainOf(address)], address,
      });
    }
  });
});
