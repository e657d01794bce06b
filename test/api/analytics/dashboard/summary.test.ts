import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { blocksByDay, daysBetween, loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { isoSeconds } from '../../../support/expected-status.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const GENERATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function expectedChain(w: AnalyticsWorld, chain: 'pow' | 'pos', network: string) {
  const blocks = w.blocks[chain];
  const tip = blocks.at(-1)!;
  return {
    chain,
    network,
    total_blocks: blocks.length,
    min_height: blocks[0]!.height,
    max_height: tip.height,
    total_transactions: blocks.reduce((n, b) => n + b.transactions.length, 0),
    latest_block_time: isoSeconds(tip.timestamp),
    tokens_count: new Set(blocks.flatMap((b) => b.tokens.map((t) => t.contract))).size,
  };
}

function expectedPosExtras(w: AnalyticsWorld) {
  const blocks = w.blocks.pos;
  const tipTs = blocks.at(-1)!.timestamp;
  const last = utcDay(tipTs);
  const byDay = blocksByDay(blocks);
  const first = utcDay(tipTs - 6 * 86_400);
  return {
    validators_count: w.world.staking.validators.filter((v) => v.chain === 'pos' && v.status.startsWith('active')).length,
    fee_burned_24h_planck: blocks
      .filter((b) => b.timestamp > tipTs - 86_400)
      .reduce((sum, b) => sum + b.transactions.reduce((s, t) => s + t.burned, 0n), 0n)
      .toString(),
    activity_7d: daysBetween(first, last).map((day) => {
      const of = byDay.get(day) ?? [];
      return { day, block_count: of.length, tx_count: of.reduce((n, b) => n + b.transactions.length, 0) };
    }),
  };
}

describeSeededApp('GET /analytics/dashboard/summary', loadAnalyticsWorld, (s) => {
  it('answers both chains’ counters from the blocks, pos with validators, 24 h burn and 7 days of activity', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/dashboard/summary', headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.generated_at, GENERATED_AT);
    const w = s.seeded();
    const networks = s.t().config.networks;
    const expected = {
      chains: { pow: expectedChain(w, 'pow', networks.pow), pos: { ...expectedChain(w, 'pos', networks.pos), ...expectedPosExtras(w) } },
      generated_at: body.generated_at,
    };
    assert.deepEqual(body, expected);
    assert.equal(body.chains.pos.activity_7d.length, 7);
    assert.ok(body.chains.pos.activity_7d[0]?.block_count === 0, 'the pos history is shorter than 7 days: its first days are zero-filled');
    assert.ok(BigInt(body.chains.pos.fee_burned_24h_planck) > 0n && body.chains.pos.validators_count > 0 && body.chains.pos.tokens_count > 0);
  });
});

describeSeededApp('GET /analytics/dashboard/summary on an empty store', async () => null, (s) => {
  it('answers zeros and nulls', async () => {
    const body = (await s.t().app.inject({ url: '/api/v1/analytics/dashboard/summary', headers: AUTH })).json();
    const networks = s.t().config.networks;
    const empty = (chain: 'pow' | 'pos') => ({
      chain, network: networks[chain], total_blocks: 0, min_height: null, max_height: null, total_transactions: 0, latest_block_time: null, tokens_count: 0,
    });
    assert.deepEqual(body, {
      chains: { pow: empty('pow'), pos: { ...empty('pos'), validators_count: 0, fee_burned_24h_planck: null, activity_7d: [] } },
      generated_at: body.generated_at,
    });
    assert.match(body.generated_at, GENERATED_AT);
  });
});
