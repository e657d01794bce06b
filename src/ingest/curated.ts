/**
 * Curated data that does not come from blocks: labels, exchange wallets, chain settings, and
 * staking figures from a beacon chain (or a generated one). Idempotent upserts.
 */
import type { ChainId } from '../chain/chains.ts';
import type { StakingDayRow, ValidatorRow } from '../chain/model.ts';
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
}
