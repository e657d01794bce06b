/** Everything a world decides up front, shared (read-only) by every generator run of both chains. */
import { planPosChain, planPowChain, type ChainPlan } from './actors.ts';
import { planMigrations, type MigrationPlanItem } from './migration.ts';
import type { ResolvedOptions } from './options.ts';
import { DAY_SECONDS } from '../../time.ts';
import { Rng } from './rng.ts';
import { modelStaking, type StakingModel } from './staking.ts';

export interface WorldPlan {
  options: ResolvedOptions;
  pow: ChainPlan;
  pos: ChainPlan;
  migrations: MigrationPlanItem[];
  staking: StakingModel;
  /** pos: the slot of each height (1-3% of slots are missed; slot 0 and the last slot never are). */
  posSlots: Int32Array;
}

export function planWorld(options: ResolvedOptions): WorldPlan {
  const pow = planPowChain(options);
  const pos = planPosChain(options);
  return { options, pow, pos, migrations: planMigrations(options), staking: modelStaking(options, pos), posSlots: planPosSlots(options) };
}

function planPosSlots(options: ResolvedOptions): Int32Array {
  const rng = new Rng(options.seed, 'pos', 'slots');
  const slotsPerDay = DAY_SECONDS / options.posSlotSeconds;
  const slots = new Int32Array(options.posLastSlot + 1);
  let count = 1;
  let missRate = 0.02;
  for (let slot = 1; slot <= options.posLastSlot; slot++) {
    if (slot % slotsPerDay === 1) missRate = 0.01 + 0.02 * rng.float();
    if (slot === options.posLastSlot || !rng.chance(missRate)) slots[count++] = slot;
  }
  return slots.slice(0, count);
}
