/** GET /addresses/{address}/counterparties against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isSentinel, type ChainId } from '../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { addr } from '../../support/chain-builder.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { chainOf, POS, POW, addressGetter } from './fixtures.ts';
import { loadRollupChains, ROLLUP_ADDRESSES } from './rollup-fixtures.ts';

const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);

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
      // A pow transfer lists every recipient, its `to` (set when there is one) among them.
      const single = tx.to ?? tx.contractAddress;
      if (tx.recipients) for (const r of tx.recipients) paid.set(r.to, (paid.get(r.to) ?? 0n) + r.amount);
      else if (single) paid.set(single, tx.status === 0 ? 0n : tx.value);
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

describeSeededApp('GET /addresses/{address}/counterparties', loadRollupChains, (s) => {
  const chains = () => s.seeded();
  const get = addressGetter(s.t);

  for (const address of ROLLUP_ADDRESSES) {
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
  }

  it('counterparties never list the mint sentinels', async () => {
    for (const address of [POW.pool, POW.m1, POS.dave]) {
      const body = await get(address, 'counterparties?limit=200');
      assert.ok(body.items.every((i: any) => !/^Q0+$/.test(i.counterparty)));
    }
  });

  it('unknown addresses: an empty list', async () => {
    for (const address of [addr('pow', 'nobody'), addr('pos', 'nobody')]) {
      const chain = chainOf(address);
      const echo = { chain, network: s.t().config.networks[chain], address };
      assert.deepEqual(await get(address, 'counterparties'), { items: [], count: 0, direction: 'both', ...echo });
    }
  });
});
