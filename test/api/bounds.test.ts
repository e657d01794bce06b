/**
 * The bounds on rows reached by offset (docs/bounds.md): the feed's offset with tx_type, the
 * leaderboard's page (but for the tx_count order without filters). Past the bound: a 400 naming the parameter and
 * the bound. Just inside it: the right rows, computed from the generator's blocks. The bound is
 * lowered here (ApiTuning.pagedRows) so that it falls inside the small seed; the abuse suite
 * (abuse.test.ts) meets the default one.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { POW_COINBASE_SENTINEL } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { PAGED_ROWS, tuningWith } from '../../src/api/context.ts';
import { AUTH } from '../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../support/analytics-world.ts';
import { expectedFromBlocks } from '../support/expected.ts';
import { describeSeededApp, type SeededApp } from '../support/seeded-app.ts';

/** The bound in these tests. */
const ROWS = 60;

interface Problem {
  status: number;
  detail: string;
  errors?: { param: string; message: string }[];
}

/** The coinbase transactions of the pow blocks, newest first (the sentinel sends each, one row each). */
function coinbasesNewestFirst(blocks: CanonicalBlock[]): string[] {
  return blocks
    .flatMap((b) => b.transactions.filter((tx) => tx.type === 'coinbase').map((tx) => ({ height: b.height, index: tx.index, hash: tx.hash })))
    .sort((x, y) => y.height - x.height || y.index - x.index)
    .map((tx) => tx.hash);
}

function assertRefused(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, param: string, bound: RegExp): void {
  assert.equal(res.statusCode, 400);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json() as Problem;
  assert.deepEqual(body.errors?.map((e) => e.param), [param]);
  assert.match(body.detail, bound);
}

describeSeededApp('bounded offsets and pages', loadAnalyticsWorld, (s: SeededApp<AnalyticsWorld>) => {
  const get = (url: string) => s.t().app.inject({ url, headers: AUTH });
  const feed = `/api/v1/pow/addresses/${POW_COINBASE_SENTINEL}/transactions`;

  it('feed: offset + limit with tx_type at most the bound; the page at the bound is the right one; the cursor goes on', async () => {
    const coinbases = coinbasesNewestFirst(s.seeded().blocks.pow);
    assert.ok(coinbases.length > ROWS + 20, `${coinbases.length} coinbase transactions`);

    const inside = await get(`${feed}?tx_type=coinbase&offset=${ROWS - 10}&limit=10`);
    assert.equal(inside.statusCode, 200);
    const page = inside.json() as { items: { tx_hash: string }[]; next_cursor: string | null; total: number };
    assert.deepEqual(page.items.map((i) => i.tx_hash), coinbases.slice(ROWS - 10, ROWS));
    assert.equal(page.total, coinbases.length);

    // Past the bound by offset: refused, naming offset and the bound. By cursor: no bound.
    assertRefused(await get(`${feed}?tx_type=coinbase&offset=${ROWS - 9}&limit=10`), 'offset', new RegExp(`at most ${ROWS - 10}\\b.*≤ ${ROWS}\\b`));
    assertRefused(await get(`${feed}?tx_type=coinbase&offset=5000000`), 'offset', new RegExp(`at most ${ROWS - 25}\\b`));
    const next = await get(`${feed}?tx_type=coinbase&limit=10&cursor=${encodeURIComponent(page.next_cursor!)}`);
    assert.equal(next.statusCode, 200);
    assert.deepEqual((next.json() as { items: { tx_hash: string }[] }).items.map((i) => i.tx_hash), coinbases.slice(ROWS, ROWS + 10));

    // Without a type filter an offset has no bound (the position index finds it).
    const deep = await get(`${feed}?offset=${ROWS + 5}&limit=3`);
    assert.equal(deep.statusCode, 200);
    assert.deepEqual((deep.json() as { items: { tx_hash: string }[] }).items.map((i) => i.tx_hash), coinbases.slice(ROWS + 5, ROWS + 8));
  });

  it('top/active: page × page_size at most the bound but for the tx_count order without filters; the last page inside it is the right one', async () => {
    const e = expectedFromBlocks('pow', s.seeded().blocks.pow);
    const byBalance = [...e.addresses.entries()].sort((x, y) => (y[1].balance > x[1].balance ? 1 : y[1].balance < x[1].balance ? -1 : x[0] < y[0] ? -1 : 1));
    assert.ok(byBalance.length > ROWS, `${byBalance.length} addresses`);
    const res = await get(`/api/v1/pow/addresses/top/active?sort=-balance&page=3&page_size=${ROWS / 3}`);
    assert.equal(res.statusCode, 200);
    const body = res.json() as { addresses: { address: string; balance: string }[]; total: number };
    assert.deepEqual(
      body.addresses.map((a) => [a.address, a.balance]),
      byBalance.slice((2 * ROWS) / 3, ROWS).map(([address, a]) => [address, a.balance.toString()]),
    );
    assert.equal(body.total, byBalance.length);
    for (const sort of ['balance', 'total_sent', 'first_seen_asc', 'last_seen_asc']) {
      assertRefused(await get(`/api/v1/pow/addresses/top/active?sort=${sort}&page=4&page_size=${ROWS / 3}`), 'page', new RegExp(`at most 3 with page_size ${ROWS / 3}.*≤ ${ROWS}\\b`));
    }
    // The tx_count order without filters starts a deep page at its rank bucket: no bound. With a filter it has one.
    const byTxCount = [...e.addresses.entries()].sort((x, y) => y[1].txCount - x[1].txCount || (x[0] < y[0] ? -1 : 1));
    const deep = await get(`/api/v1/pow/addresses/top/active?page=${ROWS + 1}&page_size=1`);
    assert.equal(deep.statusCode, 200);
    assert.deepEqual((deep.json() as { addresses: { address: string }[] }).addresses.map((a) => a.address), [byTxCount[ROWS]![0]]);
    for (const filter of ['q=q0', 'exclude_sentinel=true', 'positive_only=true', 'min_balance_pct=0.001', 'whale_only=true']) {
      assertRefused(await get(`/api/v1/pow/addresses/top/active?page=${ROWS + 1}&page_size=1&${filter}`), 'page', new RegExp(`at most ${ROWS} with page_size 1\\b`));
    }
  });

  it('the OpenAPI document states the default bound on each parameter', async () => {
    const doc = (await get('/api/v1/openapi.json')).json() as { paths: Record<string, { get: { parameters: { name: string; schema: { maximum?: number; description?: string }; description?: string }[] } }> };
    const param = (path: string, name: string) => doc.paths[path]!.get.parameters.find((p) => p.name === name)!;
    assert.match(JSON.stringify(param('/api/v1/{chain}/addresses/top/active', 'page')), new RegExp(`page × page_size must be at most ${PAGED_ROWS}`));
    assert.match(JSON.stringify(param('/api/v1/{chain}/addresses/{address}/transactions', 'offset')), new RegExp(`With tx_type, offset \\+ limit must be at most ${PAGED_ROWS}`));
  });
}, { tuning: tuningWith({ pagedRows: ROWS }) });
