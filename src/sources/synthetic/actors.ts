/**
 * The fixed cast of each chain, decided once per world from the seed: entities (exchanges with hot
 * and cold wallets and deposit relays, mining pools, treasuries, custodians, the migration address,
 * staking operators, bots, system contracts), the notable accounts tests look for, and the genesis
 * allocation. Ordinary users beyond the genesis set are created while blocks are generated.
 *
 * Accounts are listed in creation order: a generator registers them first, so an account's index
 * here is its id in the generator's ledger.
 */
import { CHAIN_INFO, type ChainId } from '../../chain/chains.ts';
import { POW_GENESIS_SUPPLY_SHOR } from '../../chain/pow-emission.ts';
import { powAddress, posAddress, powHash, XMSS_TREE_HEIGHTS } from './hex.ts';
import { Role, Tier } from './ledger.ts';
import type { ResolvedOptions } from './options.ts';
import { FOREVER, lifetimeDays } from './population.ts';
import { Rng } from './rng.ts';

/** Share of the random activity that is exchange deposits (customer to relay); sizes the relay pools. */
export const DEPOSIT_SHARE = 0.13;
/** Share of deposits made by a customer's first deposit at its exchange (a new relay each). */
const FIRST_DEPOSIT_SHARE = 0.55;
/** Genesis supply of pos (the pow genesis is fixed by the chain: 65,000,000). */
const POS_GENESIS_QUANTA = 30_000_000n;

export interface AccountPlan {
  address: string;
  role: Role;
  tier: Tier;
  /** Day index (of the chain's history) after which the account is never picked again. */
  retireDay: number;
  /** pow: one-time keys of the account's XMSS tree. */
  signatures: number;
  genesis: bigint;
}

export interface LabelPlan {
  id: number;
  label: string;
  category: string;
}

export interface ExchangePlan {
  name: string;
  /** Share of the chain's exchange activity. */
  share: number;
  hot: number[];
  cold: number[];
  relays: number[];
  /** Whether each relay's link to the exchange is confirmed (curated data is not always sure). */
  relayConfirmed: boolean[];
}

export interface PoolPlan {
  name: string;
  id: number;
  /** Share of all blocks. */
  share: number;
}

export interface SystemContractPlan {
  id: number;
  name: string;
  kind: 'token' | 'router' | 'dex_pool' | 'disperse' | 'vault' | 'settlement';
  symbol: string | null;
  decimals: number | null;
}

export interface ChainPlan {
  chain: ChainId;
  unitsPerCoin: bigint;
  accounts: AccountPlan[];
  labels: LabelPlan[];
  exchanges: ExchangePlan[];
  treasury: number[];
  custodial: number[];
  whales: number[];
  ordinary: number;
  tokenHolder: number;
  /** pow */
  migration: number;
  pools: PoolPlan[];
  soloMiners: number[];
  /** pow: the system token's creation transaction hash, known up front (it is its id). */
  systemTokenHash: string;
  /** pos */
  stakingServices: number[];
  soloStakers: number[];
  bots: number[];
  contracts: SystemContractPlan[];
}

const EXCHANGE_NAMES = ['Bitvault', 'Qanto Exchange', 'Northgate', 'Kryptex'];
const EXCHANGE_SHARES = [0.58, 0.24, 0.12, 0.06];
const POOL_NAMES = ['Hashforge Pool', 'Deepshaft Pool', 'Ore Collective', 'Bedrock Mining', 'Lodestar Pool', 'Quartz Hashers', 'Tunnel Works', 'Seam Pool'];
// A flat field: no pool mines more than 12% of blocks (the rest, 32%, goes to solo miners). A
// pool's coinbases alone are ~170 transactions a day, well below the busiest exchange wallet's.
const POOL_SHARES = [0.12, 0.11, 0.1, 0.09, 0.08, 0.07, 0.06, 0.05];
const STAKING_SERVICES = ['Stakewell', 'Validata', 'Northstake'];

class PlanBuilder {
  readonly accounts: AccountPlan[] = [];
  readonly labels: LabelPlan[] = [];
  constructor(
    readonly chain: ChainId,
    readonly rng: Rng,
  ) {}

  add(role: Role, tier: Tier, genesisCoins: bigint, options: { retireDay?: number; treeHeight?: number; label?: [string, string] } = {}): number {
    const id = this.accounts.length;
    const height = options.treeHeight ?? 18;
    this.accounts.push({
      address: this.chain === 'pow' ? powAddress(this.rng, height) : posAddress(this.rng),
      role,
      tier,
      retireDay: options.retireDay ?? FOREVER,
      signatures: this.chain === 'pow' ? 2 ** height : 0,
      genesis: genesisCoins * CHAIN_INFO[this.chain].unitsPerCoin,
    });
    if (options.label) this.labels.push({ id, label: options.label[0], category: options.label[1] });
    return id;
  }
}

/** A user's XMSS tree height: most wallets use 10; busy accounts pick bigger trees. */
export function userTreeHeight(rng: Rng, tier: Tier): number {
  if (tier === Tier.Heavy || tier === Tier.Whale) return XMSS_TREE_HEIGHTS[3 + rng.int(3)]!;
  const x = rng.float();
  return x < 0.1 ? 8 : x < 0.65 ? 10 : x < 0.87 ? 12 : x < 0.97 ? 14 : 16;
}

function exchanges(b: PlanBuilder, options: ResolvedOptions, custodyCoins: number, days: number): ExchangePlan[] {
  const count = 2 + b.rng.int(3);
  const total = EXCHANGE_SHARES.slice(0, count).reduce((a, c) => a + c, 0);
  const expectedDeposits = options.scale * days * DEPOSIT_SHARE;
  const plans: ExchangePlan[] = [];
  for (let i = 0; i < count; i++) {
    const name = EXCHANGE_NAMES[i]!;
    const share = EXCHANGE_SHARES[i]! / total;
    const custody = custodyCoins * share;
    const hotCount = i === 0 ? 2 : 1;
    const coldCount = i === 0 ? 2 : 1;
    const hot: number[] = [];
    const cold: number[] = [];
    for (let h = 0; h < hotCount; h++) {
      // The first hot wallet of the first exchange does nearly all its work: the chain's busiest address.
      const part = h === 0 ? 0.07 : 0.01;
      hot.push(b.add(Role.ExchangeHot, Tier.None, BigInt(Math.floor(custody * part)), { label: [`${name} hot wallet${h ? ` ${h + 1}` : ''}`, 'exchange'] }));
    }
    for (let c = 0; c < coldCount; c++) {
      const part = (0.92 / coldCount) * (c === 0 && coldCount > 1 ? 1.4 : c > 0 ? 0.6 : 1);
      cold.push(b.add(Role.ExchangeCold, Tier.None, BigInt(Math.floor(custody * part)), { label: [`${name} cold wallet${c ? ` ${c + 1}` : ''}`, 'exchange'] }));
    }
    const relayCount = Math.max(10, Math.ceil(expectedDeposits * FIRST_DEPOSIT_SHARE * share * 1.05));
    const relays: number[] = [];
    const relayConfirmed: boolean[] = [];
    for (let r = 0; r < relayCount; r++) {
      relays.push(b.add(Role.DepositRelay, Tier.None, 0n, { treeHeight: 10, label: [`${name} deposit`, 'exchange'] }));
      relayConfirmed.push(b.rng.chance(0.85));
    }
    plans.push({ name, share, hot, cold, relays, relayConfirmed });
  }
  return plans;
}

/** Genesis users: heavy-tailed (Pareto) shares of `totalUnits`, some dormant forever, the rest retiring at any time. */
function genesisUsers(b: PlanBuilder, count: number, totalUnits: bigint, days: number): void {
  const weights: bigint[] = [];
  let sum = 0n;
  for (let i = 0; i < count; i++) {
    // Pareto weights (capped so that no single genesis user outweighs the named whales), spread
    // over four and a half more decades downwards so that small holders are as common as on chain.
    const w = BigInt(Math.floor(Math.min(b.rng.pareto(1, 1.1), 5000) * 10 ** (6 - 4.5 * b.rng.float())));
    weights.push(w);
    sum += w;
  }
  let given = 0n;
  const firstId = b.accounts.length;
  for (let i = 0; i < count; i++) {
    const dormant = b.rng.chance(0.3);
    const x = b.rng.float();
    const tier = dormant ? Tier.None : x < 0.02 ? Tier.Heavy : x < 0.3 ? Tier.Regular : Tier.Casual;
    const retireDay = tier === Tier.None ? FOREVER : b.rng.chance(0.5) ? b.rng.int(Math.max(1, Math.ceil(days))) : lifetimeDays(b.rng, tier);
    const id = b.add(Role.User, tier, 0n, { retireDay, treeHeight: userTreeHeight(b.rng, tier) });
    const amount = (totalUnits * weights[i]!) / sum;
    b.accounts[id]!.genesis = amount;
    given += amount;
  }
  // Integer division leaves a remainder of a few units: the first genesis user takes it, so the total is exact.
  b.accounts[firstId]!.genesis += totalUnits - given;
}

function sumGenesis(accounts: AccountPlan[]): bigint {
  return accounts.reduce((total, a) => total + a.genesis, 0n);
}

export function planPowChain(options: ResolvedOptions): ChainPlan {
  const rng = new Rng(options.seed, 'pow', 'actors');
  const b = new PlanBuilder('pow', rng);
  const days = options.powDays;
  const migration = b.add(Role.Migration, Tier.None, 0n, { label: ['QRL 2.0 migration', 'migration'] });
  const treasury = [
    b.add(Role.Treasury, Tier.None, 12_000_000n, { label: ['QRL Foundation treasury', 'treasury'] }),
    b.add(Role.Treasury, Tier.None, 3_000_000n, { label: ['Development fund', 'treasury'] }),
  ];
  const custodial = [
    b.add(Role.Custodial, Tier.None, 2_500_000n, { label: ['Vaultkeep custody', 'custodial'] }),
    b.add(Role.Custodial, Tier.None, 800_000n, { label: ['Coldline custody', 'custodial'] }),
  ];
  const exchangePlans = exchanges(b, options, 9_000_000, days);
  const pools = POOL_NAMES.map((name, i) => ({ name, share: POOL_SHARES[i]!, id: b.add(Role.MiningPool, Tier.None, 1_000n, { label: [name, 'mining_pool'] }) }));
  const soloMiners = Array.from({ length: 30 }, () => b.add(Role.SoloMiner, Tier.Regular, 0n, { treeHeight: 14 }));
  // Named whales: one leviathan (>= 5,000,000), one humpback, and a Pareto tail above the 100,000 whale floor.
  const whales = [5_500_000, 2_200_000, ...Array.from({ length: 10 }, () => Math.min(1_500_000, rng.pareto(100_000, 1.2)))].map((amount) =>
    b.add(Role.User, Tier.Whale, BigInt(Math.floor(amount)), { treeHeight: 16 }),
  );
  const ordinary = b.add(Role.User, Tier.Regular, 250n, { treeHeight: 10 });
  const tokenHolder = b.add(Role.User, Tier.None, 40n, { treeHeight: 10 });
  const userCount = Math.round(Math.min(25_000, 2_000 + options.scale * 1.5));
  genesisUsers(b, userCount, POW_GENESIS_SUPPLY_SHOR - sumGenesis(b.accounts), days);
  return {
    chain: 'pow',
    unitsPerCoin: CHAIN_INFO.pow.unitsPerCoin,
    accounts: b.accounts,
    labels: b.labels,
    exchanges: exchangePlans,
    treasury,
    custodial,
    whales,
    ordinary,
    tokenHolder,
    migration,
    pools,
    soloMiners,
    systemTokenHash: powHash(new Rng(options.seed, 'pow', 'system-token')),
    stakingServices: [],
    soloStakers: [],
    bots: [],
    contracts: [],
  };
}

export function planPosChain(options: ResolvedOptions): ChainPlan {
  const rng = new Rng(options.seed, 'pos', 'actors');
  const b = new PlanBuilder('pos', rng);
  const days = options.posDays;
  const treasury = [
    b.add(Role.Treasury, Tier.None, 5_000_000n, { label: ['QRL Foundation treasury', 'treasury'] }),
    b.add(Role.Treasury, Tier.None, 600_000n, { label: ['Ecosystem fund', 'treasury'] }),
  ];
  const custodial = [b.add(Role.Custodial, Tier.None, 1_000_000n, { label: ['Vaultkeep custody', 'custodial'] })];
  const exchangePlans = exchanges(b, options, 4_000_000, days);
  const stakingServices = STAKING_SERVICES.map((name) => b.add(Role.StakingOperator, Tier.None, 10_000n, { label: [`${name} staking`, 'custodial'] }));
  const soloStakers = Array.from({ length: 40 }, () => b.add(Role.StakingOperator, Tier.Regular, 500n));
  const bots = Array.from({ length: 4 }, () => b.add(Role.Bot, Tier.None, 20_000n));
  const contracts: SystemContractPlan[] = (
    [
      ['Wrapped Quanta', 'token', 'WQ', 18],
      ['Quarry Dollar', 'token', 'QUSD', 6],
      ['Tessera', 'token', 'TSR', 18],
      ['Shorswap router', 'router', null, null],
      ['Shorswap QUSD pool', 'dex_pool', null, null],
      ['Disperse', 'disperse', null, null],
      ['Savings vault', 'vault', null, null],
      // Targets of the block-filling batches of congestion episodes, several so that none of them
      // outdoes the busiest exchange wallet.
      ['Batch settlement', 'settlement', null, null],
      ['Oracle feed', 'settlement', null, null],
      ['Bridge relayer', 'settlement', null, null],
      ['Arbitrage executor', 'settlement', null, null],
    ] as const
  ).map(([name, kind, symbol, decimals]) => ({ id: b.add(Role.Contract, Tier.None, 0n, { label: [name, 'contract'] }), name, kind, symbol, decimals }));
  const whales = [5_200_000, 1_500_000, ...Array.from({ length: 6 }, () => Math.min(800_000, rng.pareto(100_000, 1.2)))].map((amount) =>
    b.add(Role.User, Tier.Whale, BigInt(Math.floor(amount))),
  );
  const ordinary = b.add(Role.User, Tier.Regular, 120n);
  const tokenHolder = b.add(Role.User, Tier.None, 30n);
  const userCount = Math.round(Math.min(15_000, 1_000 + options.scale));
  genesisUsers(b, userCount, POS_GENESIS_QUANTA * CHAIN_INFO.pos.unitsPerCoin - sumGenesis(b.accounts), days);
  return {
    chain: 'pos',
    unitsPerCoin: CHAIN_INFO.pos.unitsPerCoin,
    accounts: b.accounts,
    labels: b.labels,
    exchanges: exchangePlans,
    treasury,
    custodial,
    whales,
    ordinary,
    tokenHolder,
    migration: -1,
    pools: [],
    soloMiners: [],
    systemTokenHash: '',
    stakingServices,
    soloStakers,
    bots,
    contracts,
  };
}

