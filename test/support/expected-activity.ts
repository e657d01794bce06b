/**
 * The activity oracle: active addresses per UTC day straight from the canonical blocks, by the
 * textbook definitions (docs/metrics.md, "Network activity"), independently of the rollups' SQL.
 * An address is active on a day when it takes part in a user transaction of that day: its sender
 * (`from`, and the signing key when one is set), its recipient, each of its recipients, or the
 * contract it created. Non-user types (block rewards and pow key administration) don't count, and
 * withdrawals are not transactions.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock, CanonicalTx } from '../../src/chain/model.ts';

/** Block rewards and pow key administration (docs/metrics.md, "Analytics conventions"), written out here. */
const NON_USER = new Set(['coinbase', 'latticePK', 'slave']);
import { daysBetween } from './analytics-world.ts';
import { utcDay } from './utc-day.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { snapshotSeed } from './snapshots.ts';
import { addr, ChainBuilder, coins, type BlockBuilder } from './chain-builder.ts';

export interface ExpectedActivityDay {
  day: string;
  dau: number;
  /** Distinct addresses active in the 7 days ending with `day`. */
  wau: number;
  /** ... in the 30 days ending with `day`. */
  mau: number;
  /** Active addresses whose first active day ever is `day`. */
  newWallets: number;
  /** Distinct addresses active on `day` or before. */
  walletCount: number;
  userTxCount: number;
  txCount: number;
}

export function isUserTx(tx: CanonicalTx): boolean {
  return !NON_USER.has(tx.type);
}

/** Everyone a transaction involves: sender, signer, recipient(s), created contract. */
export function participants(tx: CanonicalTx): Set<string> {
  const out = new Set<string>([tx.from]);
  if (tx.signer) out.add(tx.signer);
  if (tx.to) out.add(tx.to);
  for (const r of tx.recipients ?? []) out.add(r.to);
  if (tx.contractAddress) out.add(tx.contractAddress);
  return out;
}

/** Every day from the first block's to the last block's, with its figures. */
export function expectedActivity(blocks: CanonicalBlock[]): ExpectedActivityDay[] {
  const active = new Map<string, Set<string>>();
  const userTx = new Map<string, number>();
  const allTx = new Map<string, number>();
  for (const block of blocks) {
    const day = utcDay(block.timestamp);
    if (!active.has(day)) active.set(day, new Set());
    for (const tx of block.transactions) {
      allTx.set(day, (allTx.get(day) ?? 0) + 1);
      if (!isUserTx(tx)) continue;
      userTx.set(day, (userTx.get(day) ?? 0) + 1);
      for (const address of participants(tx)) active.get(day)!.add(address);
    }
  }
  const days = daysBetween(utcDay(blocks[0]!.timestamp), utcDay(blocks.at(-1)!.timestamp));
  const seen = new Set<string>();
  return days.map((day, i) => {
    const distinctOver = (n: number) => new Set(days.slice(Math.max(0, i - n + 1), i + 1).flatMap((d) => [...(active.get(d) ?? [])])).size;
    const today = active.get(day) ?? new Set<string>();
    let newWallets = 0;
    for (const address of today) {
      if (!seen.has(address)) newWallets++;
      seen.add(address);
    }
    return {
      day,
      dau: today.size,
      wau: distinctOver(7),
      mau: distinctOver(30),
      newWallets,
      walletCount: seen.size,
      userTxCount: userTx.get(day) ?? 0,
      txCount: allTx.get(day) ?? 0,
    };
  });
}

/** The last `days` days of `all` (a window ending with the tip's day, clipped to the history). */
export function lastDays<T>(all: T[], days: number): T[] {
  return all.slice(Math.max(0, all.length - days));
}

/**
 * Two small hand-built chains with a long history (pow 75 days, pos 12), a block every six hours
 * and a few stretches without blocks: transfers among a user pool that grows over time, pow
 * multi-recipient and slave-signed transfers, coinbases to a miner that never transacts, pos
 * contract creations, reverted transfers and withdrawals to an address that never transacts.
 */
export function activityChains(): Record<ChainId, ChainBuilder> {
  return { pow: activityChain('pow', 75, 7), pos: activityChain('pos', 12, 13) };
}

/**
 * `activityChains()` loaded through the real pipeline in small batches (days close as they go), a
 * seed shared by the test files of a run; the tests get the chains' blocks.
 */
export const loadActivityChains = snapshotSeed(
  'activity-chains',
  async (store) => {
    for (const c of Object.values(activityChains())) await ingest(store, c.source(), { batchBlocks: 7 });
  },
  async (): Promise<Record<ChainId, CanonicalBlock[]>> => {
    const chains = activityChains();
    return { pow: chains.pow.blocks, pos: chains.pos.blocks };
  },
);

/** Blocks of the six-hourly chains after which the chain pauses for 54 hours (a calendar day or two without blocks). */
const PAUSE_EVERY = 37;

function activityChain(chain: ChainId, days: number, seed: number): ChainBuilder {
  let state = seed;
  const rand = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * n);
  };
  const users = Array.from({ length: 40 }, (_, i) => addr(chain, `activity-user-${i}`));
  const miner = addr(chain, 'activity-miner');
  const validator = addr(chain, 'activity-validator');
  const c = new ChainBuilder(chain, Date.parse('2026-01-01T01:30:00Z') / 1000, 6 * 3600);
  const fill = (i: number) => (b: BlockBuilder) => {
    if (i === 0) b.genesis(users.map((address) => ({ address, amount: coins(chain, 1000) })));
    const pool = Math.min(users.length, 3 + Math.floor(i / 8));
    const pick = () => users[rand(pool)]!;
    for (let k = rand(4); k > 0; k--) b.transfer(pick(), pick(), 1n + BigInt(rand(1000)));
    if (chain === 'pow') {
      if (rand(5) === 0) b.multiTransfer(pick(), [{ to: pick(), amount: 2n }, { to: pick(), amount: 3n }]);
      if (rand(7) === 0) {
        const tx = b.transfer(pick(), pick(), 5n);
        tx.signer = addr(chain, `activity-slave-${rand(3)}`);
        tx.masterAddr = tx.from;
      }
      b.coinbase(miner, coins(chain, 5));
    } else {
      if (rand(9) === 0) b.create(pick(), addr(chain, `activity-contract-${i}`));
      if (rand(6) === 0) b.transfer(pick(), pick(), 7n, { status: 0 });
      if (rand(3) === 0) b.withdrawal(validator, coins(chain, 1));
    }
  };
  for (let i = 0; i < days * 4; i++) c.block(fill(i), { gap: i > 0 && i % PAUSE_EVERY === 0 ? 9 : 1 });
  return c;
}

/** The network each chain echoes in the test app (the configuration's defaults). */
export const TEST_NETWORK: Record<ChainId, string> = { pow: 'mainnet', pos: 'testnet' };
