/** Random chains for property tests: seeded, so a failing seed can be replayed. */
import type { ChainId } from '../../src/chain/chains.ts';
import { addr, ChainBuilder, coins, type BlockBuilder } from './chain-builder.ts';

/** mulberry32: a tiny seeded PRNG, so a failing seed can be replayed. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A random chain of `length` blocks, with random forks of depth 1-3; blocks 30-80 minutes apart
 * unless `blockSeconds` says otherwise.
 */
export function randomChain(chain: ChainId, seed: number, length = 80, blockSeconds?: number): ChainBuilder {
  const rand = rng(seed);
  const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)]!;
  const people = Array.from({ length: 12 }, (_, i) => addr(chain, `p${seed}-${i}`));
  const balances = new Map<string, bigint>(people.map((p) => [p, coins(chain, 1000)]));
  const spacing = 1800 + Math.floor(rand() * 3000);
  const c = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 20) / 1000, blockSeconds ?? spacing);
  c.block((b) => b.genesis(people.map((address) => ({ address, amount: coins(chain, 1000) }))));
  const migrationAddress = addr(chain, `migration-${seed}`);
  // Migration legs on a fixed cadence (no draw of rand, so the other figures stay as they were).
  let fills = 0;
  const fill = (b: BlockBuilder) => {
    fills++;
    if (chain === 'pow' && fills % 6 === 0) {
      b.transfer(people[fills % people.length]!, migrationAddress, 1_000_000n * BigInt(fills)).migration = { accountId: `m${fills}`, role: 'burn' };
    }
    if (chain === 'pos' && fills % 5 === 0) {
      const mint = b.mint(people[fills % people.length]!, 10n ** 15n * BigInt(fills), `m${fills}`);
      if (fills % 15 === 0) mint.status = 0; // a reverted mint mints nothing
    }
    const n = Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) {
      const from = pick(people);
      const to = pick(people);
      const value = BigInt(Math.floor(rand() * 1e6));
      if ((balances.get(from) ?? 0n) < value + coins(chain, 1)) continue;
      if (chain === 'pos' && rand() < 0.2) {
        b.contractCall(from, pick(people), value, [{ to: pick(people), value: value / 2n }]);
      } else if (chain === 'pow' && rand() < 0.3) {
        b.multiTransfer(from, [{ to, amount: value }, { to: pick(people), amount: value / 3n }]);
      } else {
        b.transfer(from, to, value, chain === 'pos' ? { status: rand() < 0.1 ? 0 : 1 } : {});
      }
    }
    if (chain === 'pos' && rand() < 0.2) b.withdrawal(pick(people), BigInt(Math.floor(rand() * 1e9)));
    if (chain === 'pow') b.coinbase(pick(people), 5_000_000_000n);
  };
  for (let h = 1; h < length; h++) {
    if (h > 10 && rand() < 0.06) {
      const depth = 1 + Math.floor(rand() * 3);
      c.fork(depth, Array.from({ length: depth + Math.floor(rand() * 2) }, () => fill));
    } else {
      c.block(fill);
    }
  }
  return c;
}

/** Runs one seed's case of a property test; a failure names the seed, so that it can be replayed. */
export async function forSeed(seed: number, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    throw new Error(`seed ${seed} failed (replay it with that seed): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
