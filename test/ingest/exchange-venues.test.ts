/**
 * The exchange rollups and the curated import together (docs/metrics.md, "Exchanges";
 * docs/labels.md): on random chains with a venue's wallets and relays, through random batches and
 * reorgs, the kept tables and the relays' confirmation equal both an oracle computed from the blocks
 * and a rebuild (a re-import, a refresh); an import takes effect without re-indexing; importing
 * twice changes nothing; the list filters.
 */
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import sql, { raw } from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import { importCurated, listCurated } from '../../src/ingest/curated.ts';
import { parseLabelsFile } from '../../src/ingest/labels-file.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { refreshRollups } from '../../src/ingest/refresh.ts';
import type { Store } from '../../src/store/store.ts';
import { addr, ChainBuilder, coins, type BlockBuilder } from '../support/chain-builder.ts';
import { confirmedVenues, flowsOf, movesOf, relayEvidence, type CuratedWallet } from '../support/expected-exchange.ts';
import { rng } from '../support/random-chain.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

const TABLES = ['exchange_relay_evidence', 'exchange_flow_daily', 'exchange_address_flow_daily', 'exchange_largest', 'exchange_venue_relays'];

function cast(chain: ChainId, seed: number) {
  const a = (name: string) => addr(chain, `x${seed}-${name}`);
  const people = Array.from({ length: 6 }, (_, i) => a(`p${i}`));
  const wallets: CuratedWallet[] = [
    { chain, address: a('hot'), exchange: 'Acme', role: 'hot' },
    { chain, address: a('cold'), exchange: 'Acme', role: 'cold' },
    { chain, address: a('bolt'), exchange: 'Bolt', role: 'hot' },
    ...Array.from({ length: 4 }, (_, i) => ({ chain, address: a(`r${i}`), exchange: 'Acme', role: 'deposit_relay' as const })),
  ];
  return { people, wallets, hot: wallets[0]!.address, cold: wallets[1]!.address, bolt: wallets[2]!.address, relays: wallets.slice(3).map((w) => w.address) };
}

function labelsFile(wallets: CuratedWallet[], extra = ''): string {
  return ['chain,address,role,exchange,label,category,primary', ...wallets.map((w) => `${w.chain},${w.address},${w.role},${w.exchange},${w.exchange} ${w.role},,`)].join('\n') + '\n' + extra;
}

/** A random chain where customers pay relays, relays forward (one of them strays now and then), the venues pay out and move coins. */
function venueChain(chain: ChainId, seed: number, length: number) {
  const rand = rng(seed);
  const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)]!;
  const c = cast(chain, seed);
  const everyone = [...c.people, ...c.wallets.map((w) => w.address)];
  const b0 = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 20) / 1000, 5 * 3600);
  b0.block((b) => b.genesis(everyone.map((address) => ({ address, amount: coins(chain, 1000) }))));
  const value = () => BigInt(1 + Math.floor(rand() * 1e6)) * 1000n;
  const fill = (b: BlockBuilder) => {
    const n = 1 + Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) {
      const x = rand();
      if (x < 0.3) b.transfer(pick(c.people), pick(c.relays), value());
      else if (x < 0.5) b.transfer(pick(c.relays.slice(0, 3)), c.hot, value()); // relays 0-2 forward
      else if (x < 0.55) b.transfer(c.relays[2]!, pick(c.people), value()); // relay 2 strays
      else if (x < 0.65) b.transfer(c.hot, pick(c.people), value());
      else if (x < 0.7) b.transfer(c.hot, c.cold, value());
      else if (x < 0.75) b.transfer(c.hot, c.bolt, value());
      else if (x < 0.8) b.transfer(c.bolt, pick(c.people), value());
      else if (x < 0.85 && chain === 'pow') b.multiTransfer(pick(c.people), [{ to: pick(c.relays), amount: value() }, { to: c.hot, amount: value() }]);
      else if (x < 0.9 && chain === 'pos') b.transfer(pick(c.people), c.hot, value(), { status: 0 });
      else b.transfer(pick(c.people), pick(c.people), value());
    }
    if (chain === 'pow') b.coinbase(c.hot, 5_000_000_000n);
  };
  for (let h = 1; h < length; h++) {
    if (h > 8 && rand() < 0.1) {
      const depth = 1 + Math.floor(rand() * 3);
      b0.fork(depth, Array.from({ length: depth + Math.floor(rand() * 2) }, () => fill));
    } else {
      b0.block(fill);
    }
  }
  return { builder: b0, ...c };
}

async function snapshot(store: Store, chain: ChainId): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of [...TABLES, 'exchange_wallets', 'labels']) {
    const rows = await store.query<Record<string, unknown>>('test.snapshot', sql`SELECT * FROM ${raw(table)} WHERE chain = ${chain}`);
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** The flows per venue and day, the confirmed relays and the relays' evidence, as the store has them. */
async function stored(store: Store, chain: ChainId) {
  const flows = await store.query<{ exchange: string; day: string; deposits: string; withdrawals: string; deposit_txs: number; withdrawal_txs: number }>(
    'test.flows',
    sql`SELECT exchange, day::text AS day, deposits::text AS deposits, withdrawals::text AS withdrawals, deposit_txs, withdrawal_txs FROM exchange_flow_daily WHERE chain = ${chain} ORDER BY exchange, day`,
  );
  const addressFlows = await store.query<{ address: string; day: string; deposits: string; withdrawals: string; deposit_txs: number; withdrawal_txs: number }>(
    'test.address_flows',
    sql`SELECT address, day::text AS day, deposits::text AS deposits, withdrawals::text AS withdrawals, deposit_txs, withdrawal_txs
        FROM exchange_address_flow_daily WHERE chain = ${chain} ORDER BY address, day`,
  );
  const confirmed = await store.query<{ address: string }>('test.confirmed', sql`SELECT address FROM exchange_wallets WHERE chain = ${chain} AND role = 'deposit_relay' AND confirmed ORDER BY address`);
  const largest = await store.query<{ key: string }>(
    'test.largest',
    sql`SELECT concat_ws('|', day, direction, height, tx_index, recipient_index, value, exchange, via_relay, from_addr, to_addr) AS key
        FROM exchange_largest WHERE chain = ${chain} ORDER BY 1`,
  );
  // A relay whose sends all went (a reorg took them out) has no row left.
  const evidence = await store.query<{ key: string }>(
    'test.evidence',
    sql`SELECT concat_ws('|', address, forwards, strays) AS key FROM exchange_relay_evidence WHERE chain = ${chain} ORDER BY 1`,
  );
  return { flows, addressFlows, confirmed: confirmed.map((r) => r.address), largest: largest.map((r) => r.key), evidence: evidence.map((r) => r.key) };
}

/** Deposit and withdrawal legs summed per owner (a venue, an address) and day, by owner then day, amounts as strings. */
function dailyTotals(legs: { owner: string; day: string; value: bigint; deposit: boolean }[]) {
  const totals = new Map<string, { owner: string; day: string; deposits: bigint; withdrawals: bigint; deposit_txs: number; withdrawal_txs: number }>();
  for (const leg of legs) {
    const key = `${leg.owner}|${leg.day}`;
    const t = totals.get(key) ?? { owner: leg.owner, day: leg.day, deposits: 0n, withdrawals: 0n, deposit_txs: 0, withdrawal_txs: 0 };
    if (leg.deposit) {
      t.deposits += leg.value;
      t.deposit_txs++;
    } else {
      t.withdrawals += leg.value;
      t.withdrawal_txs++;
    }
    totals.set(key, t);
  }
  return [...totals.values()]
    .sort((a, b) => (a.owner === b.owner ? (a.day < b.day ? -1 : 1) : a.owner < b.owner ? -1 : 1))
    .map((t) => ({ ...t, deposits: t.deposits.toString(), withdrawals: t.withdrawals.toString() }));
}

function oracle(builder: ChainBuilder, wallets: CuratedWallet[]) {
  const moves = movesOf(builder.blocks);
  const venues = confirmedVenues(wallets, moves);
  const flowList = flowsOf(moves, venues);
  const flows = dailyTotals(
    flowList.flatMap((f) => [
      ...(f.toVenue ? [{ owner: f.toVenue, day: f.day, value: f.value, deposit: true }] : []),
      ...(f.fromVenue ? [{ owner: f.fromVenue, day: f.day, value: f.value, deposit: false }] : []),
    ]),
  ).map(({ owner, ...t }) => ({ exchange: owner, ...t }));
  // Per address and day, the flows of the side that is not a venue's (the sender of a deposit, the recipient of a withdrawal).
  const addressFlows = dailyTotals(
    flowList.flatMap((f) => [
      ...(f.toVenue && !f.fromVenue ? [{ owner: f.from, day: f.day, value: f.value, deposit: true }] : []),
      ...(f.fromVenue && !f.toVenue ? [{ owner: f.to, day: f.day, value: f.value, deposit: false }] : []),
    ]),
  ).map(({ owner, ...t }) => ({ address: owner, ...t }));
  const confirmed = [...venues].filter(([, v]) => v.relay).map(([a]) => a).sort();
  // Per day and direction, the 100 largest (the earliest on a tie).
  const groups = new Map<string, { key: string; value: bigint; order: number[] }[]>();
  for (const f of flowList) {
    for (const [direction, venue, relay] of [['deposit', f.toVenue, f.toRelay], ['withdrawal', f.fromVenue, f.fromRelay]] as const) {
      if (!venue) continue;
      const list = groups.get(`${f.day}|${direction}`) ?? [];
      list.push({ key: [f.day, direction, f.height, f.txIndex, f.recipientIndex, f.value, venue, relay ? 't' : 'f', f.from, f.to].join('|'), value: f.value, order: [f.height, f.txIndex, f.recipientIndex] });
      groups.set(`${f.day}|${direction}`, list);
    }
  }
  const largest = [...groups.values()].flatMap((list) =>
    list.sort((a, b) => (a.value !== b.value ? (a.value > b.value ? -1 : 1) : a.order[0]! - b.order[0]! || a.order[1]! - b.order[1]! || a.order[2]! - b.order[2]!)).slice(0, 100).map((r) => r.key),
  );
  const evidence = [...relayEvidence(wallets, moves)].map(([address, e]) => [address, e.forwards, e.strays].join('|')).sort();
  return { flows, addressFlows, confirmed, largest: largest.sort(), evidence };
}

describeEachStore('exchange rollups and the labels import', (getStore, kind) => {
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: kept through random batches and reorgs, they equal the oracle, a re-import and a refresh`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 9 }), async (seed, batchBlocks) => {
          const store = await openTestStore(kind);
          try {
            const v = venueChain(chain, seed, 40);
            // Curated before the blocks: every figure is then kept block by block.
            await importCurated(store, parseLabelsFile(labelsFile(v.wallets)));
            await ingest(store, v.builder.source(), { batchBlocks });
            const wanted = oracle(v.builder, v.wallets);
            assert.deepEqual(await stored(store, chain), wanted, `kept (seed ${seed})`);
            const kept = await snapshot(store, chain);
            await importCurated(store, parseLabelsFile(labelsFile(v.wallets)));
            assert.deepEqual(await snapshot(store, chain), kept, `re-import (seed ${seed})`);
            await refreshRollups(store, chain);
            assert.deepEqual(await snapshot(store, chain), kept, `refresh (seed ${seed})`);
          } finally {
            await store.close();
          }
        }),
        { numRuns: kind === 'pglite' ? 2 : 4 },
      );
    });
  }

  it('a day with more than 100 deposits keeps its largest exactly through relay flips and reorgs', async () => {
    const store = await openTestStore(kind);
    try {
      const chain = 'pos';
      const c = cast(chain, 99);
      const rand = rng(99);
      const b0 = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 1) / 1000, 60);
      b0.block((b) => b.genesis([...c.people, ...c.wallets.map((w) => w.address)].map((address) => ({ address, amount: coins(chain, 1_000_000) }))));
      const v = () => BigInt(1 + Math.floor(rand() * 1e9)) * 1000n;
      const deposits = (b: BlockBuilder) => {
        for (let i = 0; i < 12; i++) b.transfer(c.people[i % 6]!, i % 2 ? c.hot : c.relays[i % 4]!, v());
      };
      for (let h = 1; h < 20; h++) b0.block(deposits);
      b0.block((b) => b.transfer(c.relays[0]!, c.hot, coins(chain, 500_000))); // relay 0 confirmed: its receipts become deposits
      b0.block(deposits);
      b0.fork(2, [deposits, (b) => b.transfer(c.relays[1]!, c.hot, coins(chain, 900_000)), deposits]); // relay 0 back out, relay 1 in
      b0.block((b) => b.transfer(c.relays[1]!, c.people[0]!, v())); // relay 1 strays: out again
      b0.block(deposits);
      await importCurated(store, parseLabelsFile(labelsFile(c.wallets)));
      await ingest(store, b0.source(), { batchBlocks: 2 });
      const wanted = oracle(b0, c.wallets);
      assert.ok(wanted.flows.some((f) => f.deposit_txs > 100), 'a day with more than 100 deposits');
      assert.deepEqual(await stored(store, chain), wanted);
    } finally {
      await store.close();
    }
  });

  it('the migration that added the per-address flows fills them for a store indexed before it, as the oracle and the rollup have them', async () => {
    const store = await openTestStore(kind);
    try {
      const wanted = { pos: [] as ReturnType<typeof oracle>['addressFlows'], pow: [] as ReturnType<typeof oracle>['addressFlows'] };
      for (const chain of ['pos', 'pow'] as const) {
        const v = venueChain(chain, 11, 30);
        await ingest(store, v.builder.source(), { batchBlocks: 4 });
        await importCurated(store, parseLabelsFile(labelsFile(v.wallets)));
        wanted[chain] = oracle(v.builder, v.wallets).addressFlows;
      }
      const kept = { pos: (await stored(store, 'pos')).addressFlows, pow: (await stored(store, 'pow')).addressFlows };
      assert.ok(kept.pos.length > 0 && kept.pow.length > 0);
      assert.deepEqual(kept, wanted, 'kept by the rollup');
      await store.query('test.clear', sql`DELETE FROM exchange_address_flow_daily`);
      const migration = readFileSync(new URL('../../src/store/migrations/0075_exchange_address_flows.sql', import.meta.url), 'utf8');
      await store.exec('test.backfill', migration.slice(migration.indexOf('INSERT INTO exchange_address_flow_daily')));
      assert.deepEqual({ pos: (await stored(store, 'pos')).addressFlows, pow: (await stored(store, 'pow')).addressFlows }, wanted, 'filled by the migration');
    } finally {
      await store.close();
    }
  });

  it('an import after indexing takes effect at once, twice is the same, and list filters', async () => {
    const store = getStore();
    const chain = 'pos';
    const v = venueChain(chain, 7, 30);
    await ingest(store, v.builder.source(), { batchBlocks: 5 });
    const first = await importCurated(store, parseLabelsFile(labelsFile(v.wallets, `${chain},${v.people[0]},,,Friendly whale,community,\n`)));
    assert.equal(first.exchangeWallets, v.wallets.length);
    assert.deepEqual(await stored(store, chain), oracle(v.builder, v.wallets));
    const once = await snapshot(store, chain);
    await importCurated(store, parseLabelsFile(labelsFile(v.wallets, `${chain},${v.people[0]},,,Friendly whale,community,\n`)));
    assert.deepEqual(await snapshot(store, chain), once, 'import twice = same rows');

    // Bolt's hot wallet becomes a plain label: Acme's payments to it are withdrawals to nobody's venue now.
    const fewer = v.wallets.filter((w) => w.exchange !== 'Bolt');
    await importCurated(store, parseLabelsFile(labelsFile(fewer) + `${chain},${v.bolt},,,Former venue,entity,\n`));
    assert.deepEqual(await stored(store, chain), oracle(v.builder, fewer));

    const acme = await listCurated(store, { chain, exchange: 'Acme', limit: 100 });
    assert.equal(acme.total, 6);
    assert.deepEqual(new Set(acme.rows.map((r) => r.address)), new Set(fewer.map((w) => w.address)));
    const relays = await listCurated(store, { chain, role: 'deposit_relay', limit: 2 });
    assert.equal(relays.total, 4);
    assert.equal(relays.rows.length, 2);
    const labels = await listCurated(store, { chain, category: 'entity', limit: 10 });
    assert.deepEqual(labels.rows.map((r) => [r.address, r.label, r.exchange]), [[v.bolt, 'Former venue', null]]);
    assert.equal((await listCurated(store, { chain: 'pow', limit: 10 })).total, 0);

    // --replace: only the file's rows of the chain remain.
    await importCurated(store, parseLabelsFile(labelsFile(fewer.slice(0, 1))), { replace: true });
    assert.equal((await listCurated(store, { chain, limit: 100 })).total, 1);
    assert.deepEqual((await stored(store, chain)).confirmed, []);
  });
});
