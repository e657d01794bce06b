/**
 * Freshness headers (src/api/plugins/freshness.ts, docs/api-conventions.md "Freshness"): every
 * /api/v1 answer of every route of the OpenAPI document names the latest block it was computed
 * from, the request's chain's or both chains' on a route without one, equal to the tip of the
 * seed's own blocks; the body agrees with it; errors carry none; and after one more block is
 * ingested (or the tip is replaced by a reorg) the headers name the new tip, kept answers or not.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import sql from 'sql-template-tag';
import { ingest } from '../../src/ingest/pipeline.ts';
import { sharedStoreStateReader } from '../../src/api/plugins/freshness.ts';
import { loadAnalyticsWorld } from '../support/analytics-world.ts';
import { buildTestApp } from '../support/app.ts';
import { apiOperations, candidateAddresses, get, openApiDoc, requestsOf, type Candidates, type OpenApiDoc } from '../support/api-routes.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeSeededApp } from '../support/seeded-app.ts';
import { describeEachStore, describeOnOneStore, openTestStore } from '../support/stores.ts';

type Headers = Record<string, unknown>;

const CHAINS: ChainId[] = ['pow', 'pos'];
const titled = (chain: ChainId) => chain[0]!.toUpperCase() + chain.slice(1);

/** The freshness headers an answer must carry: the request's chain's tip, or each chain's on a route without a chain. */
function expectedHeaders(tips: Record<ChainId, CanonicalBlock | undefined>, chain: ChainId | null): Record<string, string> {
  const pair = (prefix: string, block: CanonicalBlock | undefined): Record<string, string> =>
    block ? { [`${prefix}-block-height`]: String(block.height), [`${prefix}-block-hash`]: block.hash } : {};
  if (chain) return pair('quarry', tips[chain]);
  return Object.assign({}, ...CHAINS.map((c) => pair(`quarry-${c}`, tips[c])));
}

/** The freshness headers an answer carries (any `quarry-*block*` header). */
const freshnessOf = (headers: Headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => /^quarry-.*block-/.test(name)).map(([k, v]) => [k, String(v)]));

describeSeededApp('freshness headers', loadAnalyticsWorld, (s) => {
  let doc: OpenApiDoc;
  let candidates: Candidates;
  let tips: Record<ChainId, CanonicalBlock | undefined>;
  before(async () => {
    doc = await openApiDoc(s.t());
    // One address per chain: the headers do not depend on which.
    const all = candidateAddresses(s.seeded().blocks);
    candidates = {
      pow: all.pow.slice(0, 1), pos: all.pos.slice(0, 1), blocks: all.blocks,
      transactions: { pow: all.transactions!.pow.slice(0, 1), pos: all.transactions!.pos.slice(0, 1) }, multiSig: all.multiSig!.slice(0, 1),
      search: all.search!.slice(0, 1), validators: all.validators, tokens: all.tokens,
    };
    // The generator's own canonical blocks, not the store: the last of each chain.
    tips = { pow: s.seeded().blocks.pow.at(-1), pos: s.seeded().blocks.pos.at(-1) };
  });

  it('every answer of every route names the tip of its chain, or of both chains without one, as JSON and as CSV', async () => {
    assert.ok(tips.pow && tips.pos && tips.pow.hash !== tips.pos.hash);
    const operations = apiOperations(doc);
    assert.ok(operations.length >= 60, `${operations.length} routes`);
    let chainless = 0;
    for (const op of operations) {
      for (const { url, chain } of requestsOf(op, candidates)) {
        const expected = expectedHeaders(tips, chain);
        const res = await get(s.t(), url);
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        assert.deepEqual(freshnessOf(res.headers), expected, url);
        if (!chain) chainless++;
        // Asked again (a kept answer, for the routes the snapshot cache keeps): the same tip.
        assert.deepEqual(freshnessOf((await get(s.t(), url)).headers), expected, `${url} again`);
        if (op.responses['200']!.content!['text/csv']) {
          const csv = await get(s.t(), url, { accept: 'text/csv' });
          assert.match(String(csv.headers['content-type']), /^text\/csv/);
          assert.deepEqual(freshnessOf(csv.headers), expected, `${url} as CSV`);
        }
      }
    }
    assert.ok(chainless >= 5, 'routes without a chain answer both chains’ tips');
  });

  it('a chain’s analytics route without chain= answers pos’s tip (the default chain)', async () => {
    const res = await get(s.t(), '/api/v1/analytics/block-size');
    assert.deepEqual(freshnessOf(res.headers), expectedHeaders(tips, 'pos'));
  });

  it('the header and the body describe the same blocks: block-size counts every block up to the named height', async () => {
    for (const chain of CHAINS) {
      const res = await get(s.t(), `/api/v1/analytics/block-size?chain=${chain}&window=3650d`);
      const height = Number(res.headers['quarry-block-height']);
      const counted = res.json().items.reduce((n: number, item: { block_count: number }) => n + item.block_count, 0);
      assert.equal(counted, s.seeded().blocks[chain].filter((b) => b.height <= height).length, chain);
    }
  });

  it('a 304 names the tip too; errors name none', async () => {
    const url = '/api/v1/analytics/block-size?chain=pow';
    const first = await get(s.t(), url);
    const notModified = await get(s.t(), url, { 'if-none-match': String(first.headers['etag']) });
    assert.equal(notModified.statusCode, 304);
    assert.deepEqual(freshnessOf(notModified.headers), expectedHeaders(tips, 'pow'));
    for (const [path, headers] of [
      ['/api/v1/analytics/block-size?window=0d', {}],
      ['/api/v1/analytics/block-size?chain=POS', {}],
      ['/api/v1/analytics/block-size', { authorization: 'Bearer not-a-key-not-a-key' }],
      ['/api/v1/nowhere', {}],
    ] as const) {
      const res = await get(s.t(), path, headers);
      assert.ok(res.statusCode >= 400, path);
      assert.deepEqual(freshnessOf(res.headers), {}, `${path}: ${res.statusCode}`);
    }
  });

  it('the OpenAPI document names the headers of every route’s 200 answer', () => {
    for (const op of apiOperations(doc)) {
      const headers = Object.keys(op.responses['200']!.headers ?? {});
      const chained = op.parameters.some((p) => p.name === 'chain') || /^\/api\/v1\/(pow|pos)\//.test(op.path);
      const wanted = chained ? ['Quarry-Block-Height', 'Quarry-Block-Hash'] : CHAINS.flatMap((c) => [`Quarry-${titled(c)}-Block-Height`, `Quarry-${titled(c)}-Block-Hash`]);
      for (const name of wanted) assert.ok(headers.includes(name), `${op.path} documents ${name}`);
    }
  });
});

describeOnOneStore('freshness headers follow the chain', (_getStore, kind) => {
  for (const cacheMb of ['64', '0']) {
    it(`name the new tip after a block and after a reorg (response cache ${cacheMb} MB)`, async () => {
      const store = await openTestStore(kind);
      const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000', QUARRY_RESPONSE_CACHE_MB: cacheMb });
      try {
        const chain = 'pos';
        const [alice, bob] = [addr(chain, 'fresh alice'), addr(chain, 'fresh bob')];
        const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
        builder.block((b) => b.genesis([{ address: alice, amount: coins(chain, 1000) }]));
        builder.block((b) => b.transfer(alice, bob, coins(chain, 1)));
        await ingest(store, builder.source());

        const urls = [
          '/api/v1/analytics/block-size?chain=pos', // kept per snapshot when the cache is on
          `/api/v1/pos/addresses/${alice}/transactions`, // kept in the Addresses API's share when the cache is on
          '/api/v1/analytics/network/health', // reads the clock: never kept
        ];
        const check = async (tip: CanonicalBlock, label: string) => {
          for (const url of urls) {
            for (const accept of ['application/json', 'text/csv']) {
              const res = await get(t, url, { accept });
              assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
              const expected = url.includes('network/health')
                ? { 'quarry-pos-block-height': String(tip.height), 'quarry-pos-block-hash': tip.hash }
                : { 'quarry-block-height': String(tip.height), 'quarry-block-hash': tip.hash };
              assert.deepEqual(freshnessOf(res.headers), expected, `${label}: ${url} (${accept})`);
            }
          }
        };
        await check(builder.tip!, 'two blocks');
        assert.equal(builder.tip!.height, 1);

        builder.block((b) => b.transfer(bob, alice, coins(chain, 1)));
        await ingest(store, builder.source());
        await check(builder.tip!, 'one more block');
        assert.equal(builder.tip!.height, 2);

        // A reorg replaces the tip with a branch the node shows one block later.
        const replaced = builder.tip!;
        const [branch] = builder.fork(1, [(b) => b.transfer(alice, bob, coins(chain, 2)), () => {}]);
        await ingest(store, builder.source());
        assert.equal(branch!.height, replaced.height);
        assert.notEqual(branch!.hash, replaced.hash);
        await check(builder.tip!, 'after the reorg');
        const [row] = await store.query<{ hash: string }>('test.block', sql`SELECT hash FROM blocks WHERE chain = 'pos' AND height = ${replaced.height}`);
        assert.equal(row?.hash, branch!.hash, 'the store took the branch');
      } finally {
        await t.close();
        await store.close();
      }
    });
  }
});

describeEachStore('the store state read shared by concurrent requests', (_getStore, kind) => {
  const chain = 'pos';
  /** A store holding a pos genesis block, the builder that adds the next ones, and the count of state reads so far. */
  async function storeWithGenesis() {
    const store = await openTestStore(kind);
    const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
    builder.block((b) => b.genesis([{ address: addr(chain, 'shared read'), amount: coins(chain, 1000) }]));
    await ingest(store, builder.source());
    const nextBlock = async () => {
      builder.block((b) => b.transfer(addr(chain, 'shared read'), addr(chain, 'shared other'), coins(chain, 1)));
      await ingest(store, builder.source());
    };
    return { store, nextBlock, reads: () => store.stats().get('api.snapshot')?.count ?? 0 };
  }

  it('serves every caller a read sent after its call, one read for all who call while one is under way', async () => {
    const { store, nextBlock, reads } = await storeWithGenesis();
    try {
      const read = sharedStoreStateReader(store);

      const lone = await read();
      assert.equal(lone.tips.pos?.height, '0');
      assert.equal(reads(), 1);

      // The first call sends a read; the calls made while it is under way cannot take it (it was
      // sent before them) and share the next one, sent when the first returns.
      const first = read();
      const later = Array.from({ length: 8 }, () => read());
      assert.ok(later.every((p) => p === later[0]), 'the later calls wait on one read');
      assert.notEqual(later[0], first, 'not on the one under way');
      const [a, ...rest] = await Promise.all([first, ...later]);
      assert.equal(reads(), 3, 'two more reads for nine calls');
      assert.ok(rest.every((state) => state === rest[0]), 'the later calls share one read');
      assert.notEqual(rest[0], a, 'not the read sent before them');

      // A call after a commit sees it, though a read was under way while it committed: the reader keeps no state between reads.
      const inFlight = read();
      const committed = nextBlock();
      await inFlight;
      await committed;
      assert.equal((await read()).tips.pos?.height, '1');
    } finally {
      await store.close();
    }
  });

  it('with a maximum age, serves a read that started within it, renews it in the background from half of it, and never an older one', async () => {
    const { store, nextBlock, reads } = await storeWithGenesis();
    try {
      const maxAgeMs = 400;
      const read = sharedStoreStateReader(store, maxAgeMs);
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

      let started = performance.now();
      const first = await read();
      assert.equal(reads(), 1);
      // Calls within half the age take the same read, without another statement.
      const within = await Promise.all(Array.from({ length: 5 }, () => read()));
      if (performance.now() - started < maxAgeMs / 2) {
        assert.ok(within.every((state) => state === first));
        assert.equal(reads(), 1);
      }

      // A block committed now is not yet in the reads served within the age…
      await nextBlock();
      const staleCalledAt = performance.now();
      const stale = await read();
      if (performance.now() - started < maxAgeMs / 2) {
        assert.equal(stale, first, 'within the age, the read from before the commit');
        assert.equal(stale.tips.pos?.height, '0');
      }
      // …and is in every read once the age has passed since the reads that preceded it started
      // (on a slow machine the last call may have come past half the age and started a renewal).
      await sleep(maxAgeMs - (performance.now() - staleCalledAt) + 5);
      const readsBefore = reads();
      started = performance.now();
      const after = await read();
      assert.equal(after.tips.pos?.height, '1', 'a read older than the maximum age is never served');
      assert.equal(reads(), readsBefore + 1);

      // Past half the age, a call still takes the current read and starts the next in the background.
      await sleep(Math.max(0, maxAgeMs / 2 - (performance.now() - started)) + 5);
      const ageAtCall = performance.now() - started;
      const renewing = await read();
      if (ageAtCall < maxAgeMs) {
        assert.equal(renewing, after, 'served at once from the current read');
        for (let waited = 0; reads() < readsBefore + 2 && waited < 2000; waited += 10) await sleep(10);
        assert.equal(reads(), readsBefore + 2, 'and a renewal sent');
      }
    } finally {
      await store.close();
    }
  });
});
