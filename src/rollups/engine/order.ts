/**
 * The order the engine runs the rollups of a step in: every rollup after those it declares it
 * follows (`Rollup.after`), the others as listed. The rollups with statements whose plans a
 * followed step keeps (`Rollup.keepsPlans`) go as late as their dependents allow, next to each
 * other: inside a transaction the driver switches the plan mode at each change between a kept-plan
 * statement and another (store/postgres.ts), one round trip each.
 */
import type { AnyRollup, DeltaTable } from './rollup.ts';

/** `rollups` in the order to run them; throws on an unknown or circular dependency, or another rollup's scratch table read without following it. */
export function runOrder(rollups: readonly AnyRollup[]): AnyRollup[] {
  const byName = new Map(rollups.map((rollup) => [rollup.name, rollup]));
  const deltaOwner = new Map(rollups.flatMap((rollup) => (rollup.deltaTables ?? []).map((table) => [table, rollup] as const)));
  const scratchOwner = new Map(rollups.flatMap((rollup) => (rollup.scratchTables ?? []).map((table) => [table, rollup] as const)));
  for (const rollup of rollups) {
    for (const name of rollup.after ?? []) {
      if (!byName.has(name)) throw new Error(`rollup ${rollup.name} follows ${name}, which is not registered`);
    }
    // A delta table is written before any rollup runs; a scratch table by its rollup's phases.
    for (const table of rollup.reads ?? []) {
      if (deltaOwner.has(table as DeltaTable)) continue;
      const from = scratchOwner.get(table);
      if (!from || !(rollup.after ?? []).includes(from.name)) throw new Error(`rollup ${rollup.name} reads ${table.name} without following the rollup that writes it`);
    }
  }
  const keepsPlans = (rollup: AnyRollup) => (rollup.keepsPlans?.length ?? 0) > 0;
  const ordered: AnyRollup[] = [];
  const placed = new Set<string>();
  const pending = [...rollups];
  while (pending.length > 0) {
    const ready = pending.filter((rollup) => (rollup.after ?? []).every((name) => placed.has(name)));
    if (ready.length === 0) throw new Error(`rollups with circular dependencies: ${pending.map((r) => r.name).join(', ')}`);
    // The first ready one as listed, one without kept plans while there is any.
    const next = ready.find((rollup) => !keepsPlans(rollup)) ?? ready[0]!;
    ordered.push(next);
    placed.add(next.name);
    pending.splice(pending.indexOf(next), 1);
  }
  return ordered;
}
