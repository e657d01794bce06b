import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ingest } from '../../../../src/ingest/pipeline.ts';
import type { Store } from '../../../../src/store/store.ts';
import { AUTH } from '../../../support/app.ts';
import { ChainBuilder } from '../../../support/chain-builder.ts';
import { expectedReorgs, isoSeconds, type ExpectedReorg } from '../../../support/expected-status.ts';
import { randomChain } from '../../../support/random-chain.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const DETECTED = Date.UTC(2026, 2, 2, 8, 30) / 1000;

/**
 * pos: 12 blocks, then two forks written out block by block (depth 2, then depth 3), each recorded
 * by hand as the block it replaces and the block replacing it. pow: a random chain with forks.
 */
async function seed(store: Store) {
  const c = new ChainBuilder('pos', Date.UTC(2026, 2, 1) / 1000);
  const provoked: ExpectedReorg[] = [];
  const forkAt = (depth: number, length: number) => {
    const old = c.blocks.at(-depth)!;
    const branch = c.fork(depth, Array.from({ length }, () => () => {}));
    provoked.push({ height: old.height, prev_hash: old.hash, new_hash: branch[0]!.hash, depth });
  };
  for (let i = 0; i < 12; i++) c.block();
  forkAt(2, 3);
  for (let i = 0; i < 5; i++) c.block();
  forkAt(3, 4);
  c.block();
  await ingest(store, c.source(), { batchBlocks: 1, now: () => DETECTED });
  const pow = randomChain('pow', 5, 120);
  await ingest(store, pow.source(), { batchBlocks: 3, now: () => DETECTED });
  return { provoked, pow: expectedReorgs(pow.items, pow.blocks) };
}

const row = (r: ExpectedReorg) => ({ ...r, detected_at: isoSeconds(DETECTED) });

describeSeededApp('GET /analytics/network/reorgs', seed, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/network/reorgs${query}`, headers: AUTH });

  it('lists the reorganisations the indexer met, newest first, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = s.seeded().provoked.map(row).reverse();
    assert.deepEqual(res.json(), { items, count: 2, total: 2, limit: 50, offset: 0 });
  });

  it('pages through the chain’s reorganisations', async () => {
    const all = s.seeded().pow.map(row).reverse();
    assert.ok(all.length >= 3, `the random chain forks (${all.length})`);
    assert.deepEqual((await get('?chain=pow&page_size=200')).json(), { items: all, count: all.length, total: all.length, limit: 200, offset: 0 });
    const second = (await get('?chain=pow&page=2&page_size=2')).json();
    assert.deepEqual(second, { items: all.slice(2, 4), count: all.slice(2, 4).length, total: all.length, limit: 2, offset: 2 });
    const past = (await get('?chain=pow&page=1000&page_size=200')).json();
    assert.deepEqual(past, { items: [], count: 0, total: all.length, limit: 200, offset: 199_800 });
  });

  it('refuses out-of-range paging and an unknown chain, naming the parameter', async () => {
    for (const [query, param] of [['?page=0', 'page'], ['?page_size=0', 'page_size'], ['?page_size=201', 'page_size'], ['?page=x', 'page'], ['?chain=btc', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/network/reorgs without reorganisations', async () => null, (s) => {
  it('answers an empty page', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/network/reorgs?chain=pow', headers: AUTH });
    assert.deepEqual(res.json(), { items: [], count: 0, total: 0, limit: 50, offset: 0 });
  });
});
