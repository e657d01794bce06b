/** The chains of the counterparties, balance-history, activity-heatmap and provenance suites, and the addresses each checks one by one. */
import { addr, type ChainBuilder } from '../../support/chain-builder.ts';
import { snapshotSeed } from '../../support/snapshots.ts';
import { ingestChain, POS, posChain, POW, powChain } from './fixtures.ts';

/** Every fixture address of both chains, and each chain's default block miner. */
export const ROLLUP_ADDRESSES = [...Object.values(POW), ...Object.values(POS), addr('pos', 'miner'), addr('pow', 'miner')];

/** The fixture chains loaded, a seed shared by the test files of a run; the tests get the chains. */
export const loadRollupChains = snapshotSeed(
  'rollup-chains',
  async (store) => {
    await ingestChain(store, powChain());
    await ingestChain(store, posChain());
  },
  async (): Promise<{ pow: ChainBuilder; pos: ChainBuilder }> => ({ pow: powChain(), pos: posChain() }),
);
