import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { addr, ChainBuilder, coins } from '../../../support/chain-builder.ts';
import { ingest } from '../../../../src/ingest/pipeline.ts';
import type { Store } from '../../../../src/store/store.ts';
import { netOver, sentOn, thresholdOf, whaleOracle, whalesOf, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/cohorts';
const COHORTS = ['new', 'active', 'hodler', 'distributor', 'dormant'];

/** The cohort rules of docs/metrics.md, first match wins, over the blocks. */
function expected(w: AnalyticsWorld, chain: ChainId, network: string, pct?: number) {
  const o = whaleOracle(w, chain);
  const threshold = thresholdOf(o, pct);
  const whales = whalesOf(o, threshold);
  const month = windowDays(o, 30);
  const sums = new Map(COHORTS.map((c) => [c, { count: 0, balance: 0n }]));
  let total = 0n;
  for (const x of whales) {
    let cohort: string;
    if (x.appeared !== null && x.appeared > o.tipTs - 30 * 86_400) cohort = 'new';
    else if (x.lastSeen === null || x.lastSeen <= o.tipTs - 180 * 86_400) cohort = 'dormant';
    else if (netOver(o, x.address, month) < 0n) cohort = 'distributor';
    else if (month.every((day) => sentOn(o, x.address, day) === 0n)) cohort = 'hodler';
    else cohort = 'active';
    sums.get(cohort)!.count++;
    sums.get(cohort)!.balance += x.balance;
    total += x.balance;
  }
  return {
    items: COHORTS.map((cohort) => ({ cohort, count: sums.get(cohort)!.count, share: total === 0n ? 0 : Number((sums.get(cohort)!.balance * 10n ** 12n) / total) / 1e10 })),
    total_whales: whales.length, chain, network, whale_threshold: threshold.toString(), threshold_pct: pct ?? null,
  };
}

function check(body: { items: { cohort: string; count: number; balance_pct: number }[] } & Record<string, unknown>, e: ReturnType<typeof expected>, message: string) {
  const { items, ...rest } = body;
  const { items: expectedItems, ...expectedRest } = e;
  assert.deepEqual(rest, expectedRest, message);
  assert.deepEqual(items.map((i) => [i.cohort, i.count]), expectedItems.map((i) => [i.cohort, i.count]), message);
  for (const [i, item] of items.entries()) assert.ok(Math.abs(item.balance_pct - expectedItems[i]!.share) < 1e-8, `${message} ${item.cohort}: ${item.balance_pct}`);
  if (e.total_whales > 0) assert.ok(Math.abs(items.reduce((a, i) => a + i.balance_pct, 0) - 100) < 1e-9, `${message}: shares sum to 100`);
}

describeSeededApp('GET /analytics/whales/cohorts', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('puts every whale in one cohort, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    check(body, expected(s.seeded(), 'pos', s.t().config.networks.pos), 'pos');
    assert.ok(body.total_whales > 0);
  });

  it('answers pow and percent thresholds', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const network = s.t().config.networks[chain];
      check((await get(`?chain=${chain}`)).json(), expected(s.seeded(), chain, network), chain);
      check((await get(`?chain=${chain}&threshold_pct=0.1`)).json(), expected(s.seeded(), chain, network, 0.1), `${chain} 0.1`);
    }
  });

  it('refuses a bad threshold_pct or chain, naming it', async () => {
    for (const [query, param] of [['?threshold_pct=0', 'threshold_pct'], ['?threshold_pct=x', 'threshold_pct'], ['?chain=x', 'chain']]) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/cohorts on an empty store', async () => null, (s) => {
  it('answers the five cohorts empty', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.deepEqual(body, {
      items: COHORTS.map((cohort) => ({ cohort, count: 0, balance_pct: 0 })), total_whales: 0,
      chain: 'pos', network: s.t().config.networks.pos, whale_threshold: (10n ** 23n).toString(), threshold_pct: null,
    });
  });
});

/**
 * The standard world is six days long, so all its whales are new. This one is 250 daily pow blocks
 * with one whale per cohort (and a relative of the dormant one that last moved 200 days ago).
 */
async function loadCohortChain(store: Store): Promise<AnalyticsWorld> {
  const name = (n: string) => addr('pow', `whale-${n}`);
  const c = new ChainBuilder('pow', Date.parse('2026-01-01T12:00:00Z') / 1000, 86_400);
  const whale = coins('pow', 100_000);
  for (let i = 0; i < 250; i++) {
    c.block((b) => {
      if (i === 0) b.genesis(['dormant', 'stale', 'distributor', 'hodler', 'active', 'small'].map((n) => ({ address: name(n), amount: 5n * whale })));
      if (i === 50) b.transfer(name('stale'), name('small'), whale);
      if (i === 200) b.transfer(name('small'), name('distributor'), whale);
      if (i === 235) b.transfer(name('distributor'), name('small'), 2n * whale);
      if (i === 238) b.transfer(name('small'), name('hodler'), whale / 10n);
      if (i === 240) b.transfer(name('active'), name('small'), whale / 10n);
      if (i === 242) b.transfer(name('small'), name('active'), whale / 5n);
      if (i === 245) b.transfer(name('small'), name('new'), 2n * whale);
    });
  }
  await ingest(store, c.source(), { batchBlocks: 16 });
  return { blocks: { pow: c.blocks, pos: [] }, world: { curated: { exchangeWallets: [], labels: [], settings: [] } } } as unknown as AnalyticsWorld;
}

describeSeededApp('GET /analytics/whales/cohorts over 250 days', loadCohortChain, (s) => {
  it('tells the five cohorts apart', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH })).json();
    check(body, expected(s.seeded(), 'pow', s.t().config.networks.pow), 'pow');
    assert.deepEqual(body.items.map((i: { count: number }) => i.count), [1, 1, 1, 2, 2], JSON.stringify(body.items));
  });
});
