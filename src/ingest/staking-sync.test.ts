import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import sql from 'sql-template-tag';
import { describeEachStore } from '../../test/support/stores.ts';
import { MIN_SLASHING_PENALTY_QUOTIENT, startFakeBeacon, type FakeBeacon } from '../../test/fakes/beacon/server.ts';
import { createBeaconClient } from '../sources/beacon/client.ts';
import { nakamoto33 } from '../sources/beacon/staking.ts';
import { syncStaking } from './staking-sync.ts';

const GENESIS = Date.parse('2024-03-01T20:00:00Z') / 1000;
// 20-minute slots, 3 slots per epoch: one epoch an hour, 24 a day.
const config = {
  genesisTime: GENESIS,
  secondsPerSlot: 1200,
  slotsPerEpoch: 3,
  validators: 8,
  headSlot: 3 * 60 + 1,
  finalizedEpoch: 58,
  activation: { 5: 10 },
  slashedAt: { 3: 30 },
  missed: (slot: number) => slot % 7 === 3,
  failFirst: { count: 3, status: 503 as const },
};

/** What a day should add up to, straight from the model. */
function expectedDay(beacon: FakeBeacon, day: string) {
  const { model } = beacon;
  const start = Date.parse(`${day}T00:00:00Z`) / 1000;
  let rewards = 0n;
  const perValidator = new Map<number, bigint>();
  const add = (v: number, gwei: bigint) => perValidator.set(v, (perValidator.get(v) ?? 0n) + gwei);
  let lastEpoch = -1;
  for (let epoch = 0; epoch < config.finalizedEpoch; epoch++) {
    const t = GENESIS + epoch * 3600;
    if (t < start || t >= start + 86_400) continue;
    lastEpoch = epoch;
    for (let v = 0; v < config.validators; v++) {
      const a = model.attestation(v, epoch);
      if (a) add(v, a.head + a.target + a.source + a.inclusion_delay + a.inactivity);
      // slash_validator's initial penalty, which no rewards endpoint reports.
      if ((config.slashedAt as Record<number, number>)[v] === epoch) add(v, -model.effectiveBalance(v) / MIN_SLASHING_PENALTY_QUOTIENT);
    }
    for (let slot = epoch * 3; slot < epoch * 3 + 3; slot++) {
      const block = model.blockReward(slot);
      if (block) add(block.proposer, block.total);
      for (const [v, gwei] of model.syncRewards(slot) ?? []) add(v, gwei);
    }
  }
  for (const gwei of perValidator.values()) rewards += gwei;
  const active = Array.from({ length: config.validators }, (_, v) => v).filter((v) => v !== 5 || lastEpoch >= 10);
  return {
    rewards: rewards * 10n ** 9n,
    rewarded: [...perValidator.values()].filter((g) => g > 0n).length,
    active: active.length,
    staked: active.reduce((sum, v) => sum + model.effectiveBalance(v), 0n) * 10n ** 9n,
  };
}

describeEachStore('staking figures from the beacon node', (getStore) => {
  let beacon: FakeBeacon;
  before(async () => {
    beacon = await startFakeBeacon(config);
  });
  after(() => beacon.close());

  it('writes validators and one staking_daily row per day up to the finalized epoch, through retries', async () => {
    const client = createBeaconClient({ url: beacon.url, backoffMs: 1 });
    const result = await syncStaking(getStore(), client, { now: () => 1_700_000_000 });
    assert.deepEqual(result.days, ['2024-03-01', '2024-03-02', '2024-03-03', '2024-03-04']);
    assert.equal(result.validators, 8);

    const rows = await getStore().query<any>('t', sql`SELECT day::text AS day, active_validators, total_staked::text AS staked, rewards::text AS rewards, rewarded_validators, slashings, nakamoto_33 FROM staking_daily WHERE chain = 'pos' ORDER BY day`);
    assert.equal(rows.length, 4);
    for (const row of rows) {
      const expected = expectedDay(beacon, row.day);
      assert.equal(BigInt(row.rewards), expected.rewards, `rewards of ${row.day}`);
      assert.equal(row.rewarded_validators, expected.rewarded, `rewarded on ${row.day}`);
      assert.equal(row.active_validators, expected.active, `active on ${row.day}`);
      assert.equal(BigInt(row.staked), expected.staked, `staked on ${row.day}`);
    }
    // Validator 3 was slashed at epoch 30 (2024-03-03 02:00): its 1-coin initial penalty makes the day's net negative.
    assert.deepEqual(rows.map((r) => r.slashings), [0, 0, 1, 0]);
    assert.deepEqual(rows.map((r) => BigInt(r.rewards) < 0n), [false, false, true, false]);
    assert.ok(rows.every((r) => r.nakamoto_33 === 3));

    const validators = await getStore().query<any>('t', sql`SELECT validator_index::int AS i, withdrawal_address, status, balance::text AS balance, slashed, activation_epoch FROM validators WHERE chain = 'pos' ORDER BY validator_index`);
    assert.equal(validators.length, 8);
    assert.equal(validators[0].withdrawal_address, 'Q' + (0xabc000).toString(16).padStart(40, '0'));
    assert.equal(validators[1].withdrawal_address, null);
    assert.equal(validators[3].status, 'active_slashed');
    assert.equal(validators[3].slashed, true);
    assert.equal(BigInt(validators[2].balance), (32_000_000_000n + 2000n + 60n) * 10n ** 9n);
  });

  it('is idempotent: a second run rewrites the last day and changes nothing', async () => {
    const before = await getStore().query<any>('t', sql`SELECT * FROM staking_daily ORDER BY day`);
    const result = await syncStaking(getStore(), createBeaconClient({ url: beacon.url }));
    assert.deepEqual(result.days, ['2024-03-04']);
    assert.deepEqual(await getStore().query<any>('t', sql`SELECT * FROM staking_daily ORDER BY day`), before);
  });
});

it('nakamoto_33 counts the fewest largest stakes above a third', () => {
  const v = (effectiveBalance: bigint, status = 'active_ongoing') => ({ index: 0, pubkey: '', withdrawalAddress: null, status, balance: 0n, effectiveBalance, slashed: false, activationEpoch: 0, exitEpoch: null });
  assert.equal(nakamoto33([v(10n), v(10n), v(10n)]), 2);
  assert.equal(nakamoto33([v(50n), v(10n), v(10n)]), 1);
  assert.equal(nakamoto33([v(50n, 'pending_queued')]), null);
});
