/**
 * The validator routes' world: a fake qrysm beacon node (VALIDATORS_BEACON: every status, exits,
 * slashings) synced by the staking sync, beside a pos chain whose blocks sit in its slots (a block
 * every 8 slots, none in an empty slot, the fee recipient the proposer's withdrawal address) and pay
 * withdrawals to its validators. The oracles read the fake node's model and the builder's blocks,
 * never the store.
 */
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { syncStaking } from '../../../src/ingest/staking-sync.ts';
import { createBeaconClient } from '../../../src/sources/beacon/client.ts';
import type { Store } from '../../../src/store/store.ts';
import { createBeaconModel, startFakeBeacon, type BeaconModel } from '../../fakes/beacon/server.ts';
import { addr, ChainBuilder, coins } from '../../support/chain-builder.ts';
import { beaconProposals, beaconValidatorDays, VALIDATORS_BEACON, type ExpectedProposal, type ExpectedValidatorDay } from '../../support/expected-staking.ts';

export const CONFIG = VALIDATORS_BEACON;
/** When the seed's staking sync ran (Unix seconds): the validators' updated_at. */
export const SYNCED_AT = 1_709_700_000;
/** Slots between blocks where none is empty. */
const EVERY = 8;

export interface ValidatorsWorld {
  model: BeaconModel;
  blocks: CanonicalBlock[];
  /** The head state's records, as the node answers them. */
  head: ReturnType<BeaconModel['validatorsAt']>;
  days: ExpectedValidatorDay[];
  proposals: ExpectedProposal[];
}

/** The withdrawal address of validator `v` at the head (qrysm's credentials are the address). */
export function withdrawalAddressOf(model: BeaconModel, v: number): string {
  return `Q${String(model.validatorsAt(CONFIG.headSlot)[v]!.validator.withdrawal_credentials).slice(2)}`;
}

/** The slot a pos block of the world sits in. */
export const slotOf = (b: CanonicalBlock) => (b.timestamp - CONFIG.genesisTime) / CONFIG.secondsPerSlot;

export function validatorsChain(model: BeaconModel): ChainBuilder {
  const chain = new ChainBuilder('pos', CONFIG.genesisTime, CONFIG.secondsPerSlot);
  const [alice, bob] = [addr('pos', 'validators-alice'), addr('pos', 'validators-bob')];
  chain.block((b) => b.genesis([{ address: alice, amount: coins('pos', 1_000) }]));
  let previous = 0;
  let n = 0;
  for (let slot = EVERY; slot <= CONFIG.headSlot; slot += EVERY) {
    if (CONFIG.missed?.(slot)) continue;
    const proposer = model.proposer(slot);
    chain.block(
      (b) => {
        b.block.miner = withdrawalAddressOf(model, proposer);
        if (n % 3 === 0) b.transfer(alice, bob, coins('pos', 1) + BigInt(n), { tip: BigInt(1 + (n % 5)) });
        // A withdrawal now and then to each validator, two in a block at times.
        if (n % 4 === 1) b.withdrawal(withdrawalAddressOf(model, n % CONFIG.validators), 1_000_000_000n * BigInt(n + 1), n % CONFIG.validators);
        if (n % 20 === 5) b.withdrawal(withdrawalAddressOf(model, (n + 3) % CONFIG.validators), 7_000_000_000n, (n + 3) % CONFIG.validators);
      },
      { gap: (slot - previous) },
    );
    previous = slot;
    n++;
  }
  return chain;
}

export async function seedValidators(store: Store): Promise<ValidatorsWorld> {
  const model = createBeaconModel(CONFIG);
  const chain = validatorsChain(model);
  await ingest(store, chain.source(), { batchBlocks: 64 });
  const beacon = await startFakeBeacon(CONFIG);
  try {
    await syncStaking(store, createBeaconClient({ url: beacon.url, backoffMs: 1 }), { now: () => SYNCED_AT });
  } finally {
    await beacon.close();
  }
  return { model, blocks: chain.blocks, head: model.validatorsAt(CONFIG.headSlot), days: beaconValidatorDays(model), proposals: beaconProposals(model) };
}
