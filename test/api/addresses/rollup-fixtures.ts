/** The chains of the counterparties, balance-history, activity-heatmap and provenance suites, and the addresses each checks one by one. */
import type { Store } from '../../../src/store/store.ts';
import { addr, type ChainBuilder } from '../../support/chain-builder.ts';
import { ingestChain, POS, posChain, POW, powChain } from './fixtures.ts';

/** Every fixture address of both chains, and each chain's default block miner. */
export const ROLLUP_ADDRESSES = [...Object.values(POW), ...Object.values(POS), addr('pos', 'miner'), addr('pow', 'miner')];

export async function loadRollupChains(store: Store): Promise<{ pow: ChainBuilder; pos: ChainBuilder }> {
  const pow = powChain();
  const pos = posChain();
  await ingestChain(store, pow);
  await ingestChain(store, pos);
  return { pow, pos };
}
