import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConfigError } from '../../config/env.ts';
import { resolveIndexPosSettings } from './index-pos.ts';

const rpc = 'http://127.0.0.1:8545';

it('--beacon-api forces the beacon route prefix over QUARRY_POS_BEACON_API; unset, it is detected', () => {
  assert.equal(resolveIndexPosSettings({ rpc, progress: false }, {}).beaconApi, undefined);
  assert.equal(resolveIndexPosSettings({ rpc, progress: false }, { QUARRY_POS_BEACON_API: 'zond' }).beaconApi, 'zond');
  assert.equal(resolveIndexPosSettings({ rpc, beaconApi: 'qrl', progress: false }, { QUARRY_POS_BEACON_API: 'eth' }).beaconApi, 'qrl');
  assert.throws(() => resolveIndexPosSettings({ rpc, beaconApi: 'v1', progress: false }, {}), (e: unknown) => e instanceof ConfigError && /--beacon-api: must be one of qrl, zond, eth/.test(e.message));
  assert.throws(() => resolveIndexPosSettings({ rpc, progress: false }, { QUARRY_POS_BEACON_API: 'beacon' }), /QUARRY_POS_BEACON_API: must be one of qrl, zond, eth/);
});
