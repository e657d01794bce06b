/** The chains of the slaves, token-holdings and internal-transactions suites: the fixture chains plus a pow master with seven slaves. */
import { addr, type ChainBuilder } from '../../support/chain-builder.ts';
import { snapshotSeed } from '../../support/snapshots.ts';
import { ingestChain, POW, posChain, powChain } from './fixtures.ts';

export const MASTER = addr('pow', 'master');
export const SLAVES = Array.from({ length: 7 }, (_, i) => addr('pow', `slave-${i}`));

function holdingsChains(): { pow: ChainBuilder; pos: ChainBuilder } {
  const pow = powChain(20);
  // A master with seven slaves, registered over three transactions; some sign afterwards.
  pow.block((b) => {
    b.slave(MASTER, SLAVES.slice(0, 3));
    b.slave(MASTER, SLAVES.slice(3, 5));
    b.coinbase(POW.pool, 1n);
  });
  pow.block((b) => {
    b.slave(MASTER, SLAVES.slice(5));
    b.message(MASTER, 10n, { signer: SLAVES[1]!, masterAddr: MASTER, otsIndex: 0 });
    b.coinbase(POW.pool, 1n);
  });
  pow.block((b) => {
    b.message(MASTER, 10n, { signer: SLAVES[1]!, masterAddr: MASTER, otsIndex: 1 });
    b.message(MASTER, 10n, { signer: SLAVES[6]!, masterAddr: MASTER, otsIndex: 0 });
    b.coinbase(POW.pool, 1n);
  });
  return { pow, pos: posChain(20) };
}

/** The holdings chains loaded, a seed shared by the test files of a run; the tests get the chains. */
export const loadHoldingsChains = snapshotSeed(
  'holdings-chains',
  async (store) => {
    const { pow, pos } = holdingsChains();
    await ingestChain(store, pow);
    await ingestChain(store, pos);
  },
  async () => holdingsChains(),
);
