/**
 * GET /search's bounds and indexes on a chain of its own: a prefix reaches at most 20 distinct
 * texts (in byte order) and 10 entries of a text per chain, whatever their activity; `%`, `_` and
 * `\` are letters of the prefix; non-ASCII text; and every lookup of the statement can go through
 * an index (the plan with sequential scans priced out names the indexes, never a Seq Scan).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import type { ChainId } from '../../../src/chain/chains.ts';
import { writeCurated } from '../../../src/ingest/curated.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { searchStatement } from '../../../src/api/routes/search/search.read.ts';
import { AUTH } from '../../support/app.ts';
import { addr, ChainBuilder, coins } from '../../support/chain-builder.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { ENTRIES_PER_TEXT, expectedSearch, searchFacts, TEXTS_PER_PREFIX, type LabelEntry, type SearchWorld } from './oracle.ts';

const T0 = Date.UTC(2026, 5, 1) / 1000;

/** 25 texts "Alpha 01" … "Alpha 25" (the last five on the busiest addresses), a crowd of 15 pow and 12 pos addresses with one label, and texts with LIKE's special characters. */
function labelsOf(): LabelEntry[] {
  const entry = (chain: ChainId, name: string, label: string): LabelEntry => ({ chain, address: addr(chain, name), label, category: 'test', primary: false });
  return [
    ...Array.from({ length: 25 }, (_, i) => entry('pos', `alpha-${i}`, `Alpha ${String(i + 1).padStart(2, '0')}`)),
    ...Array.from({ length: 15 }, (_, i) => entry('pow', `crowd-${i}`, 'Crowd')),
    ...Array.from({ length: 12 }, (_, i) => entry('pos', `crowd-${i}`, 'crowd')),
    entry('pos', 'percent', '50% off'),
    entry('pos', 'fifty', '500 club'),
    entry('pow', 'under', 'a_b'),
    entry('pow', 'axb', 'axb'),
    entry('pow', 'slash', 'back\\slash'),
    entry('pos', 'umlaut', 'Ärger GmbH'),
  ];
}

function chainOf(chain: ChainId, labels: LabelEntry[]): ChainBuilder {
  const c = new ChainBuilder(chain, T0);
  const funder = addr(chain, 'funder');
  c.block((b) => b.genesis([{ address: funder, amount: coins(chain, 1000) }]));
  // Activity: "Alpha 21" … "Alpha 25", and a few of the crowd.
  const names = new Map(labels.map((l) => [l.address, l]));
  const active = [...names.values()].filter((l) => l.chain === chain && (/^Alpha 2[1-5]$/.test(l.label) || [10, 11, 12, 13, 14].some((n) => l.address === addr(chain, `crowd-${n}`))));
  let ots = 0;
  for (const [i, l] of active.entries()) {
    c.block((b) => {
      for (let n = 0; n <= i % 4; n++) b.transfer(funder, l.address, 1n + BigInt(n), chain === 'pow' ? { ots: ots++ } : {});
      if (chain === 'pow') b.coinbase(funder, 1_000n);
    });
  }
  c.block((b) => {
    b.block.tokens.push({ contract: chain === 'pos' ? addr(chain, 'tok-pct') : '1'.repeat(64), name: `Fifty% ${chain}`, symbol: `F%${chain}`, decimals: 0, creator: funder, createdTx: null });
    b.block.tokens.push({ contract: chain === 'pos' ? addr(chain, 'tok-und') : '2'.repeat(64), name: `F_${chain}`, symbol: null, decimals: 0, creator: funder, createdTx: null });
    if (chain === 'pow') b.coinbase(funder, 1_000n);
  });
  return c;
}

describeSeededApp(
  'GET /search: bounds and indexes',
  async (store) => {
    const labels = labelsOf();
    const chains = { pow: chainOf('pow', labels), pos: chainOf('pos', labels) };
    for (const c of Object.values(chains)) await ingest(store, c.source());
    await store.transaction('test.labels', (tx) => writeCurated(tx, { labels: labels.map((l) => ({ ...l, isPrimary: l.primary })), exchangeWallets: [], settings: [] }));
    const world: SearchWorld = { blocks: { pow: chains.pow.blocks, pos: chains.pos.blocks }, labels };
    return { world, facts: searchFacts(world) };
  },
  (s) => {
    const search = async (q: string) => {
      const res = await s.t().app.inject({ url: `/api/v1/search?q=${encodeURIComponent(q)}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const items = res.json().items;
      assert.deepEqual(items, expectedSearch(s.seeded().world, s.seeded().facts, q).items, `q=${q}`);
      return items as { kind: string; chain: string; id: string; label: string; tx_count: number | null; symbol: string | null }[];
    };

    it(`a prefix reaches the first ${TEXTS_PER_PREFIX} distinct texts in byte order, however busy the later ones`, async () => {
      const items = await search('alpha');
      assert.equal(items.length, 10);
      // Alpha 21 to 25 hold the activity but lie past the 20th text: the first ten of the rest, shortest and first.
      assert.deepEqual(items.map((h) => h.label), Array.from({ length: 10 }, (_, i) => `Alpha ${String(i + 1).padStart(2, '0')}`));
      assert.ok(items.every((h) => h.tx_count === null));
      // A longer prefix reaches them, busiest first.
      const later = await search('Alpha 2');
      assert.deepEqual(later.slice(0, 5).map((h) => h.label).sort(), ['Alpha 21', 'Alpha 22', 'Alpha 23', 'Alpha 24', 'Alpha 25']);
      assert.ok(later[0]!.tx_count! >= later[4]!.tx_count!);
    });

    it(`a text shared by many addresses: its first ${ENTRIES_PER_TEXT} per chain by address are its candidates, ranked by activity`, async () => {
      const items = await search('CROWD');
      assert.equal(items.length, 10);
      assert.ok(items.some((h) => h.chain === 'pow') && items.some((h) => h.chain === 'pos'));
      const counts = items.map((h) => h.tx_count ?? -1);
      assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
    });

    it('%, _ and \\ are letters; q folds as the store folds its text', async () => {
      assert.deepEqual((await search('50%')).map((h) => h.label), ['50% off']);
      assert.deepEqual((await search('a_')).map((h) => h.label), ['a_b']);
      assert.deepEqual((await search('back\\')).map((h) => h.label), ['back\\slash']);
      assert.deepEqual((await search('f%')).map((h) => [h.kind, h.symbol]), [['token', 'F%pos'], ['token', 'F%pow']]);
      assert.deepEqual((await search('F_')).map((h) => [h.kind, h.label]), [['token', 'F_pos'], ['token', 'F_pow']]);
      // q is folded as the store folds its text, whatever its character type folds (PGlite's C.UTF-8 folds Ä, the test server's C does not).
      for (const q of ['Är', 'ÄRGER g']) {
        const res = await s.t().app.inject({ url: `/api/v1/search?q=${encodeURIComponent(q)}`, headers: AUTH });
        assert.deepEqual(res.json().items.map((h: { label: string }) => h.label), ['Ärger GmbH'], q);
      }
    });

    it('every lookup goes through an index: the plans on tables of 20,000 rows (added and rolled back), a wide prefix walked in index order', async () => {
      const { world } = s.seeded();
      const block = world.blocks.pos.at(-1)!;
      const terms = [
        { text: 'crowd', height: null, hashes: null, addresses: {} },
        // Every label and token name of the added rows starts with it: only an ordered walk of the index reads a bounded part of them.
        { text: 'l', height: null, hashes: null, addresses: {} },
        { text: 't', height: null, hashes: null, addresses: {} },
        { text: '3', height: 3, hashes: null, addresses: {} },
        { text: block.hash, height: null, hashes: { pos: block.hash, pow: block.hash.slice(2) }, addresses: {} },
        { text: addr('pos', 'funder'), height: null, hashes: null, addresses: { pos: addr('pos', 'funder') } },
        { text: addr('pow', 'funder'), height: null, hashes: null, addresses: { pow: addr('pow', 'funder') } },
      ];
      const plans: string[] = [];
      const rollback = new Error('rolled back');
      await assert.rejects(
        s.store().transaction('test.plan', async (tx) => {
          const n = 20_000;
          const chain = sql`CASE WHEN i % 2 = 0 THEN 'pow' ELSE 'pos' END`;
          await tx.query('test.plan.blocks', sql`INSERT INTO blocks (chain, height, hash, parent_hash, ts, size, tx_count) SELECT ${chain}, 1000000 + i, md5(i::text) || md5(i::text), '', i, 1, 1 FROM generate_series(1, ${n}) i`);
          await tx.query('test.plan.txs', sql`INSERT INTO transactions (chain, height, tx_index, tx_hash, ts, tx_type, from_addr) SELECT ${chain}, 1000000 + i, 0, md5(i::text) || md5(i::text), i, 'transfer', 'Q' || md5(i::text) FROM generate_series(1, ${n}) i`);
          await tx.query('test.plan.summary', sql`INSERT INTO address_summary (chain, address, tx_count) SELECT ${chain}, 'Q' || md5(i::text), i FROM generate_series(1, ${n}) i`);
          await tx.query('test.plan.labels', sql`INSERT INTO labels (chain, address, label, category) SELECT ${chain}, 'Q' || md5(i::text), 'Label ' || md5(i::text), 'test' FROM generate_series(1, ${n}) i`);
          await tx.query('test.plan.tokens', sql`INSERT INTO token_contracts (chain, address, name, symbol) SELECT ${chain}, 'Q' || md5(i::text), 'Token ' || md5(i::text), upper(substr(md5(i::text), 1, 5)) FROM generate_series(1, ${n}) i`);
          await tx.exec('test.plan.analyze', 'ANALYZE blocks, transactions, address_summary, labels, token_contracts');
          for (const t of terms) {
            const rows = await tx.query<Record<string, string>>('test.plan.explain', sql`EXPLAIN ${searchStatement(t)}`);
            plans.push(`${t.text}:\n${rows.map((r) => Object.values(r)[0]).join('\n')}`);
          }
          throw rollback;
        }),
        (error: Error) => error.cause === rollback,
      );
      const used = new Set<string>();
      for (const plan of plans) {
        assert.doesNotMatch(plan, /Seq Scan/, plan);
        // A range gathered and sorted (a bitmap scan) is one the planner expects to be small; a wide one is walked in order.
        for (const m of plan.matchAll(/Bitmap Index Scan on (\w+)\s+\(cost=[\d.]+\.\.[\d.]+ rows=(\d+)/g)) assert.ok(Number(m[2]) < 1000, `${m[1]}: ${m[0]}\n${plan}`);
        for (const m of plan.matchAll(/(?:Index Scan|Index Only Scan|Bitmap Index Scan) (?:Backward )?(?:using|on) (\w+)/g)) used.add(m[1]!);
      }
      assert.deepEqual(
        [...used].sort(),
        ['address_summary_pkey', 'blocks_hash', 'blocks_pkey', 'labels_primary', 'labels_text_prefix', 'token_contracts_name_prefix', 'token_contracts_pkey', 'token_contracts_symbol_prefix', 'transactions_hash'],
        plans.join('\n\n'),
      );
      assert.equal((await search('Label ')).length, 0, 'the rows are gone');
    });
  },
);
