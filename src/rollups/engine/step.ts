/**
 * What the engine hands each rollup of a step: its own reduction of the step's blocks, and the
 * step's inputs already shaped for a followed or a bulk step, so that no rollup's SQL chooses
 * between plans.
 *
 * A followed chain's step (at most FOLLOWED_BLOCKS blocks: its blocks a few at a time) runs the
 * statements its rollups name (`Rollup.keepsPlans`) with their plans kept (`QueryOptions.reusePlan`):
 * the plan that suits a few blocks' rows suits every followed block, where planning some of them
 * cost more than running them. Such a plan reads the step's blocks by the list of their heights
 * (planned without values, a range is guessed at a share of the whole table, a list at a few
 * blocks' rows) and the step's deltas as values: PostgreSQL plans a statement again once a table it
 * reads has been analysed, and the delta tables are analysed at every step. A bulk step's
 * statements are planned for their values: its blocks as a range of heights, its deltas as the
 * delta tables.
 */
import sql, { raw } from 'sql-template-tag';
import type { Db, QueryOptions } from '../../store/store.ts';
import type { RollupDeltas } from './deltas.ts';
import { directRows, rowsAsValues, tableRows } from './delta-tables.ts';
import type { AnyRollup, DeltaTable, RollupStep, ScratchTable } from './rollup.ts';

/** The most blocks a followed chain's step holds. */
export const FOLLOWED_BLOCKS = 16;

/** The state the rollups of one step share (what one sets, a later one reads). */
export class SharedStep {
  newAddresses = 0;
  removedAddresses = 0;
  readonly carried = new Map<string, unknown>();
  readonly followed: boolean;
  readonly days: readonly string[];
  /** The delta tables' owners, for the values of a table another rollup reads. */
  private readonly owners = new Map<ScratchTable, AnyRollup>();

  constructor(
    readonly deltas: RollupDeltas,
    readonly rollups: readonly AnyRollup[],
    readonly fresh: ReadonlySet<string>,
    readonly partial: boolean,
    readonly ancestor: number,
  ) {
    this.followed = deltas.blocks <= FOLLOWED_BLOCKS;
    this.days = [...deltas.days];
    for (const rollup of rollups) for (const table of rollup.deltaTables ?? []) this.owners.set(table, rollup);
  }

  /** The step as `rollup` sees it. */
  for(rollup: AnyRollup): RollupStep<unknown> {
    const { deltas } = this;
    const keepsPlans = this.followed && (rollup.keepsPlans?.length ?? 0) > 0;
    const readable = new Set<ScratchTable>([...(rollup.deltaTables ?? []), ...(rollup.scratchTables ?? []), ...(rollup.reads ?? [])]);
    const view = {
      chain: deltas.chain,
      deltas: rollup.deltas ? deltas.of(rollup.deltas) : undefined,
      blocks: deltas.blocks,
      fromHeight: deltas.fromHeight,
      toHeight: deltas.toHeight,
      days: this.days,
      followed: this.followed,
      partial: this.partial,
      fresh: this.fresh,
      ancestor: this.ancestor,
      carried: this.carried,
      inBlocks: (alias) => {
        if (!/^\w+$/.test(alias)) throw new Error(`inBlocks: "${alias}" is not an alias`);
        if (!this.followed) return sql`${raw(alias)}.height BETWEEN ${deltas.fromHeight} AND ${deltas.toHeight}`;
        const heights = Array.from({ length: Math.max(0, deltas.toHeight - deltas.fromHeight + 1) }, (_, i) => deltas.fromHeight + i);
        return sql`${raw(alias)}.height = ANY(${heights}::bigint[])`;
      },
      rowsOf: (table, columns) => {
        if (!readable.has(table)) throw new Error(`rollup ${rollup.name} reads ${table.name} without declaring it (reads)`);
        const owner = this.owners.get(table);
        // A delta table's rows are known before the statement runs; a scratch table's are written by its rollup.
        if (keepsPlans && owner) return rowsAsValues(table as DeltaTable, tableRows(table as DeltaTable, owner, deltas), columns);
        // A direct table of a fresh rollup went into the rollup's table, not into the delta table.
        if (owner && (table as DeltaTable).direct && this.fresh.has(owner.name)) return directRows(table as DeltaTable, deltas.chain, columns);
        return raw(table.name);
      },
    } as Omit<RollupStep<unknown>, 'newAddresses' | 'removedAddresses'> as RollupStep<unknown>;
    // The counters one rollup sets and a later one reads live in the shared step.
    return Object.defineProperties(view, {
      newAddresses: { get: () => this.newAddresses, set: (n: number) => void (this.newAddresses = n), enumerable: true },
      removedAddresses: { get: () => this.removedAddresses, set: (n: number) => void (this.removedAddresses = n), enumerable: true },
    });
  }

  /**
   * The Db `rollup` runs its statements through: in a followed step, those it names in
   * `keepsPlans` keep their plans.
   */
  dbFor(db: Db, rollup: AnyRollup): Db {
    const kept = this.followed ? rollup.keepsPlans : undefined;
    if (!kept?.length) return db;
    const plans: QueryOptions = { reusePlan: true };
    return {
      kind: db.kind,
      query: (label, statement, options) => db.query(label, statement, kept.includes(label) ? { ...options, ...plans } : options),
      exec: (label, script) => db.exec(label, script),
      copyRows: (label, table, columns, rows) => db.copyRows(label, table, columns, rows),
    };
  }
}
