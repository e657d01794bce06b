/**
 * Curated data that does not come from blocks: labels, exchange wallets, chain settings, and
 * staking figures from a beacon chain (or a generated one). Idempotent upserts.
 */
import type { ChainId } from '../chain/chains.ts';
import type { SlotProposerRow, StakingDayRow, ValidatorDayRow, ValidatorRow } from '../chain/model.ts';
import sql from 'sql-template-tag';
import type { Db, Store } from '../store/store.ts';
import { analyzeExchangeTables, rebuildExchangeRollups } from '../rollups/exchange/venues.ts';
import type { CuratedRecord } from './labels-file.ts';
import { upsertRows } from './raw-store.ts';

export interface Label {
  chain: ChainId;
  address: string;
  label: string;
  category: string;
  isPrimary: boolean;
}

export interface ExchangeWallet {
  chain: ChainId;
  address: string;
  exchange: string;
  role: 'hot' | 'cold' | 'deposit_relay';
  confirmed: boolean;
}

export type { StakingDayRow, ValidatorRow };

export interface Setting {
  chain: ChainId | '*';
  key: string;
  value: string;
}

export async function writeCurated(db: Db, curated: { labels: Label[]; exchangeWallets: ExchangeWallet[]; settings: Setting[] }): Promise<void> {
  await upsertRows(
    db,
    'labels',
    curated.labels.map((l) => [l.chain, l.address, l.label, l.category, l.isPrimary]),
    ['chain', 'address', 'label', 'category', 'is_primary'],
    '(chain, address, label) DO UPDATE SET category = excluded.category, is_primary = excluded.is_primary',
  );
  await upsertRows(
    db,
    'exchange_wallets',
    curated.exchangeWallets.map((w) => [w.chain, w.address, w.exchange, w.role, w.confirmed]),
    ['chain', 'address', 'exchange', 'role', 'confirmed'],
    '(chain, address) DO UPDATE SET exchange = excluded.exchange, role = excluded.role, confirmed = excluded.confirmed',
  );
  await upsertRows(
    db,
    'chain_settings',
    curated.settings.map((s) => [s.chain, s.key, s.value]),
    ['chain', 'key', 'value'],
    '(chain, key) DO UPDATE SET value = excluded.value',
  );
}

/** Writes staking days and validator states; a day or validator written again is replaced (idempotent). Inside a transaction. */
export async function writeStaking(db: Db, daily: StakingDayRow[], validators: ValidatorRow[]): Promise<void> {
  await upsertRows(
    db,
    'staking_daily',
    daily.map((d) => [d.chain, d.day, d.activeValidators, d.totalStaked, d.rewards, d.rewardedValidators, d.slashings, d.nakamoto33]),
    ['chain', 'day', 'active_validators', 'total_staked', 'rewards', 'rewarded_validators', 'slashings', 'nakamoto_33'],
    `(chain, day) DO UPDATE SET active_validators = excluded.active_validators, total_staked = excluded.total_staked,
       rewards = excluded.rewards, rewarded_validators = excluded.rewarded_validators, slashings = excluded.slashings,
       nakamoto_33 = excluded.nakamoto_33`,
  );
  await upsertRows(
    db,
    'validators',
    validators.map((v) => [v.chain, v.validatorIndex, v.pubkey, v.withdrawalAddress, v.status, v.balance, v.effectiveBalance, v.slashed, v.activationEpoch, v.exitEpoch, v.updatedTs]),
    ['chain', 'validator_index', 'pubkey', 'withdrawal_address', 'status', 'balance', 'effective_balance', 'slashed', 'activation_epoch', 'exit_epoch', 'updated_ts'],
    `(chain, validator_index) DO UPDATE SET pubkey = excluded.pubkey, withdrawal_address = excluded.withdrawal_address,
       status = excluded.status, balance = excluded.balance, effective_balance = excluded.effective_balance,
       slashed = excluded.slashed, activation_epoch = excluded.activation_epoch, exit_epoch = excluded.exit_epoch,
       updated_ts = excluded.updated_ts`,
  );
  for (const chain of new Set(validators.map((v) => v.chain))) await countValidators(db, chain);
}

/** Rewrites `validator_counts` of `chain` from its validators: the validator list's totals (migration 0099). */
async function countValidators(db: Db, chain: ChainId): Promise<void> {
  await db.query('staking.counts.clear', sql`DELETE FROM validator_counts WHERE chain = ${chain}`);
  await db.query(
    'staking.counts.write',
    sql`INSERT INTO validator_counts (chain, status, validators)
        SELECT chain, status, count(*)::int FROM validators WHERE chain = ${chain} GROUP BY chain, status`,
  );
}

/** Writes validators' days and slots' proposers (beacon history: migration 0098); a day or slot written again is replaced. Inside a transaction. */
export async function writeValidatorHistory(db: Db, days: ValidatorDayRow[], proposers: SlotProposerRow[]): Promise<void> {
  await upsertRows(
    db,
    'validator_days',
    days.map((d) => [d.chain, d.validatorIndex, d.day, d.status, d.balance, d.effectiveBalance, d.rewards]),
    ['chain', 'validator_index', 'day', 'status', 'balance', 'effective_balance', 'rewards'],
    `(chain, validator_index, day) DO UPDATE SET status = excluded.status, balance = excluded.balance,
       effective_balance = excluded.effective_balance, rewards = excluded.rewards`,
  );
  await upsertRows(
    db,
    'slot_proposers',
    proposers.map((p) => [p.chain, p.slot, p.ts, p.proposerIndex, p.reward]),
    ['chain', 'slot', 'ts', 'proposer_index', 'reward'],
    `(chain, slot) DO UPDATE SET ts = excluded.ts, proposer_index = excluded.proposer_index, reward = excluded.reward`,
  );
}

export interface ImportResult {
  /** Addresses the file names, per chain. */
  addresses: Record<ChainId, number>;
  labels: number;
  exchangeWallets: number;
  /** Curated rows of addresses the file does not name that `replace` removed. */
  removed: number;
}

/**
 * Imports parsed labels-file records (docs/labels.md) in one transaction: each address the file
 * names gets exactly the file's labels and venue role (its previous curated ones go); with
 * `replace`, every other curated label and venue address of the file's chains goes too. Then the
 * exchange rollups of those chains are rebuilt from the raw rows, so the import takes effect
 * without re-indexing. Importing the same file again changes nothing.
 */
export async function importCurated(store: Store, records: CuratedRecord[], options: { replace?: boolean } = {}): Promise<ImportResult> {
  const chains = [...new Set(records.map((r) => r.chain))];
  const result: ImportResult = { addresses: { pow: 0, pos: 0 }, labels: records.length, exchangeWallets: 0, removed: 0 };
  await store.transaction('curated.import', async (tx) => {
    for (const chain of chains) {
      const addresses = [...new Set(records.filter((r) => r.chain === chain).map((r) => r.address))];
      result.addresses[chain] = addresses.length;
      if (options.replace) {
        const [labels] = await tx.query<{ n: number }>('curated.import.count_labels', sql`SELECT count(*)::int AS n FROM labels WHERE chain = ${chain} AND source = 'curated' AND NOT (address = ANY(${addresses}::text[]))`);
        const [wallets] = await tx.query<{ n: number }>('curated.import.count_wallets', sql`SELECT count(*)::int AS n FROM exchange_wallets WHERE chain = ${chain} AND NOT (address = ANY(${addresses}::text[]))`);
        result.removed += labels!.n + wallets!.n;
        await tx.query('curated.import.replace_labels', sql`DELETE FROM labels WHERE chain = ${chain} AND source = 'curated'`);
        await tx.query('curated.import.replace_wallets', sql`DELETE FROM exchange_wallets WHERE chain = ${chain}`);
      } else {
        await tx.query('curated.import.clear_labels', sql`DELETE FROM labels WHERE chain = ${chain} AND source = 'curated' AND address = ANY(${addresses}::text[])`);
        await tx.query('curated.import.clear_wallets', sql`DELETE FROM exchange_wallets WHERE chain = ${chain} AND address = ANY(${addresses}::text[])`);
      }
    }
    const wallets = new Map<string, ExchangeWallet>();
    for (const r of records) {
      // Curated hot and cold wallets are the venue's by definition; a relay waits for the rule (docs/metrics.md, "Exchanges").
      if (r.exchange) wallets.set(`${r.chain}|${r.address}`, { chain: r.chain, address: r.address, exchange: r.exchange.name, role: r.exchange.role, confirmed: r.exchange.role !== 'deposit_relay' });
    }
    result.exchangeWallets = wallets.size;
    await writeCurated(tx, {
      labels: records.map((r) => ({ chain: r.chain, address: r.address, label: r.label, category: r.category, isPrimary: r.primary })),
      exchangeWallets: [...wallets.values()],
      settings: [],
    });
    // The rebuild joins every move against the wallets: planned from stale statistics (an empty
    // table, say, before a first import), it looped over the moves once per wallet.
    await tx.query('curated.import.analyze', sql`ANALYZE exchange_wallets`);
    for (const chain of chains) await rebuildExchangeRollups(tx, chain);
    await analyzeExchangeTables(tx);
  });
  return result;
}

export interface CuratedRow {
  chain: ChainId;
  address: string;
  label: string | null;
  category: string | null;
  primary: boolean | null;
  exchange: string | null;
  role: string | null;
  confirmed: boolean | null;
}

export interface CuratedFilters {
  chain?: ChainId;
  exchange?: string;
  category?: string;
  role?: string;
  address?: string;
  limit: number;
}

/** Curated labels and venue addresses (one row per label; a venue address without a label has one row), by chain, address, label. */
export async function listCurated(db: Db, filters: CuratedFilters): Promise<{ rows: CuratedRow[]; total: number }> {
  const where = sql`WHERE (${filters.chain ?? null}::text IS NULL OR chain = ${filters.chain ?? null})
      AND (${filters.exchange ?? null}::text IS NULL OR exchange = ${filters.exchange ?? null})
      AND (${filters.category ?? null}::text IS NULL OR category = ${filters.category ?? null})
      AND (${filters.role ?? null}::text IS NULL OR role = ${filters.role ?? null})
      AND (${filters.address ?? null}::text IS NULL OR address = ${filters.address ?? null})`;
  const rows = sql`SELECT coalesce(l.chain, w.chain) AS chain, coalesce(l.address, w.address) AS address, l.label, l.category, l.is_primary AS primary,
                          w.exchange, w.role, w.confirmed
                   FROM (SELECT * FROM labels WHERE source = 'curated') l
                   FULL JOIN exchange_wallets w ON w.chain = l.chain AND w.address = l.address`;
  const [list, [count]] = await Promise.all([
    db.query<CuratedRow>('curated.list', sql`SELECT * FROM (${rows}) r ${where} ORDER BY chain, exchange NULLS LAST, role, address, label LIMIT ${filters.limit}`),
    db.query<{ n: number }>('curated.list.count', sql`SELECT count(*)::int AS n FROM (${rows}) r ${where}`),
  ]);
  return { rows: list, total: count!.n };
}
