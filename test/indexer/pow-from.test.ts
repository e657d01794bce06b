/**
 * `quarry index pow --from H` above genesis: a QRL node keeps no historical state, so the balance an
 * address held before H cannot be known. Every address first seen from H gets an unknown opening
 * balance: the store keeps no figure (NULL, never a net flow that can go negative), the API answers
 * null for balance and the totals, and no leaderboard or rank counts it as a real balance.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { indexPow } from '../../src/ingest/index-pow.ts';
import type { SourceItem } from '../../src/chain/model.ts';
import { AUTH, buildTestApp, type TestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { createHash } from 'node:crypto';
import { raw } from 'sql-template-tag';
import type { FakeQrlNode } from '../fakes/qrl-node/server.ts';
import { feed, generatePowItems, startNodeWithChain } from '../fakes/qrl-node/world.ts';
import type { Store } from '../../src/store/store.ts';
import { openTestStore } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';

const silent = pino({ level: 'silent' });
const SENTINEL = 'Q' + '0'.repeat(64);

let items: SourceItem[];
before(async () => {
  items = await generatePowItems({ seed: 12, days: 0.15 });
});

describeOnOneStore('quarry index pow from above genesis: unknown balances', (getStore) => {
  let node: FakeQrlNode;
  let address: string;
  let t: TestApp;
  let from: number;

  before(async () => {
    ({ node, address } = await startNodeWithChain(items));
    from = Math.floor(node.height / 2);
    const settings = { ...resolveIndexPowSettings({ node: address, progress: false }, {}), fromHeight: from };
    const result = await indexPow(getStore(), settings, { logger: silent });
    assert.equal(result.height, node.height);
    t = await buildTestApp(getStore());
  });
  after(async () => {
    await t?.close();
    await node?.stop();
  });

  it('stores no balance figure for an address first seen above genesis, and an unknown opening for each', async () => {
    const [counts] = await getStore().query<{ addresses: string; known: string; openings: string; unknown: string }>(
      't',
      sql`SELECT (SELECT count(*) FROM address_summary WHERE chain = 'pow')::text AS addresses,
                 (SELECT count(*) FROM address_summary WHERE chain = 'pow' AND balance IS NOT NULL)::text AS known,
                 (SELECT count(*) FROM opening_balances WHERE chain = 'pow')::text AS openings,
                 (SELECT count(*) FROM opening_balances WHERE chain = 'pow' AND amount IS NULL)::text AS unknown`,
    );
    assert.ok(Number(counts!.addresses) > 20, `only ${counts!.addresses} addresses`);
    assert.equal(Number(counts!.known), 0);
    assert.equal(Number(counts!.openings), Number(counts!.addresses));
    assert.equal(Number(counts!.unknown), Number(counts!.openings));
    const [first] = await getStore().query<{ h: string }>('t', sql`SELECT min(height)::text AS h FROM opening_balances WHERE chain = 'pow'`);
    assert.equal(Number(first!.h), from);
    // No balance is ranked: the balance buckets hold nobody.
    const [ranked] = await getStore().query<{ n: string }>('t', sql`SELECT coalesce(sum(addresses), 0)::text AS n FROM address_rank_buckets WHERE chain = 'pow' AND metric = 'balance'`);
    assert.equal(Number(ranked!.n), 0);
  });

  it('answers balance, total_received and total_sent as null, and a balance history without figures', async () => {
    const [busiest] = await getStore().query<{ address: string; tx_count: number }>(
      't',
      sql`SELECT address, tx_count FROM address_summary WHERE chain = 'pow' AND address <> ${SENTINEL} ORDER BY tx_count DESC, address LIMIT 1`,
    );
    const res = await t.app.inject({ url: `/api/v1/pow/addresses/${busiest!.address}`, headers: AUTH });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.balance, null);
    assert.equal(body.total_received, null);
    assert.equal(body.total_sent, null);
    assert.equal(body.tx_count, busiest!.tx_count);
    const history = await t.app.inject({ url: `/api/v1/pow/addresses/${busiest!.address}/balance-history`, headers: AUTH });
    assert.equal(history.statusCode, 200);
    const points = history.json().items as { net_delta_cumulative: string | null }[];
    assert.ok(points.length > 0);
    assert.ok(points.every((p) => p.net_delta_cumulative === null));
  });

  it('puts no figure on the balance leaderboard', async () => {
    const res = await t.app.inject({ url: '/api/v1/pow/addresses/top/active?sort=balance', headers: AUTH });
    assert.equal(res.statusCode, 200);
    const items = res.json().addresses as { balance: string | null }[];
    assert.ok(items.length > 0);
    assert.ok(items.every((item) => item.balance === null), 'a leaderboard row shows a balance');
  });
});

/** The tables an opening balance reaches: its rows, and the rollups that read balances. */
const OPENING_TABLES = ['opening_balances', 'address_summary', 'address_daily', 'address_rank_buckets', 'chain_daily', 'chain_timeline_activity', 'holder_state'];

async function digest(store: Store): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of OPENING_TABLES) {
    const rows = await store.query<Record<string, unknown>>('t', sql`SELECT * FROM ${raw(table)} WHERE chain = 'pow'`);
    const lines = rows.map((row) => JSON.stringify(row)).sort();
    out[table] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return out;
}

describeOnOneStore('quarry index pow from above genesis, following through reorgs', (getStore, kind) => {
  it('ends with the openings and rollups of a backfill of the final chain from the same height', async () => {
    const heightOf = (item: SourceItem) => (item.kind === 'block' ? item.block.height : item.kind === 'undecodable' ? item.height : -1);
    const start = Math.floor(items.length / 3);
    const from = Math.max(1, Math.floor(heightOf(items[start]!) / 2));
    // Reference: the final chain, backfilled from `from` into a store of its own.
    const reference = await openTestStore(kind);
    let expected: Record<string, string>;
    {
      const { node, address } = await startNodeWithChain(items);
      try {
        await indexPow(reference, { ...resolveIndexPowSettings({ node: address, progress: false }, {}), fromHeight: from }, { logger: silent });
        expected = await digest(reference);
      } finally {
        await node.stop();
        await reference.close();
      }
    }
    const { node, address } = await startNodeWithChain(items.slice(0, start));
    const controller = new AbortController();
    const settings = { ...resolveIndexPowSettings({ node: address, progress: false }, {}), fromHeight: from, follow: true, pollIntervalMs: 20 };
    const running = indexPow(getStore(), settings, { logger: silent, signal: controller.signal });
    running.catch(() => undefined);
    const synced = async () => {
      const [tip] = await getStore().query<{ hash: string }>('t', sql`SELECT hash FROM checkpoints WHERE chain = 'pow'`);
      return tip?.hash === node.headHash;
    };
    try {
      // Item by item around reorgs (so the indexer holds the abandoned branch when the node leaves it).
      let highest = -1;
      for (const item of items.slice(start)) {
        const height = heightOf(item);
        if (height <= highest && node.views().at(-1)!.kind === 'block') await waitFor(synced, `height ${node.height}`, 120_000);
        highest = Math.max(highest, height);
        feed(node, [item]);
      }
      await waitFor(synced, 'the head', 120_000);
    } finally {
      controller.abort();
    }
    const result = await running;
    await node.stop();
    assert.ok(result.reorgs > 0, 'no reorg was seen');
    const [unknown] = await getStore().query<{ n: string }>('t', sql`SELECT count(*)::text AS n FROM opening_balances WHERE chain = 'pow' AND amount IS NULL`);
    assert.ok(Number(unknown!.n) > 20);
    assert.deepEqual(await digest(getStore()), expected);
  });
});
