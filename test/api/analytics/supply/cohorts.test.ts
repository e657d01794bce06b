import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, entitySet, holdersByDay, pct } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/cohorts';
const TIERS: [string, bigint][] = [
  ['plankton', 0n], ['shrimp', 1n], ['crab', 10n], ['fish', 100n], ['dolphin', 1000n], ['shark', 10000n],
  ['orca', 40000n], ['whale', 100000n], ['humpback', 1000000n], ['leviathan', 5000000n],
];
const UNIT = { pow: 10n ** 9n, pos: 10n ** 18n };

function expectedCohorts(chain: ChainId, balances: bigint[]) {
  const supply = balances.reduce((a, b) => a + b, 0n);
  return TIERS.map(([name, floor], i) => {
    const next = TIERS[i + 1]?.[1];
    const inTier = balances.filter((b) => b >= floor * UNIT[chain] && (next === undefined || b < next * UNIT[chain]));
    return { cohort: name, holders: inTier.length, pct: pct(inTier.reduce((a, b) => a + b, 0n), supply) };
  });
}

describeSeededApp('GET /analytics/supply/cohorts', loadAnalyticsWorld, (s) => {
  for (const chain of ['pos', 'pow'] as const) {
    for (const individuals of [false, true]) {
      it(`${chain}${individuals ? ', individuals only' : ''}: the ten tiers partition the holders`, async () => {
        const res = await s.t().app.inject({ url: `${URL}?chain=${chain}${individuals ? '&individuals_only=true' : ''}`, headers: AUTH });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['cache-control'], 'private, max-age=600');
        const body = res.json();
        let holders = [...holdersByDay(chain, s.seeded().blocks[chain]).values()].at(-1)!;
        if (individuals) {
          const entities = await entitySet(s.store(), chain, s.seeded().blocks[chain]);
          const before = holders.length;
          holders = holders.filter((h) => !entities.has(h.address));
          assert.ok(holders.length < before, 'some holders are entities');
        }
        const expected = expectedCohorts(chain, holders.map((h) => h.balance));
        assert.equal(body.holders, holders.length);
        assert.deepEqual(body.cohorts.map((c: { cohort: string; holders: number }) => [c.cohort, c.holders]), expected.map((c) => [c.cohort, c.holders]));
        body.cohorts.forEach((c: { supply_pct: number }, i: number) => close(c.supply_pct, expected[i]!.pct, expected[i]!.cohort));
        assert.equal(body.cohorts.reduce((n: number, c: { holders: number }) => n + c.holders, 0), body.holders);
        close(body.cohorts.reduce((n: number, c: { supply_pct: number }) => n + c.supply_pct, 0), 100, 'shares sum to 100');
      });
    }
  }

  it('refuses a malformed individuals_only, naming it', async () => {
    const res = await s.t().app.inject({ url: `${URL}?individuals_only=maybe`, headers: AUTH });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'individuals_only'), res.body);
  });
});

describeSeededApp('GET /analytics/supply/cohorts on an empty store', emptyStore, (s) => {
  it('answers ten empty tiers', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.equal(body.holders, 0);
    assert.deepEqual(body.cohorts.map((c: { holders: number; supply_pct: number }) => [c.holders, c.supply_pct]), TIERS.map(() => [0, 0]));
  });
});
