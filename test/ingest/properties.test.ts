/**
 * Property-style checks of the pipeline on random chains: whatever the batch sizes, reorgs and
 * crashes, the rollups equal the oracle computed from the canonical blocks.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { SENTINELS, type ChainId } from '../../src/chain/chains.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { beginBulkLoad } from '../../src/ingest/bulk.ts';
import type { Store } from '../../src/store/store.ts';
import { expectedFromBlocks } from '../support/expected.ts';
import { assertRanksMatch } from '../support/rollup-assertions.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';
import { forSeed, randomChain, rng } from '../support/random-chain.ts';
import { crashingStore } from '../support/crashing-store.ts';
import type { ChainBuilder } from '../support/chain-builder.ts';
import { utcDay } from '../support/utc-day.ts';

async function assertRollupsMatch(store: Store, chain: ChainId, c: ChainBuilder, seed: number) {
  const expected = expectedFromBlocks(chain, c.blocks);
  const rows = await store.query<{ address: string; balance: string; tx_count: number; last_seen: number; first_seen: number }>(
    'test.summary',
    sql`SELECT address, balance, tx_count, last_seen, first_seen FROM address_summary WHERE chain = ${chain}`,
  );
  const got = new Map(rows.map((r) => [r.address, r]));
  assert.equal(got.size, expected.addresses.size, `seed ${seed}: address count`);
  for (const [address, e] of expected.addresses) {
    const a = got.get(address);
    assert.ok(a, `seed ${seed}: ${address} present`);
    assert.equal(a.balance, e.balance.toString(), `seed ${seed}: balance of ${address}`);
    assert.equal(a.tx_count, e.txCount, `seed ${seed}: tx_count of ${address}`);
    assert.equal(a.last_seen, e.lastSeen, `seed ${seed}: last_seen of ${address}`);
    assert.equal(a.first_seen, e.firstSeen, `seed ${seed}: first_seen of ${address}`);
  }
  // Addresses per last-activity time (kept by triggers on address_summary through every apply, revert and repair).
  const seen = await store.query<{ last_seen: number; addresses: number }>(
    'test.last_seen_counts',
    sql`SELECT last_seen, addresses::int AS addresses FROM address_last_seen_counts WHERE chain = ${chain}`,
  );
  const wantSeen = new Map<number, number>();
  for (const e of expected.addresses.values()) if (e.lastSeen !== null) wantSeen.set(e.lastSeen, (wantSeen.get(e.lastSeen) ?? 0) + 1);
  assert.deepEqual(new Map(seen.map((r) => [Number(r.last_seen), r.addresses])), wantSeen, `seed ${seed}: addresses per last_seen`);
  const [counts] = await store.query<{ blocks: number; txs: number; dups: number }>(
    'test.raw',
    sql`SELECT (SELECT count(*)::int FROM blocks WHERE chain = ${chain}) AS blocks,
               (SELECT count(*)::int FROM transactions WHERE chain = ${chain}) AS txs,
               (SELECT count(*)::int FROM (SELECT height FROM blocks WHERE chain = ${chain} GROUP BY height HAVING count(*) > 1) d) AS dups`,
  );
  assert.equal(counts!.blocks, expected.blocks, `seed ${seed}: no gap, no duplicate block`);
  assert.equal(counts!.txs, expected.transactions, `seed ${seed}: transactions`);
  const daily = await store.query<{ address: string; day: string; net: string }>(
    'test.daily',
    sql`SELECT address, day, (received - sent - fees)::text AS net FROM address_daily WHERE chain = ${chain}`,
  );
  await assertRanksMatch(store, chain, expected, c.blocks.at(-1)?.timestamp ?? null, `seed ${seed}: `);
  let dailyRows = 0;
  for (const [, days] of expected.daily) dailyRows += days.size;
  assert.equal(daily.length, dailyRows, `seed ${seed}: address_daily rows`);
  await assertTokensMatch(store, chain, c, seed);
}

/**
 * token_balances, token_stats and token_daily against the canonical blocks: each holder's balance,
 * each token's holders (positive balances, sentinels aside), transfers, supply (minted from a
 * sentinel less burned to one) and first block, and each day's transfers and holders at its end.
 */
async function assertTokensMatch(store: Store, chain: ChainId, c: ChainBuilder, seed: number) {
  const balances = new Map<string, Map<string, bigint>>();
  const stats = new Map<string, { transfers: number; supply: bigint; first: number }>();
  const days = new Map<string, Map<string, { transfers: number; holders: number }>>();
  for (const block of c.blocks) {
    const day = utcDay(block.timestamp);
    for (const tx of block.transactions) {
      if (tx.status === 0) continue;
      for (const t of tx.tokenTransfers) {
        const s = stats.get(t.contract) ?? stats.set(t.contract, { transfers: 0, supply: 0n, first: block.height }).get(t.contract)!;
        s.transfers++;
        if (SENTINELS[chain].includes(t.from)) s.supply += t.amount;
        if (SENTINELS[chain].includes(t.to)) s.supply -= t.amount;
        const held = balances.get(t.contract) ?? balances.set(t.contract, new Map()).get(t.contract)!;
        if (!SENTINELS[chain].includes(t.to)) held.set(t.to, (held.get(t.to) ?? 0n) + t.amount);
        if (!SENTINELS[chain].includes(t.from)) held.set(t.from, (held.get(t.from) ?? 0n) - t.amount);
        const perDay = days.get(t.contract) ?? days.set(t.contract, new Map()).get(t.contract)!;
        perDay.set(day, { transfers: (perDay.get(day)?.transfers ?? 0) + 1, holders: 0 });
      }
    }
    for (const [contract, perDay] of days) {
      const today = perDay.get(day);
      if (today) today.holders = [...balances.get(contract)!.values()].filter((b) => b > 0n).length;
    }
  }
  const holdersOf = (contract: string) => [...(balances.get(contract)?.values() ?? [])].filter((b) => b > 0n).length;
  assert.ok(stats.size > 0, `seed ${seed}: the chain moves a token`);
  const gotStats = await store.query<{ contract: string; holders: number; transfers: number; supply: string; first_height: number }>(
    'test.token_stats',
    sql`SELECT contract, holders, transfers::int AS transfers, supply::text AS supply, first_height FROM token_stats WHERE chain = ${chain} ORDER BY contract`,
  );
  assert.deepEqual(
    byKey(gotStats, (r) => r.contract),
    [...stats].sort(([a], [b]) => (a < b ? -1 : 1)).map(([contract, s]) => ({ contract, holders: holdersOf(contract), transfers: s.transfers, supply: s.supply.toString(), first_height: s.first })),
    `seed ${seed}: token_stats`,
  );
  const gotDays = await store.query<{ contract: string; day: string; transfers: number; holders: number }>(
    'test.token_daily',
    sql`SELECT contract, day::text AS day, transfers, (sum(holders_delta) OVER (PARTITION BY contract ORDER BY day))::int AS holders
        FROM token_daily WHERE chain = ${chain} ORDER BY contract, day`,
  );
  const wantDays = [...days].sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([contract, perDay]) => [...perDay].map(([day, d]) => ({ contract, day, ...d })));
  assert.deepEqual(byKey(gotDays, (r) => `${r.contract}|${r.day}`), byKey(wantDays, (r) => `${r.contract}|${r.day}`), `seed ${seed}: token_daily`);
  const gotBalances = await store.query<{ contract: string; address: string; balance: string }>(
    'test.token_balances',
    sql`SELECT contract, address, balance::text AS balance FROM token_balances WHERE chain = ${chain} AND balance <> 0 ORDER BY contract, address`,
  );
  const wantBalances = [...balances].flatMap(([contract, held]) => [...held].filter(([, b]) => b !== 0n).map(([address, b]) => ({ contract, address, balance: b.toString() })));
  const holding = (r: { contract: string; address: string }) => `${r.contract}|${r.address}`;
  assert.deepEqual(byKey(gotBalances, holding), byKey(wantBalances, holding), `seed ${seed}: token_balances`);
}

/** `rows` in the order of their keys (compared as JavaScript strings, whatever the server's collation). */
const byKey = <T>(rows: T[], key: (row: T) => string): T[] => [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

describeEachStore('pipeline properties', (_getStore, kind) => {
  const seeds = kind === 'pglite' ? [1, 2, 3, 4] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: random chains, random batch sizes, reorgs and a crash resume to the oracle (seeds ${seeds.join(',')})`, async () => {
      for (const seed of seeds) {
        await forSeed(seed, async () => {
          const store = await openTestStore(kind);
          try {
            const c = randomChain(chain, seed);
            const rand = rng(seed * 7919);
            const batchBlocks = 1 + Math.floor(rand() * 12);
            const failAt = 2 + Math.floor(rand() * 4);
            await assert.rejects(ingest(crashingStore(store, failAt), c.source(), { batchBlocks }), /simulated crash/);
            const resumed = await ingest(store, c.source(), { batchBlocks: 1 + Math.floor(rand() * 12) });
            assert.equal(resumed.height, c.tip!.height);
            await assertRollupsMatch(store, chain, c, seed);
          } finally {
            await store.close();
          }
        });
      }
    });
  }

  it('a bulk load interrupted between rollup steps catches up from the raw rows on resume', async () => {
    for (const seed of [21, 22, 23]) {
      await forSeed(seed, async () => {
        const store = await openTestStore(kind);
        try {
          const c = randomChain('pow', seed, 120);
          await beginBulkLoad(store);
          // Deltas are applied every few batches; the crash lands between two applications.
          await assert.rejects(ingest(crashingStore(store, 4), c.source(), { bulk: true, batchBlocks: 8, bulkDeltaKeys: 150 }), /simulated crash/);
          const [behind] = await store.query<{ height: number; rollups_height: number }>('test.cp', sql`SELECT height, rollups_height FROM checkpoints`);
          assert.ok(behind!.rollups_height < behind!.height, `seed ${seed}: rollups lag the raw rows before the resume`);
          const resumed = await beginBulkLoad(store);
          await ingest(store, c.source(), { bulk: true, batchBlocks: 8, bulkDeltaKeys: 150 });
          await resumed.finish();
          await assertRollupsMatch(store, 'pow', c, seed);
        } finally {
          await store.close();
        }
      });
    }
  });
});

describeEachStore('day metrics', (_getStore, kind) => {
  for (const bulk of [false, true]) {
    it(`DAU, WAU, MAU, new addresses and holders of closed days equal the oracle (${bulk ? 'bulk load' : 'incremental'})`, async () => {
      const store = await openTestStore(kind);
      try {
        const c = randomChain('pow', 77, 200);
        // Spread the blocks 8 hours apart: ~67 days.
        const chainBlocks = c.blocks;
        const start = chainBlocks[0]!.timestamp;
        chainBlocks.forEach((b, i) => (b.timestamp = start + i * 8 * 3600));
        const canonical = { ...c.canonicalSource() };
        if (bulk) {
          const session = await beginBulkLoad(store);
          await ingest(store, canonical, { bulk: true });
          await session.finish();
        } else {
          await ingest(store, canonical, { batchBlocks: 5 });
        }
        const active = new Map<string, Set<string>>();
        const firstSeen = new Map<string, string>();
        const balances = new Map<string, bigint>();
        const holdersAt = new Map<string, number>();
        for (const block of chainBlocks) {
          const d = utcDay(block.timestamp);
          for (const a of block.allocations) balances.set(a.address, (balances.get(a.address) ?? 0n) + a.amount);
          for (const tx of block.transactions) {
            const touched = new Set([tx.from, ...(tx.to ? [tx.to] : []), ...(tx.recipients ?? []).map((r) => r.to)]);
            for (const a of touched) if (!firstSeen.has(a)) firstSeen.set(a, d);
            if (tx.type !== 'coinbase') {
              if (!active.has(d)) active.set(d, new Set());
              for (const a of touched) active.get(d)!.add(a);
            }
            if (tx.type !== 'coinbase') balances.set(tx.from, (balances.get(tx.from) ?? 0n) - tx.value - tx.fee);
            if (tx.to) balances.set(tx.to, (balances.get(tx.to) ?? 0n) + tx.value);
            for (const r of tx.recipients ?? []) balances.set(r.to, (balances.get(r.to) ?? 0n) + r.amount);
          }
          holdersAt.set(d, [...balances.values()].filter((b) => b > 0n).length);
        }
        const rows = await store.query<Record<string, any>>('test.metrics', sql`SELECT * FROM chain_day_metrics WHERE chain = 'pow' ORDER BY day`);
        const lastDay = utcDay(chainBlocks.at(-1)!.timestamp);
        const days: string[] = [];
        for (let t = Date.parse(`${utcDay(start)}T00:00:00Z`); utcDay(t / 1000) < lastDay; t += 86_400_000) days.push(utcDay(t / 1000));
        assert.deepEqual(rows.map((r) => r.day), days, 'every closed day, not the open one');
        let holders = 0;
        for (const r of rows) {
          const trailing = (n: number) => {
            const set = new Set<string>();
            for (let i = 0; i < n; i++) for (const a of active.get(utcDay(Date.parse(`${r.day}T00:00:00Z`) / 1000 - i * 86_400)) ?? []) set.add(a);
            return set.size;
          };
          assert.equal(r.dau, trailing(1), `dau ${r.day}`);
          assert.equal(r.wau, trailing(7), `wau ${r.day}`);
          assert.equal(r.mau, trailing(30), `mau ${r.day}`);
          assert.equal(r.new_addresses, [...firstSeen.values()].filter((d) => d === r.day).length, `new ${r.day}`);
          holders = holdersAt.get(r.day) ?? holders;
          assert.equal(r.holders, holders, `holders ${r.day}`);
        }
      } finally {
        await store.close();
      }
    });
  }
});
