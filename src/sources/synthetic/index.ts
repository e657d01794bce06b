/**
 * The deterministic synthetic world: both chains as block sources that behave like real nodes
 * (reorgs, undecodable items, resumable from any height), the curated data that goes with them
 * (labels, exchange wallets, chain settings), the staking figures of the pos beacon chain, and a
 * description of the notable accounts. See docs/synthetic-data.md.
 */
import type { ChainId } from '../../chain/chains.ts';
import type { BlockSource } from '../../chain/model.ts';
import type { ChainPlan } from './actors.ts';
import { POW_BLOCK_SECONDS, resolveOptions, type ResolvedOptions, type SyntheticOptions } from './options.ts';
import { createPosGenerator } from './pos.ts';
import { createPowGenerator } from './pow.ts';
import { createGeneratedSource } from './source.ts';
import type { StakingDay, ValidatorState } from './staking.ts';
import { planWorld } from './world-plan.ts';

export type { SyntheticOptions, ResolvedOptions } from './options.ts';
export type { StakingDay, ValidatorState } from './staking.ts';
export { collect } from './source.ts';
export { MAX_REORG_DEPTH, POS_SLOT_SECONDS, POS_SLOTS_PER_EPOCH } from './options.ts';

export interface CuratedLabel {
  chain: ChainId;
  address: string;
  label: string;
  category: string;
  isPrimary: boolean;
}

export interface CuratedExchangeWallet {
  chain: ChainId;
  address: string;
  exchange: string;
  role: 'hot' | 'cold' | 'deposit_relay';
  confirmed: boolean;
}

export interface CuratedSetting {
  chain: ChainId;
  key: string;
  value: string;
}

export interface NotableAccounts {
  /** The chain's busiest address: the first hot wallet of its largest exchange. */
  busiestHotWallet: string;
  exchange: string;
  /** A named whale that stays at or above 5,000,000 coins. */
  whale: string;
  /** A regular user with a modest balance and steady activity. */
  ordinary: string;
  /** pow: a mining pool that signs its payouts with slave keys; pos: null. */
  slaveMaster: string | null;
  /** pos: the DEX router (value moves through it in internal transfers); pow: null. */
  contract: string | null;
  /** The system token: pos contract address; pow creation transaction hash. */
  token: string;
  /** An address that receives the system token at its creation and never moves it. */
  tokenHolder: string;
  /** pow: the migration address; pos: null. */
  migrationAddress: string | null;
  /** pow: the largest mining pool; pos: null. */
  miningPool: string | null;
  treasury: string;
}

export interface SyntheticWorld {
  options: ResolvedOptions;
  /** The last canonical height of each chain (pos has fewer heights than slots: some are missed). */
  lastHeight: Record<ChainId, number>;
  pow: BlockSource;
  pos: BlockSource;
  curated: { labels: CuratedLabel[]; exchangeWallets: CuratedExchangeWallet[]; settings: CuratedSetting[] };
  /** `validatorsByDay`: a live world's validators at the end of each day of its live part (options.live). */
  staking: { daily: StakingDay[]; validators: ValidatorState[]; validatorsByDay: ReadonlyMap<string, ValidatorState[]> };
  /** The last canonical height of `chain` whose block time is at most `ts` whatever its jitter (Unix seconds); -1 before genesis. */
  heightAt(chain: ChainId, ts: number): number;
  describe(): Record<ChainId, NotableAccounts>;
}

export function createSyntheticWorld(options: SyntheticOptions): SyntheticWorld {
  const resolved = resolveOptions(options);
  const world = planWorld(resolved);
  const chains = [world.pow, world.pos];
  const settings: CuratedSetting[] = [
    { chain: 'pow', key: 'genesis_ts', value: String(resolved.powStart) },
    { chain: 'pos', key: 'genesis_ts', value: String(resolved.posStart) },
    { chain: 'pow', key: 'migration_address', value: world.pow.accounts[world.pow.migration]!.address },
  ];
  if (resolved.migrationCutover !== null) {
    for (const chain of ['pow', 'pos'] as const) settings.push({ chain, key: 'migration_cutover_ts', value: String(resolved.migrationCutover) });
  }
  return {
    options: resolved,
    lastHeight: { pow: resolved.powLastHeight, pos: world.posSlots.length - 1 },
    pow: createGeneratedSource('pow', () => createPowGenerator(world)),
    pos: createGeneratedSource('pos', () => createPosGenerator(world)),
    curated: {
      labels: chains.flatMap((plan) => plan.labels.map((l) => ({ chain: plan.chain, address: plan.accounts[l.id]!.address, label: l.label, category: l.category, isPrimary: true }))),
      exchangeWallets: chains.flatMap((plan) => exchangeWallets(plan)),
      settings,
    },
    staking: { daily: world.staking.daily, validators: world.staking.validators, validatorsByDay: world.staking.validatorsByDay },
    heightAt: (chain, ts) => (chain === 'pow' ? powHeightAt(resolved, ts) : posHeightAt(resolved, world.posSlots, ts)),
    describe: () => ({ pow: notable(world.pow), pos: notable(world.pos) }),
  };
}

function exchangeWallets(plan: ChainPlan): CuratedExchangeWallet[] {
  const address = (id: number) => plan.accounts[id]!.address;
  return plan.exchanges.flatMap((e) => [
    ...e.hot.map((id) => ({ chain: plan.chain, address: address(id), exchange: e.name, role: 'hot' as const, confirmed: true })),
    ...e.cold.map((id) => ({ chain: plan.chain, address: address(id), exchange: e.name, role: 'cold' as const, confirmed: true })),
    ...e.relays.map((id, i) => ({ chain: plan.chain, address: address(id), exchange: e.name, role: 'deposit_relay' as const, confirmed: e.relayConfirmed[i]! })),
  ]);
}

function notable(plan: ChainPlan): NotableAccounts {
  const address = (id: number) => plan.accounts[id]!.address;
  const pow = plan.chain === 'pow';
  const token = pow ? plan.systemTokenHash : address(plan.contracts.find((c) => c.symbol === 'WQ')!.id);
  return {
    busiestHotWallet: address(plan.exchanges[0]!.hot[0]!),
    exchange: plan.exchanges[0]!.name,
    whale: address(plan.whales[0]!),
    ordinary: address(plan.ordinary),
    slaveMaster: pow ? address(plan.pools[0]!.id) : null,
    contract: pow ? null : address(plan.contracts.find((c) => c.kind === 'router')!.id),
    token,
    tokenHolder: address(plan.tokenHolder),
    migrationAddress: pow ? address(plan.migration) : null,
    miningPool: pow ? address(plan.pools[0]!.id) : null,
    treasury: address(plan.treasury[0]!),
  };
}

function powHeightAt(options: ResolvedOptions, ts: number): number {
  // Block h is due at powStart + 60 h, give or take 29 s (pow.ts).
  return Math.min(options.powLastHeight, Math.floor((ts - options.powStart - 29) / POW_BLOCK_SECONDS));
}

/** Binary search of the slots (ascending): the last height whose slot's time is at most `ts`. */
function posHeightAt(options: ResolvedOptions, slots: Int32Array, ts: number): number {
  let low = 0;
  let high = slots.length - 1;
  if (options.posStart + slots[0]! * options.posSlotSeconds > ts) return -1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (options.posStart + slots[mid]! * options.posSlotSeconds <= ts) low = mid;
    else high = mid - 1;
  }
  return low;
}
