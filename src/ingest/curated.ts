/**
 * Curated data that does not come from blocks: labels, exchange wallets, chain settings, and
 * staking figures from a beacon chain (or a generated one). Idempotent upserts.
 */
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';
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

export interface Setting {
  chain: ChainId | '*';
  key: string;
  value: string;
}

export interface StakingDayRow {
  chain: ChainId;
  day: string;
  activeValidators: number;
  totalStaked: bigint;
  rewards: bigint;
  rewardedValidators: number;
  slashings: number;
  nakamoto33: number | null;
}

export interface ValidatorRow {
  chain: ChainId;
  validatorIndex: number;
  pubkey: string;
  withdrawalAddress: string | null;
  status: string;
  balance: bigint;
  effectiveBalance: bigint;
  slashed: boolean;
  activationEpoch: number | null;
  exitEpoch: number | null;
  updatedTs: number;
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

export async function writeStaking(db: Db, daily: StakingDayRow[], validators: ValidatorRow[]): Promise<void> {
  await db.copyRows(
    'curated.staking_daily',
    'staking_daily',
    ['chain', 'day', 'active_validators', 'total_staked', 'rewards', 'rewarded_validators', 'slashings', 'nakamoto_33'],
    daily.map((d) => [d.chain, d.day, d.activeValidators, d.totalStaked, d.rewards, d.rewardedValidators, d.slashings, d.nakamoto33]),
  );
  await db.copyRows(
    'curated.validators',
    'validators',
    ['chain', 'validator_index', 'pubkey', 'withdrawal_address', 'status', 'balance', 'effective_balance', 'slashed', 'activation_epoch', 'exit_epoch', 'updated_ts'],
    validators.map((v) => [v.chain, v.validatorIndex, v.pubkey, v.withdrawalAddress, v.status, v.balance, v.effectiveBalance, v.slashed, v.activationEpoch, v.exitEpoch, v.updatedTs]),
  );
}
