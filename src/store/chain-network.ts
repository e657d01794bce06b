/**
 * A chain's network facts (chain/network.ts) as kept in `chain_settings`: one row per fact,
 * `slot_seconds`, `slots_per_epoch`, `address_bytes` and `clock_source`. A fact not written yet
 * reads as the default. Written by the indexer when it learns them from a node; read by the API and
 * the indexer.
 */
import sql, { join } from 'sql-template-tag';
import { CHAINS, type ChainId } from '../chain/chains.ts';
import { DEFAULT_NETWORK, type ChainNetwork, type ClockSource } from '../chain/network.ts';
import type { Db } from './store.ts';

const KEYS = {
  slotSeconds: 'slot_seconds',
  slotsPerEpoch: 'slots_per_epoch',
  addressBytes: 'address_bytes',
  clockSource: 'clock_source',
} as const satisfies Record<keyof ChainNetwork, string>;

/** The `chain_settings` keys that hold network facts. */
export const CHAIN_NETWORK_KEYS: readonly string[] = Object.values(KEYS);

const CLOCK_SOURCES: readonly ClockSource[] = ['default', 'beacon', 'blocks'];

/** The network facts of every chain, the defaults where the store holds none. */
export async function readChainNetworks(db: Db): Promise<Record<ChainId, ChainNetwork>> {
  const rows = await db.query<{ chain: string; key: string; value: string }>(
    'store.chain_network.read',
    sql`SELECT chain, key, value FROM chain_settings WHERE chain IN ('pow', 'pos') AND key = ANY(${CHAIN_NETWORK_KEYS}::text[])`,
  );
  return chainNetworksFromSettings(rows);
}

/** The network facts of every chain from `chain_settings` rows (any other rows are ignored). */
export function chainNetworksFromSettings(rows: readonly { chain: string; key: string; value: string }[]): Record<ChainId, ChainNetwork> {
  const networks = Object.fromEntries(CHAINS.map((chain) => [chain, { ...DEFAULT_NETWORK[chain] }])) as Record<ChainId, ChainNetwork>;
  for (const { chain, key, value } of rows) {
    const network = networks[chain as ChainId];
    if (network === undefined) continue;
    if (key === KEYS.clockSource) {
      if ((CLOCK_SOURCES as readonly string[]).includes(value)) network.clockSource = value as ClockSource;
      continue;
    }
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n <= 0) continue;
    if (key === KEYS.slotSeconds) network.slotSeconds = n;
    else if (key === KEYS.slotsPerEpoch) network.slotsPerEpoch = n;
    else if (key === KEYS.addressBytes) network.addressBytes = n;
  }
  return networks;
}

/**
 * Records what was learned of `chain`'s network; facts not given are left as stored. One
 * statement, so that a reader (and `writeBlocksClock`) never sees half of one write: a slot time
 * without its clock source.
 */
export async function writeChainNetwork(db: Db, chain: ChainId, facts: Partial<ChainNetwork>): Promise<void> {
  const rows = (Object.keys(KEYS) as (keyof ChainNetwork)[]).flatMap((field) => {
    const value = facts[field];
    return value === undefined || value === null ? [] : [sql`(${chain}, ${KEYS[field]}, ${String(value)})`];
  });
  if (rows.length === 0) return;
  await db.query(
    'store.chain_network.write',
    sql`INSERT INTO chain_settings (chain, key, value) VALUES ${join(rows)}
        ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value`,
  );
}

/**
 * Records the slot time `chain`'s block timestamps show, with clock source 'blocks', unless the
 * store holds the beacon's (a beacon's spec always wins): true when written. One statement whose
 * slot time is written only if its clock source was, and the clock source's guard is checked on
 * the row as it is when written (ON CONFLICT locks the latest version), so a beacon's write that
 * commits meanwhile is never overwritten.
 */
export async function writeBlocksClock(db: Db, chain: ChainId, slotSeconds: number): Promise<boolean> {
  const rows = await db.query<{ written: number }>(
    'store.chain_network.blocks_clock',
    sql`WITH clock AS (
          INSERT INTO chain_settings (chain, key, value) VALUES (${chain}, ${KEYS.clockSource}, ${'blocks'})
          ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value WHERE chain_settings.value <> ${'beacon'}
          RETURNING chain
        )
        INSERT INTO chain_settings (chain, key, value) SELECT chain, ${KEYS.slotSeconds}, ${String(slotSeconds)} FROM clock
        ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value
        RETURNING 1 AS written`,
  );
  return rows.length > 0;
}

/** The address width recorded for `chain`, or null when none is (readChainNetworks then answers the default). */
export async function storedAddressBytes(db: Db, chain: ChainId): Promise<number | null> {
  const [row] = await db.query<{ value: string }>('store.chain_network.address_bytes', sql`SELECT value FROM chain_settings WHERE chain = ${chain} AND key = ${KEYS.addressBytes}`);
  return row ? Number(row.value) : null;
}
