import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import sql from 'sql-template-tag';
import { describeEachStore } from '../../test/support/stores.ts';
import { beaconProposals, beaconStakingDays, beaconValidatorDays, VALIDATORS_BEACON } from '../../test/support/expected-staking.ts';
import { MIN_SLASHING_PENALTY_QUOTIENT, startFakeBeacon, type FakeBeacon } from '../../test/fakes/beacon/server.ts';
import { BeaconRouteError, createBeaconClient, withdrawalAddress } from '../sources/beacon/client.ts';
import { nakamoto33 } from '../sources/beacon/staking.ts';
import { readChainNetworks } from '../store/chain-network.ts';
import { readStakingSyncStatus } from './staking-status.ts';
import { followIntervalMs, syncStaking } from './staking-sync.ts';

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

    // Each validator's days and each block's proposer, from Ethereum's API as from qrysm's.
    const days = await getStore().query<{ index: number; day: string; status: string; balance: string; effective: string; rewards: string }>(
      't',
      sql`SELECT validator_index::int AS index, day::text AS day, status, balance::text AS balance, effective_balance::text AS effective, rewards::text AS rewards
          FROM validator_days WHERE chain = 'pos' ORDER BY day, validator_index`,
    );
    assert.deepEqual(days.map((d) => ({ index: d.index, day: d.day, status: d.status, balance: BigInt(d.balance), effectiveBalance: BigInt(d.effective), rewards: BigInt(d.rewards) })), beaconValidatorDays(beacon.model));
    const proposers = await getStore().query<{ slot: number; ts: number; proposer: number; reward: string }>('t', sql`SELECT slot::int AS slot, ts::int AS ts, proposer_index::int AS proposer, reward::text AS reward FROM slot_proposers ORDER BY slot`);
    assert.deepEqual(proposers.map((p) => ({ ...p, reward: BigInt(p.reward) })), beaconProposals(beacon.model));
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

// QRL 2.0's consensus client: /qrl/v1 routes only, mainnet's clock and values, credentials that are the address.
const QRYSM = {
  flavour: 'qrysm' as const,
  genesisTime: GENESIS,
  secondsPerSlot: 60,
  slotsPerEpoch: 128,
  validators: 6,
  headSlot: 128 * 16 + 1,
  finalizedEpoch: 14,
  activation: { 5: 4 },
  slashedAt: { 2: 12 },
  missed: (slot: number) => slot % 5 === 1,
};

describeEachStore('staking figures from a qrysm beacon node', (getStore) => {
  let beacon: FakeBeacon;
  before(async () => {
    beacon = await startFakeBeacon(QRYSM);
  });
  after(() => beacon.close());

  it('detects /qrl/v1 and writes the days of the model, every withdrawal address, and the network’s clock', async () => {
    const client = createBeaconClient({ url: beacon.url, backoffMs: 1 });
    const result = await syncStaking(getStore(), client, { now: () => 1_700_000_000 });
    assert.equal(await client.api(), 'qrl');
    assert.ok(beacon.requests.every((r) => r.includes(' /qrl/v1/')), 'asks only the routes qrysm has');
    const expected = beaconStakingDays(beacon.model);
    assert.deepEqual(result.days, expected.map((d) => d.day));
    assert.deepEqual(result.days, ['2024-03-01', '2024-03-02']);
    const rows = await getStore().query<any>('t', sql`SELECT day::text AS day, active_validators, total_staked::text AS staked, rewards::text AS rewards, rewarded_validators, slashings, nakamoto_33 FROM staking_daily WHERE chain = 'pos' ORDER BY day`);
    assert.deepEqual(
      rows.map((r) => ({ day: r.day, activeValidators: r.active_validators, totalStaked: BigInt(r.staked), nakamoto33: r.nakamoto_33, slashings: r.slashings, rewards: BigInt(r.rewards), rewardedValidators: r.rewarded_validators })),
      expected,
    );
    assert.deepEqual(rows.map((r) => r.slashings), [0, 1]);

    // Every validator's address: the credentials themselves (20 bytes), canonical.
    const head = beacon.model.validatorsAt(QRYSM.headSlot);
    const validators = await getStore().query<{ i: number; pubkey: string; withdrawal_address: string | null }>('t', sql`SELECT validator_index::int AS i, pubkey, withdrawal_address FROM validators WHERE chain = 'pos' ORDER BY validator_index`);
    assert.deepEqual(validators.map((v) => v.withdrawal_address), head.map((v) => `Q${String(v.validator.withdrawal_credentials).slice(2)}`));
    assert.ok(validators.every((v) => /^Q[0-9a-f]{40}$/.test(v.withdrawal_address ?? '')));
    assert.ok(validators.every((v) => v.pubkey.length === 2 + 2 * 2592), 'ML-DSA-87 public keys');

    assert.deepEqual((await readChainNetworks(getStore())).pos, { slotSeconds: 60, slotsPerEpoch: 128, addressBytes: 20, clockSource: 'beacon' });
    assert.deepEqual(await readStakingSyncStatus(getStore()), { lastSuccessTs: 1_700_000_000, error: null });
  });

  it('stops at a route the node does not have, naming it and the node (never its credentials), and records why', async () => {
    const url = beacon.url.replace('http://', 'http://operator:s3cret@') + '/?token=abc';
    const client = createBeaconClient({ url, api: 'eth' });
    const error = await syncStaking(getStore(), client, { now: () => 1_700_000_100 }).then(() => null, (e: unknown) => e as Error);
    assert.ok(error instanceof BeaconRouteError, String(error));
    assert.equal(error.message, `GET /eth/v1/beacon/genesis: the beacon node at ${beacon.url} has no such route (HTTP 404 "404 page not found")`);
    assert.ok(!error.message.includes('s3cret') && !error.message.includes('abc'));
    assert.deepEqual(await readStakingSyncStatus(getStore()), {
      lastSuccessTs: 1_700_000_000,
      error: { route: 'GET /eth/v1/beacon/genesis', node: beacon.url, message: error.message, at: 1_700_000_100 },
    });
  });
});

describeEachStore('each validator\'s days and each block\'s proposer from a qrysm beacon node', (getStore) => {
  let beacon: FakeBeacon;
  before(async () => {
    beacon = await startFakeBeacon(VALIDATORS_BEACON);
  });
  after(() => beacon.close());

  const validatorDays = () =>
    getStore().query<{ index: number; day: string; status: string; balance: string; effective: string; rewards: string }>(
      't',
      sql`SELECT validator_index::int AS index, day::text AS day, status, balance::text AS balance, effective_balance::text AS effective, rewards::text AS rewards
          FROM validator_days WHERE chain = 'pos' ORDER BY day, validator_index`,
    );
  const proposers = () =>
    getStore().query<{ slot: number; ts: number; proposer: number; reward: string }>(
      't',
      sql`SELECT slot::int AS slot, ts::int AS ts, proposer_index::int AS proposer, reward::text AS reward FROM slot_proposers WHERE chain = 'pos' ORDER BY slot`,
    );
  const asExpected = (rows: Awaited<ReturnType<typeof validatorDays>>) =>
    rows.map((r) => ({ index: r.index, day: r.day, status: r.status, balance: BigInt(r.balance), effectiveBalance: BigInt(r.effective), rewards: BigInt(r.rewards) }));

  it('writes every validator of each day\'s end state with its balances and net rewards, every block\'s proposer, and the counts per status', async () => {
    const result = await syncStaking(getStore(), createBeaconClient({ url: beacon.url, backoffMs: 1 }), { now: () => 1_700_000_000 });
    assert.deepEqual(result.days, ['2024-03-01', '2024-03-02', '2024-03-03']);
    const expectedDays = beaconValidatorDays(beacon.model);
    assert.equal(expectedDays.length, 3 * VALIDATORS_BEACON.validators);
    assert.deepEqual(asExpected(await validatorDays()), expectedDays);
    // The day of validator 3's slashing (epoch 14, 2024-03-03): its net is its rewards less 40,000 ÷ 32 quanta.
    const slashing = expectedDays.find((d) => d.index === 3 && d.day === '2024-03-03')!;
    assert.ok(slashing.rewards < -1_000n * 10n ** 18n, String(slashing.rewards));
    // At the end of 2024-03-02 (epoch 13) validator 6 was paid out and 7 had just become withdrawable.
    assert.deepEqual(expectedDays.filter((d) => d.day === '2024-03-02' && (d.index === 6 || d.index === 7)).map((d) => [d.index, d.status, d.balance === 0n]), [[6, 'withdrawal_done', true], [7, 'withdrawal_possible', false]]);

    const expectedProposals = beaconProposals(beacon.model);
    assert.ok(expectedProposals.length > 2500);
    assert.deepEqual(
      (await proposers()).map((p) => ({ slot: p.slot, ts: p.ts, proposer: p.proposer, reward: BigInt(p.reward) })),
      expectedProposals,
    );

    // The staking days with exits: validators that exited are not active.
    const rows = await getStore().query<any>('t', sql`SELECT day::text AS day, active_validators, total_staked::text AS staked FROM staking_daily WHERE chain = 'pos' ORDER BY day`);
    assert.deepEqual(rows.map((r) => [r.day, r.active_validators, BigInt(r.staked)]), beaconStakingDays(beacon.model).map((d) => [d.day, d.activeValidators, d.totalStaked]));

    const counts = await getStore().query<{ status: string; validators: number }>('t', sql`SELECT status, validators FROM validator_counts WHERE chain = 'pos' ORDER BY status`);
    const head = new Map<string, number>();
    for (const r of beacon.model.validatorsAt(VALIDATORS_BEACON.headSlot)) head.set(r.status, (head.get(r.status) ?? 0) + 1);
    assert.deepEqual(counts.map((c) => [c.status, c.validators]), [...head].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    assert.equal(head.size, 9, 'every status of qrysm at the head');
  });

  it('a store synced before validator days existed is synced again from the first day, and ends the same', async () => {
    const before = { days: await validatorDays(), proposers: await proposers() };
    await getStore().query('t', sql`DELETE FROM validator_days`);
    await getStore().query('t', sql`DELETE FROM slot_proposers`);
    const result = await syncStaking(getStore(), createBeaconClient({ url: beacon.url }));
    assert.deepEqual(result.days, ['2024-03-01', '2024-03-02', '2024-03-03']);
    assert.deepEqual(await validatorDays(), before.days);
    assert.deepEqual(await proposers(), before.proposers);
    // Then it resumes at the last day, as before.
    assert.deepEqual((await syncStaking(getStore(), createBeaconClient({ url: beacon.url }))).days, ['2024-03-03']);
    assert.deepEqual(await validatorDays(), before.days);
  });
});

describe('the beacon client against qrysm', () => {
  let beacon: FakeBeacon;
  before(async () => {
    beacon = await startFakeBeacon(QRYSM);
  });
  after(() => beacon.close());

  it('tells an empty slot (the API’s JSON 404) from a missing route (the router’s 404)', async () => {
    const client = createBeaconClient({ url: beacon.url });
    assert.equal(await client.getBlockRewards(1), null);
    assert.equal(await client.getSyncCommitteeRewards(6), null);
    assert.deepEqual(await client.getBlockRewards(2), { proposerIndex: beacon.model.proposer(2), total: 42n });
    const forced = createBeaconClient({ url: beacon.url, api: 'zond' });
    await assert.rejects(forced.getBlockRewards(2), (e: unknown) => e instanceof BeaconRouteError && e.route === 'GET /zond/v1/beacon/rewards/blocks/2');
    // Attestation rewards only up to the current epoch − 2, as qrysm serves them.
    assert.equal((await client.getAttestationsRewards(14)).size, QRYSM.validators);
    await assert.rejects(client.getAttestationsRewards(15), /not available/);
  });

  it('reads qrysm’s spec keys', async () => {
    assert.deepEqual(await createBeaconClient({ url: beacon.url }).getSpec(), { secondsPerSlot: 60, slotsPerEpoch: 128, minSlashingPenaltyQuotient: 32, maxEffectiveBalance: 40_000_000_000_000n });
  });

  it('detects older qrysm’s /zond/v1 and Ethereum’s /eth/v1, and says when no prefix answers', async () => {
    const zond = await startFakeBeacon({ ...QRYSM, qrysmPrefix: 'zond' });
    const eth = await startFakeBeacon({ ...config, failFirst: undefined });
    try {
      assert.equal(await createBeaconClient({ url: zond.url }).api(), 'zond');
      assert.deepEqual(zond.requests.slice(0, 2), ['GET /qrl/v1/beacon/genesis', 'GET /zond/v1/beacon/genesis']);
      assert.equal(await createBeaconClient({ url: eth.url }).api(), 'eth');
      assert.equal(await createBeaconClient({ url: zond.url, api: 'zond' }).getGenesis().then((g) => g.genesisTime), GENESIS);
    } finally {
      await Promise.all([zond.close(), eth.close()]);
    }
    const none = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
    });
    await new Promise<void>((resolve) => none.listen(0, '127.0.0.1', resolve));
    const port = (none.address() as AddressInfo).port;
    try {
      await assert.rejects(createBeaconClient({ url: `http://127.0.0.1:${port}` }).api(), new RegExp(`no beacon API at http://127\\.0\\.0\\.1:${port}: tried GET /qrl/v1/beacon/genesis \\(no such route\\), /zond/v1/beacon/genesis \\(no such route\\), /eth/v1/beacon/genesis \\(no such route\\)`));
    } finally {
      await new Promise<void>((resolve) => none.close(() => resolve()));
    }
  });

  it('reads 64-byte addresses, in withdrawal_credentials and in newer qrysm’s withdrawal_recipient', async () => {
    for (const recipientField of ['withdrawal_credentials', 'withdrawal_recipient'] as const) {
      const wide = await startFakeBeacon({ ...QRYSM, addressBytes: 64, recipientField });
      try {
        const validators = await createBeaconClient({ url: wide.url }).getStateValidators('head');
        const records = wide.model.validatorsAt(QRYSM.headSlot);
        assert.deepEqual(validators.map((v) => v.withdrawalAddress), records.map((r) => `Q${String(r.validator[recipientField]).slice(2)}`), recipientField);
        assert.ok(validators.every((v) => /^Q[0-9a-f]{128}$/.test(v.withdrawalAddress ?? '')), recipientField);
      } finally {
        await wide.close();
      }
    }
  });
});

it('reads withdrawal credentials in qrysm’s and Ethereum’s forms', () => {
  const address20 = 'ab'.repeat(20);
  const address64 = 'cd'.repeat(64);
  assert.equal(withdrawalAddress(`0x${address20}`), `Q${address20}`);
  assert.equal(withdrawalAddress(`0x${address64.toUpperCase()}`), `Q${address64}`);
  assert.equal(withdrawalAddress(`0x01${'00'.repeat(11)}${address20}`), `Q${address20}`);
  assert.equal(withdrawalAddress(`0x02${'00'.repeat(11)}${address20}`), `Q${address20}`);
  assert.equal(withdrawalAddress(`0x00${'11'.repeat(31)}`), null);
  assert.equal(withdrawalAddress(`0x${'ab'.repeat(48)}`), null);
});

it('follows once an epoch of the node, between a minute and three hours', () => {
  assert.equal(followIntervalMs(60 * 128), 7_680_000);
  assert.equal(followIntervalMs(12 * 32), 384_000);
  assert.equal(followIntervalMs(3 * 8), 60_000);
  assert.equal(followIntervalMs(600 * 128), 10_800_000);
});

it('reads a withdrawal_recipient written as a Q address, mixed case, into the canonical form', async () => {
  const recipient = `Q${'aB'.repeat(64)}`;
  const record = { index: '0', balance: '1', status: 'active_ongoing', validator: { pubkey: '0x00', withdrawal_recipient: recipient, effective_balance: '1', slashed: false, activation_eligibility_epoch: '0', activation_epoch: '0', exit_epoch: '18446744073709551615', withdrawable_epoch: '18446744073709551615' } };
  const fetchStub = (async () => new Response(JSON.stringify({ data: [record] }), { headers: { 'content-type': 'application/json' } })) as typeof fetch;
  const [validator] = await createBeaconClient({ url: 'http://beacon.invalid', api: 'qrl', fetch: fetchStub }).getStateValidators('head');
  assert.equal(validator!.withdrawalAddress, `Q${'ab'.repeat(64)}`);
});
