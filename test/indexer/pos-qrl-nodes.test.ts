/**
 * `quarry index pos` against QRL 2.0's own two nodes, as an operator runs it: the execution node is
 * go-qrl's JSON-RPC (test/fakes/go-qrl, in front of Anvil; namespace detected), the consensus node
 * is qrysm's beacon API (test/fakes/beacon, flavour qrysm: `/qrl/v1` only, mainnet's 60 s slots and
 * 128-slot epochs, credentials that are the execution address, one slashing). After the backfill
 * the staking answers equal the fake beacon's model, every validator has its withdrawal address,
 * and health and cadence measure in the network's 60 s slot. The parts are tested on their own in
 * pos-go-qrl.test.ts (the execution side) and test/api/analytics/staking/qrysm.test.ts (the
 * staking figures from a beacon sync alone).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { startAnvil, type Anvil } from '../support/anvil.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { driveTraffic, setUpTraffic } from '../fixtures/traffic.ts';
import { startGoQrl, type GoQrlNode } from '../fakes/go-qrl/server.ts';
import { createBeaconModel, startFakeBeacon, type FakeBeacon } from '../fakes/beacon/server.ts';
import { beaconStakingDays, coins, QRYSM_BEACON } from '../support/expected-staking.ts';

const silent = pino({ level: 'silent' });

describeOnOneStore('quarry index pos against go-qrl and qrysm', (getStore) => {
  let anvil: Anvil;
  let node: GoQrlNode;
  let beacon: FakeBeacon;
  before(async () => {
    anvil = await startAnvil();
    await driveTraffic(anvil, await setUpTraffic(anvil), { blocks: 6, perBlock: 4 });
    node = await startGoQrl({ upstream: anvil.url, modules: ['qrl', 'debug', 'net', 'web3'] });
    beacon = await startFakeBeacon(QRYSM_BEACON);
  });
  after(async () => {
    await beacon?.close();
    await node?.stop();
    await anvil?.stop();
  });

  it('indexes the chain and the staking figures, in the network’s clock', async () => {
    const store = getStore();
    await indexPos(store, resolveIndexPosSettings({ rpc: node.url, beacon: beacon.url, progress: false }, {}), { logger: silent });
    const head = Number(await node.rpc<string>('qrl_blockNumber'));
    const [tip] = await store.query<{ height: string }>('t', sql`SELECT max(height)::text AS height FROM blocks WHERE chain = 'pos'`);
    assert.equal(Number(tip!.height), head);
    // The beacon's routes only, found by detection: nothing under /eth/v1 answered.
    assert.ok(beacon.requests.some((r) => r.startsWith('GET /qrl/v1/config/spec')));

    // Every validator of the head state, each with the execution address its credentials are.
    const model = createBeaconModel(QRYSM_BEACON);
    const validators = await store.query<{ validator_index: number; withdrawal_address: string | null }>(
      't',
      sql`SELECT validator_index, withdrawal_address FROM validators WHERE chain = 'pos' ORDER BY validator_index`,
    );
    const headState = model.validatorsAt(QRYSM_BEACON.headSlot);
    assert.equal(validators.length, headState.length);
    for (const [i, v] of validators.entries()) {
      const credentials = String(headState[i]!.validator.withdrawal_credentials);
      assert.equal(v.withdrawal_address, `Q${credentials.slice(2).toLowerCase()}`, `validator ${v.validator_index}`);
    }

    const app = await buildTestApp(store);
    try {
      const get = async (url: string) => (await app.app.inject({ url: `/api/v1${url}`, headers: AUTH })).json();
      const expected = beaconStakingDays(model);
      const daily = await get('/analytics/staking/daily');
      assert.deepEqual(
        daily.items.map((i: { day: string; active_validators: number; total_staked_quanta: string }) => [i.day, i.active_validators, i.total_staked_quanta]),
        expected.map((d) => [d.day, d.activeValidators, coins(d.totalStaked, 18)]),
      );
      const slashings = await get('/analytics/staking/slashings-daily');
      assert.deepEqual(
        slashings.items.map((i: { slashings: number }) => i.slashings),
        expected.map((d) => d.slashings),
      );
      assert.equal(expected.reduce((n, d) => n + d.slashings, 0), 1);
      const summary = await get('/analytics/dashboard/summary');
      assert.equal(summary.chains.pos.validators_count, headState.filter((v) => v.status.startsWith('active_')).length);

      const health = await get('/analytics/network/health');
      const pos = Object.entries(health.chains).find(([key]) => key.startsWith('pos:'))![1] as Record<string, any>;
      assert.deepEqual([pos.slot_seconds, pos.clock_source, pos.internal_transfers, pos.staking_sync.status], [60, 'beacon', 'indexed', 'ok']);
      const highlights = await get('/analytics/home/highlights?chain=pos');
      assert.equal(highlights.block_cadence.expected_24h, 1440);
    } finally {
      await app.close();
    }
  });
});
