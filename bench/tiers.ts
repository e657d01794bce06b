/**
 * Benchmark tiers: the generated worlds the benchmark builds and measures. S, M and L share their
 * history and differ in density only, so M/S shows how an endpoint grows with the data behind one
 * address, not with history length (bench/README.md, "The tiers").
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadMigrations } from '../src/store/migrate.ts';
import type { SyntheticOptions } from '../src/sources/synthetic/index.ts';
import { ROOT } from './proc.ts';

export type TierName = 'T' | 'S' | 'M' | 'L' | 'H';

export interface Tier {
  name: TierName;
  description: string;
  world: SyntheticOptions & { end: Date };
  /** Blocks at the tip of each chain that the ingest part takes back out and ingests again incrementally. */
  stretch: { pow: number; pos: number };
  /** Blocks ingested one block per transaction (a node being followed): the rollup cost per block. */
  live: { pow: number; pos: number };
  /** Seconds of load per API case at full concurrency. */
  apiSeconds: number;
  /** Rows of the COPY ceiling measurement. */
  copyRows: number;
  /** What the world must contain (checked from the database after the build). */
  expect?: { transactions?: number; addresses?: number; busiestTransactions?: number };
}

// A fixed end keeps every world the same from run to run (the default would be "now").
const END = new Date('2026-01-01T00:00:00Z');
/** pow's rarer kinds in every tier, so that the key routes (docs/api-ots.md) have subjects: multisig addresses, reused keys. */
const POW_KEYS = { powMultiSig: 10, powOtsReuses: 10 } as const;

export const TIERS: Record<TierName, Tier> = {
  T: {
    name: 'T',
    description: 'tiny, for developing the benchmark (≈80 k transactions)',
    world: { seed: 1, powDays: 20, posDays: 5, scale: 2000, end: END, ...POW_KEYS },
    stretch: { pow: 300, pos: 1500 },
    live: { pow: 30, pos: 60 },
    apiSeconds: 1,
    copyRows: 50_000,
  },
  S: {
    name: 'S',
    description: 'small (≈500 k transactions)',
    world: { seed: 1, powDays: 100, posDays: 30, scale: 2500, end: END, ...POW_KEYS },
    stretch: { pow: 1440, pos: 7000 },
    live: { pow: 60, pos: 200 },
    apiSeconds: 0.6, // S in about 10 minutes, the demo's 3 included
    copyRows: 200_000,
    expect: { transactions: 450_000 },
  },
  M: {
    name: 'M',
    description: 'medium (≥5 M transactions, ≥1 M addresses, busiest address ≥100 k transactions)',
    world: { seed: 1, powDays: 100, posDays: 30, scale: 40_000, end: END, ...POW_KEYS },
    stretch: { pow: 1440, pos: 7000 },
    live: { pow: 60, pos: 200 },
    apiSeconds: 1.5,
    copyRows: 500_000,
    expect: { transactions: 5_000_000, addresses: 1_000_000, busiestTransactions: 100_000 },
  },
  H: {
    name: 'H',
    description: 'long history: five years of pow at a low density (analytics latency must not grow with history)',
    world: { seed: 1, powDays: 1825, posDays: 30, scale: 150, end: END, ...POW_KEYS },
    stretch: { pow: 1440, pos: 7000 },
    live: { pow: 60, pos: 200 },
    apiSeconds: 0.6,
    copyRows: 200_000,
  },
  L: {
    name: 'L',
    description: 'large, optional (≈10 M transactions; not part of the regular run)',
    world: { seed: 1, powDays: 100, posDays: 30, scale: 80_000, end: END, ...POW_KEYS },
    stretch: { pow: 1440, pos: 7000 },
    live: { pow: 60, pos: 200 },
    apiSeconds: 2,
    copyRows: 500_000,
    expect: { transactions: 10_000_000 },
  },
};

export function parseTiers(raw: string): Tier[] {
  return raw.split(',').map((name) => {
    const tier = TIERS[name.trim().toUpperCase() as TierName];
    if (!tier) throw new Error(`unknown tier ${name}: use ${Object.keys(TIERS).join(', ')}`);
    return tier;
  });
}

/**
 * The key of a tier's data: its world and the schema (migration checksums). A new migration
 * means a new database; code changes that leave the schema alone do not (see codeHash).
 */
export function tierKey(tier: Tier): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ ...tier.world, end: tier.world.end.toISOString() }));
  for (const migration of loadMigrations()) hash.update(`${migration.version}:${migration.checksum}`);
  return hash.digest('hex').slice(0, 10);
}

/**
 * A hash of the code that decides what a built database contains (generator, ingest, rollups).
 * A tier built with other code is still used, with a warning, so that API-only runs stay quick.
 */
export function codeHash(): string {
  const hash = createHash('sha256');
  for (const dir of ['src/sources/synthetic', 'src/ingest', 'src/rollups']) {
    const full = path.join(ROOT, dir);
    for (const file of readdirSync(full).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort()) {
      hash.update(file).update(readFileSync(path.join(full, file)));
    }
  }
  return hash.digest('hex').slice(0, 10);
}
