/**
 * Chains for the profile and leaderboard tests (detail, insights, top/active, top/burners): every
 * holder tier, ties of balances and of transaction counts, transaction counts past 100 (buckets
 * that span values), many first appearances in one hour, XMSS keys used up, slaves, miners,
 * curated exchanges, relays and labels, contracts, withdrawals, fees over several days, and a
 * dormant whale. Expected figures come from the oracle (test/support/expected.ts), not the code.
 */
import { createHash } from 'node:crypto';
import { powAddressFromParts } from '../../../src/chain/addresses.ts';
import type { ChainId } from '../../../src/chain/chains.ts';
import { writeCurated, type ExchangeWallet, type Label } from '../../../src/ingest/curated.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import type { Store } from '../../../src/store/store.ts';
import { addr, ChainBuilder, coins } from '../../support/chain-builder.ts';
import { expectedFromBlocks, type Expected } from '../../support/expected.ts';
import { snapshotSeed } from '../../support/snapshots.ts';

/** 2026-03-02 (a Monday) 08:00 UTC. */
export const T0 = Date.UTC(2026, 2, 2, 8, 0, 0) / 1000;

/** A pow address of XMSS tree height `height` (descriptor byte 1 holds height / 2). */
export function powAddressOfHeight(name: string, height: number): string {
  const digest = createHash('sha256').update(name).digest();
  return powAddressFromParts(Buffer.from([0x01, height / 2, 0x00]), digest);
}

const POW_NAMES = [
  'leviathan', 'treasury', 'whale', 'dormant', 'dolphin', 'tie1', 'tie2', 'shrimp', 'plankton', 'exchange', 'pool', 'solo',
  'user', 'busy1', 'busy2', 'relay', 'relay2', 'exslave',
] as const;
export const POWA = Object.fromEntries(POW_NAMES.map((n) => [n, addr('pow', n)])) as Record<(typeof POW_NAMES)[number], string>;
/** Four one-time keys, all used; sixteen keys, fifteen used. */
export const POW_SMALL_TREE = powAddressOfHeight('tiny', 2);
export const POW_LOW_TREE = powAddressOfHeight('low', 4);

const POS_NAMES = ['alice', 'bob', 'carol', 'dave', 'deployer', 'contract', 'staker', 'claimer', 'payer1', 'payer2', 'payer3', 'vault'] as const;
export const POSA = Object.fromEntries(POS_NAMES.map((n) => [n, addr('pos', n)])) as Record<(typeof POS_NAMES)[number], string>;

/**
 * pow: genesis holders of every tier (two with the same balance), a coinbase each block to the
 * pool (now and then to a solo miner), two busy senders past 100 transactions, an exchange with
 * a slave key and relays, keys used up, newcomers in one hour, and a whale that moved once and
 * then slept for more than a year.
 */
export function powProfileChain(): ChainBuilder {
  const c = new ChainBuilder('pow', T0, 1800);
  const a = POWA;
  c.block((b) => b.genesis([
    { address: a.leviathan, amount: coins('pow', 6_000_000) },
    { address: a.treasury, amount: coins('pow', 1_200_000) },
    { address: a.whale, amount: coins('pow', 150_000) },
    { address: a.dormant, amount: coins('pow', 120_000) },
    { address: a.dolphin, amount: coins('pow', 2_500) },
    { address: a.tie1, amount: coins('pow', 50) },
    { address: a.tie2, amount: coins('pow', 50) },
    { address: a.shrimp, amount: coins('pow', 5) },
    { address: a.plankton, amount: 500_000_000n },
    { address: a.exchange, amount: coins('pow', 9_000) },
    { address: a.user, amount: coins('pow', 300) },
    { address: a.busy1, amount: coins('pow', 1_000) },
    { address: a.busy2, amount: coins('pow', 1_000) },
    { address: POW_SMALL_TREE, amount: coins('pow', 10) },
    { address: POW_LOW_TREE, amount: coins('pow', 10) },
    { address: a.relay2, amount: 5000n },
  ]));
  c.block((b) => {
    b.transfer(a.dormant, a.user, coins('pow', 1), { ots: 0 });
    b.slave(a.exchange, [a.exslave]);
    b.coinbase(a.pool, 6_000_000_000n);
  });
  for (let i = 0; i < 130; i++) {
    c.block((b) => {
      b.transfer(a.busy1, addr('pow', `payee-${i % 40}`), 1_000_000n + BigInt(i), { ots: i, fee: 1000n + BigInt(i % 3) });
      if (i < 122) b.transfer(a.busy2, addr('pow', `payee-${(i * 7) % 40}`), 2_000_000n, { ots: i });
      if (i % 10 === 3) {
        b.multiTransfer(a.exchange, [{ to: a.relay, amount: coins('pow', 2) }, { to: a.user, amount: coins('pow', 1) }], 2000n, {
          signer: a.exslave, masterAddr: a.exchange, otsIndex: i,
        });
      }
      if (i < 4) b.transfer(POW_SMALL_TREE, a.user, 1000n, { ots: i });
      if (i < 15) b.transfer(POW_LOW_TREE, a.user, 1000n, { ots: i });
      if (i === 20) b.transfer(a.relay, a.exchange, coins('pow', 2), { ots: 0 }); // the relay forwards: back to zero
      if (i === 30) b.transfer(a.relay2, a.exchange, 0n, { ots: 0 }); // an empty relay
      if (i === 40) b.transfer(a.user, a.dolphin, 123n, { ots: 1 });
      if (i === 41) b.transfer(a.shrimp, a.plankton, coins('pow', 5) - 1000n, { ots: 0 }); // empties the shrimp
      b.coinbase(i % 9 === 4 ? a.solo : a.pool, 6_000_000_000n);
    }, { gap: i === 100 ? 4 : 1 });
  }
  // Many newcomers in one hour, at different times of it.
  for (let i = 0; i < 6; i++) {
    c.block((b) => {
      for (let k = 0; k < 3; k++) b.transfer(a.busy1, addr('pow', `newcomer-${i}-${k}`), 10n + BigInt(k), { ots: 200 + i * 3 + k });
      b.coinbase(a.pool, 6_000_000_000n);
    }, { gap: i === 0 ? 3 : 0.2 });
  }
  // More than a year later: the whale moves, the dormant whale does not.
  c.block((b) => {
    b.transfer(a.whale, a.dolphin, coins('pow', 1), { ots: 0 });
    b.coinbase(a.pool, 6_000_000_000n);
  }, { gap: 400 * 48 });
  return c;
}

/** pos: transfers and fees spread over several days, a deployer and its contract, internal transfers, withdrawals, a migration mint. */
export function posProfileChain(): ChainBuilder {
  const c = new ChainBuilder('pos', T0, 3600);
  const a = POSA;
  c.block((b) => b.genesis([
    { address: a.alice, amount: coins('pos', 200_000) },
    { address: a.bob, amount: coins('pos', 50) },
    { address: a.payer1, amount: coins('pos', 1_000) },
    { address: a.payer2, amount: coins('pos', 1_000) },
    { address: a.payer3, amount: coins('pos', 1_000) },
    { address: a.vault, amount: coins('pos', 40_000) },
    { address: a.deployer, amount: coins('pos', 10) },
    { address: a.dave, amount: coins('pos', 1) },
  ]));
  c.block((b) => void b.create(a.deployer, a.contract));
  for (let i = 0; i < 120; i++) {
    c.block((b) => {
      if (i % 2 === 0) b.transfer(a.payer1, a.carol, 1000n + BigInt(i), { tip: 3n, gasUsed: 21_000 });
      if (i % 3 === 0) b.transfer(a.payer2, a.dave, 2000n, { tip: 50n, gasUsed: 30_000 });
      if (i > 90) b.transfer(a.payer3, a.carol, 5n, { tip: 500n, gasUsed: 50_000 });
      if (i % 5 === 1) b.contractCall(a.bob, a.contract, 100n, [{ to: a.dave, value: 60n }]);
      if (i === 7) b.transfer(a.dave, a.bob, coins('pos', 1), { status: 0 }); // reverted: fee only
      if (i % 24 === 5) b.withdrawal(a.staker, 123_456_789n);
      if (i === 50) b.mint(a.claimer, coins('pos', 3), 'acct-1');
      if (i === 60) b.create(a.deployer, addr('pos', 'deployed-1'));
    }, { gap: i === 70 ? 30 : 1 });
  }
  return c;
}

export const CURATED: { labels: Label[]; exchangeWallets: ExchangeWallet[] } = {
  labels: [
    { chain: 'pow', address: POWA.exchange, label: 'Bitshore hot wallet', category: 'exchange', isPrimary: true },
    { chain: 'pow', address: POWA.relay, label: 'Bitshore deposit', category: 'exchange', isPrimary: true },
    { chain: 'pow', address: POWA.pool, label: 'Deep Pool', category: 'mining_pool', isPrimary: true },
    { chain: 'pow', address: POWA.treasury, label: 'QRL Foundation treasury', category: 'treasury', isPrimary: true },
    { chain: 'pow', address: POWA.treasury, label: 'old name', category: 'treasury', isPrimary: false },
    { chain: 'pow', address: POWA.dolphin, label: 'Friendly dolphin', category: 'community', isPrimary: true },
    { chain: 'pos', address: POSA.contract, label: 'Test contract', category: 'contract', isPrimary: true },
    { chain: 'pos', address: POSA.vault, label: 'Vaultkeep custody', category: 'custodial', isPrimary: true },
  ],
  exchangeWallets: [
    { chain: 'pow', address: POWA.exchange, exchange: 'Bitshore', role: 'hot', confirmed: true },
    { chain: 'pow', address: POWA.relay, exchange: 'Bitshore', role: 'deposit_relay', confirmed: true },
    { chain: 'pow', address: POWA.relay2, exchange: 'Bitshore', role: 'deposit_relay', confirmed: false },
  ],
};

export async function loadProfileChains(store: Store): Promise<{ pow: ChainBuilder; pos: ChainBuilder }> {
  const pow = powProfileChain();
  const pos = posProfileChain();
  await ingest(store, pow.source(), { batchBlocks: 11 });
  await ingest(store, pos.source(), { batchBlocks: 13 });
  await store.transaction('test.curated', (tx) => writeCurated(tx, { ...CURATED, settings: [] }));
  return { pow, pos };
}

/**
 * The profile chains loaded (a seed shared by the test files of a run), and what the blocks say of
 * them: each chain's oracle figures and its tip's time.
 */
export const loadProfileExpected = snapshotSeed(
  'profile-chains',
  async (store) => {
    await loadProfileChains(store);
  },
  async (): Promise<{ expected: Record<ChainId, Expected>; tipTs: Record<ChainId, number> }> => {
    const pow = powProfileChain();
    const pos = posProfileChain();
    return {
      expected: { pow: expectedFromBlocks('pow', pow.blocks), pos: expectedFromBlocks('pos', pos.blocks) },
      tipTs: { pow: pow.tip!.timestamp, pos: pos.tip!.timestamp },
    };
  },
);

export const chainOfAddress = (address: string): ChainId => (address.length === 41 ? 'pos' : 'pow');
