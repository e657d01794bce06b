/** Random chains for property tests: seeded, so a failing seed can be replayed. */
import { isSentinel, posZeroAddress, type ChainId } from '../../src/chain/chains.ts';
import { addr, ChainBuilder, coins, hash, type BlockBuilder } from './chain-builder.ts';

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
    tokenActivity(b);
    if (chain === 'pos' && rand() < 0.2) b.withdrawal(pick(people), BigInt(Math.floor(rand() * 1e9)));
    if (chain === 'pow') b.coinbase(pick(people), 5_000_000_000n);
  };
  // A token on a fixed cadence (no draw of rand, so the other figures stay as they were): created
  // in the first block whose ancestors lack it, then moved every other block by a holder, who
  // sends all it holds every third time (a holder lost) and on pos sometimes burns.
  const token = chain === 'pow' ? hash('random-token', seed) : addr('pos', `random-token-${seed}`);
  const zero = posZeroAddress(c.addressBytes);
  const tokenBalances = () => {
    const balances = new Map<string, bigint>();
    for (const block of c.blocks) {
      for (const tx of block.transactions) {
        if (tx.status === 0) continue;
        for (const t of tx.tokenTransfers) {
          if (t.contract !== token) continue;
          balances.set(t.to, (balances.get(t.to) ?? 0n) + t.amount);
          balances.set(t.from, (balances.get(t.from) ?? 0n) - t.amount);
        }
      }
    }
    return balances;
  };
  const tokenActivity = (b: BlockBuilder) => {
    const balances = tokenBalances();
    if (![...balances.keys()].some((holder) => !isSentinel(chain, holder))) {
      const initial = people.slice(0, 3).map((to, i) => ({ to, amount: 1000n * BigInt(i + 1) }));
      if (chain === 'pow') {
        b.powToken(people[0]!, token, { name: `Random Token ${seed}`, symbol: 'RND', decimals: 3 }, initial);
      } else {
        const created = b.create(people[0]!, token);
        for (const { to, amount } of initial) b.tokenTransfer(created, token, zero, to, amount);
        b.token(token, `Random Token ${seed}`, 'RND', 3);
      }
      return;
    }
    if (fills % 2 !== 0) return;
    const start = fills % people.length;
    const from = [...people.slice(start), ...people.slice(0, start)].find((p) => (balances.get(p) ?? 0n) > 0n);
    if (!from) return;
    const held = balances.get(from)!;
    const to = people[(fills * 5) % people.length]!;
    const amount = fills % 3 === 0 || held < 2n ? held : held / 2n;
    if (chain === 'pow') {
      b.transferToken(from, token, [{ to, amount }]);
    } else {
      const burn = fills % 10 === 0 && amount > 1n ? amount / 4n : 0n;
      b.tokenCall(from, token, [{ from, to, amount: amount - burn }, ...(burn > 0n ? [{ from, to: zero, amount: burn }] : [])]);
    }
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
