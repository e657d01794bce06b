/** counterparties, balance-history, activity-heatmap and provenance against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { isSentinel, type ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { AUTH, buildTestApp, type TestApp } from '../../support/app.ts';
import { addr, type ChainBuilder } from '../../support/chain-builder.ts';
import { expectedFromBlocks, type ExpectedDay } from '../../support/expected.ts';
import { describeEachStore } from '../../support/stores.ts';
import { chainOf, ingestChain, POS, posChain, POW, powChain } from './fixtures.ts';

const DAY = 86_400;
const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);
const dayOf = (ts: number) => iso(ts).slice(0, 10);

interface Pair {
  count: number;
  sent: number;
  received: number;
  totalSent: bigint;
  totalReceived: bigint;
  last: number;
}

/** Transactions between two wallets (never a mint sentinel), value each way, latest time. */
function expectedPairs(chain: ChainId, blocks: CanonicalBlock[], address: string): Map<string, Pair> {
  const pairs = new Map<string, Pair>();
  const pair = (other: string, ts: number) => {
    let p = pairs.get(other);
    if (!p) pairs.set(other, (p = { count: 0, sent: 0, received: 0, totalSent: 0n, totalReceived: 0n, last: 0 }));
    p.last = Math.max(p.last, ts);
    return p;
  };
  for (const block of blocks) {
    for (const tx of block.transactions) {
      if (isSentinel(chain, tx.from)) continue;
      // What the sender paid each recipient in this transaction (a reverted one moves nothing).
      const paid = new Map<string, bigint>();
      const single = tx.to ?? tx.contractAddress;
      if (single) paid.set(single, tx.status === 0 ? 0n : tx.value);
      for (const r of tx.recipients ?? []) paid.set(r.to, (paid.get(r.to) ?? 0n) + r.amount);
      for (const [to, amount] of paid) {
        if (isSentinel(chain, to)) continue;
        if (tx.from === address) {
          const p = pair(to, block.timestamp);
          p.count++;
          p.sent++;
          p.totalSent += amount;
          if (to === address) {
            p.received++;
            p.totalReceived += amount;
          }
        } else if (to === address) {
          const p = pair(tx.from, block.timestamp);
          p.count++;
          p.received++;
          p.totalReceived += amount;
        }
      }
    }
  }
  return pairs;
}

/** Time of the first positive credit of an address, in the order the chain applies them. */
function firstCredit(chain: ChainId, blocks: CanonicalBlock[], address: string): number | null {
  for (const block of blocks) {
    const credits = [
      ...block.allocations.map((a) => [a.address, a.amount] as const),
      ...block.transactions.flatMap((tx) => [
        ...(tx.status !== 0 && (tx.to ?? tx.contractAddress) ? [[tx.to ?? tx.contractAddress!, tx.value] as const] : []),
        ...(tx.recipients ?? []).map((r) => [r.to, r.amount] as const),
        ...(tx.status !== 0 ? tx.internal.map((f) => [f.to, f.value] as const) : []),
      ]),
      ...block.withdrawals.map((w) => [w.address, w.amount] as const),
      ...(chain === 'pos' && block.miner ? [[block.miner, block.transactions.reduce((s, tx) => s + tx.fee - tx.burned, 0n)] as const] : []),
    ];
    if (credits.some(([to, amount]) => to === address && amount > 0n)) return block.timestamp;
  }
  return null;
}

describeEachStore('per-address rollup endpoints', (getStore) => {
  let t: TestApp;
  let pow: ChainBuilder;
  let pos: ChainBuilder;
  const chains = () => ({ pow, pos });

  before(async () => {
    pow = powChain();
    pos = posChain();
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
  const addresses = [...Object.values(POW), ...Object.values(POS), addr('pos', 'miner'), addr('pow', 'miner')];

  for (const address of addresses) {
    const chain = chainOf(address);
    it(`${chain} ${address.slice(0, 8)}: counterparties in every direction`, async () => {
      const pairs = expectedPairs(chain, chains()[chain].blocks, address);
      const oracle = expectedFromBlocks(chain, chains()[chain].blocks).counterparties.get(address) ?? new Map();
      assert.deepEqual(new Map([...pairs].map(([k, p]) => [k, p.count])), oracle, 'the test agrees with the shared oracle on counts');
      for (const direction of ['both', 'sent', 'received'] as const) {
        const n = (p: Pair) => (direction === 'both' ? p.count : direction === 'sent' ? p.sent : p.received);
        const expected = [...pairs]
          .filter(([, p]) => n(p) > 0)
          .sort(([a, p], [b, q]) => n(q) - n(p) || (a < b ? -1 : 1))
          .map(([counterparty, p]) => ({
            counterparty,
            tx_count_with: n(p),
            total_sent_to_them: direction === 'received' ? null : p.totalSent.toString(),
            total_received_from_them: direction === 'sent' ? null : p.totalReceived.toString(),
            last_interaction: iso(p.last),
          }));
        for (const limit of [1, 2, 200]) {
          const body = await get(address, `counterparties?direction=${direction}&limit=${limit}`);
          assert.deepEqual(body.items, expected.slice(0, limit), `${direction} limit ${limit}`);
          assert.equal(body.count, Math.min(limit, expected.length));
          assert.equal(body.direction, direction);
          assert.equal(body.address, address);
        }
      }
    });

    it(`${chain} ${address.slice(0, 8)}: balance history, heatmap, provenance`, async () => {
      const blocks = chains()[chain].blocks;
      const expected = expectedFromBlocks(chain, blocks);
      const a = expected.addresses.get(address);
      const tipDay = dayOf(blocks.at(-1)!.timestamp);

      // Balance history: every day from the first activity to the tip's day, the running sum being the balance.
      const days = [...(expected.daily.get(address) ?? new Map<string, ExpectedDay>())].filter(([, d]) => d.received > 0n || d.sentWithFees > 0n || d.txIn > 0 || d.txOut > 0);
      const series: Record<string, unknown>[] = [];
      if (days.length > 0) {
        let running = 0n;
        const byDay = new Map(days);
        for (let ts = Date.parse(`${days.map(([d]) => d).sort()[0]}T00:00:00Z`) / 1000; dayOf(ts) <= tipDay; ts += DAY) {
          const d = byDay.get(dayOf(ts));
          running += (d?.received ?? 0n) - (d?.sentWithFees ?? 0n);
          series.push({
            day: dayOf(ts), received: String(d?.received ?? 0n), sent_with_fees: String(d?.sentWithFees ?? 0n),
            // The fixture chains let an address spend before it is credited; a negative amount is answered as null.
            tx_count_in: d?.txIn ?? 0, tx_count_out: d?.txOut ?? 0, net_delta_cumulative: running < 0n ? null : running.toString(),
          });
        }
        assert.equal(running, a!.balance, 'the last point is the balance');
      }
      const all = await get(address, 'balance-history');
      assert.deepEqual(all.items, series);
      assert.equal(all.count, series.length);
      assert.equal(all.window_days, null);
      assert.deepEqual((await get(address, 'balance-history?window=all')).items, series);
      for (const [window, n] of [['3d', 3], ['1d', 1], ['36h', 2], ['2w', 14], ['10y', 3650]] as const) {
        const body = await get(address, `balance-history?window=${window}`);
        assert.deepEqual(body.items, series.slice(-n), window);
        assert.equal(body.window_days, n);
      }
      if (address === POW.user || address === POS.alice) assert.ok(series.length > days.length, 'quiet days are filled');

      // Heatmap: sparse cells by weekday (Monday 0) and hour.
      const cells = [...(expected.heatmap.get(address) ?? new Map())]
        .map(([slot, c]) => {
          const [dow, hour] = slot.split(':').map(Number) as [number, number];
          return { day_of_week: dow, hour_of_day: hour, tx_count_in: c.in, tx_count_out: c.out, tx_count_total: c.total };
        })
        .sort((x, y) => x.day_of_week - y.day_of_week || x.hour_of_day - y.hour_of_day);
      const heat = await get(address, 'activity-heatmap');
      assert.deepEqual(heat.items, cells);
      assert.equal(heat.count, cells.length);

      // Provenance.
      const provenance = await get(address, 'provenance');
      const funded = firstCredit(chain, blocks, address);
      assert.deepEqual(provenance, {
        funded_by: a?.fundedBy ?? null,
        funded_at: funded === null ? null : iso(funded),
        funded_tx: a?.fundedTx ?? null,
        first_tx: a?.firstTx ?? null,
        first_tx_at: a?.firstSeen ? iso(a.firstSeen) : null,
        last_tx: a?.lastTx ?? null,
        last_tx_at: a?.lastSeen ? iso(a.lastSeen) : null,
        chain,
        network: t.config.networks[chain],
        address,
      });
    });
  }

  it('the heatmap puts Monday first and uses UTC hours', async () => {
    // T0 is Monday 20:00 UTC: the first coinbase of pow, to the pool, is on Monday at 22:00.
    const heat = await get(POW.pool, 'activity-heatmap');
    assert.ok(heat.items.some((c: any) => c.day_of_week === 0 && c.hour_of_day === 22));
    assert.ok(heat.items.every((c: any) => c.day_of_week >= 0 && c.day_of_week <= 6 && c.hour_of_day >= 0 && c.hour_of_day <= 23));
  });

  it('a mint funds from its sentinel; genesis and withdrawals fund without a sender', async () => {
    assert.equal((await get(POS.claimer, 'provenance')).funded_by, 'Q' + '0'.repeat(40));
    assert.equal((await get(POS.dave, 'provenance')).funded_by, POS.router, 'an internal transfer funds from its contract');
    const alice = await get(POS.alice, 'provenance');
    assert.equal(alice.funded_by, null);
    assert.equal(alice.funded_tx, null);
    assert.equal(alice.funded_at, iso(pos.blocks[0]!.timestamp));
    assert.equal((await get(POW.pool, 'provenance')).funded_by, 'Q' + '0'.repeat(64));
  });

  it('counterparties never list the mint sentinels', async () => {
    for (const address of [POW.pool, POW.m1, POS.dave]) {
      const body = await get(address, 'counterparties?limit=200');
      assert.ok(body.items.every((i: any) => !/^Q0+$/.test(i.counterparty)));
    }
  });

  it('unknown addresses: empty lists and nulls', async () => {
    for (const address of [addr('pow', 'nobody'), addr('pos', 'nobody')]) {
      const chain = chainOf(address);
      const echo = { chain, network: t.config.networks[chain], address };
      assert.deepEqual(await get(address, 'counterparties'), { items: [], count: 0, direction: 'both', ...echo });
      assert.deepEqual(await get(address, 'balance-history'), { items: [], count: 0, window_days: null, ...echo });
      assert.deepEqual(await get(address, 'balance-history?window=30d'), { items: [], count: 0, window_days: 30, ...echo });
      assert.deepEqual(await get(address, 'activity-heatmap'), { items: [], count: 0, ...echo });
      assert.deepEqual(await get(address, 'provenance'), {
        funded_by: null, funded_at: null, funded_tx: null, first_tx: null, first_tx_at: null, last_tx: null, last_tx_at: null, ...echo,
      });
    }
  });
});
