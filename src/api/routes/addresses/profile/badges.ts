/**
 * Badges (docs/metrics.md, "Badges"): short facts about an address for display, each with a key,
 * a label, an emoji, a tone (neutral, info, positive, warning, negative), a category (holdings,
 * signature, role, activity, age), a tier (the holder tier for holdings badges, bronze/silver/gold
 * for graded badges, standard otherwise), a description of the rule and the reason it applies.
 */
import { isSentinel, type ChainId } from '../../../../chain/chains.ts';
import type { AddressFacts } from '../../../../domain/address-facts.ts';
import { formatCoins } from '../../../amounts.ts';
import { holderTier } from '../../../../domain/holder-tiers.ts';
import type { WalletClass } from '../../../../domain/wallet-class.ts';
import type { XmssFigures } from './xmss.ts';
import { DAY_SECONDS } from '../../../../time.ts';

interface Badge {
  key: string;
  label: string;
  emoji: string;
  tone: 'neutral' | 'info' | 'positive' | 'warning' | 'negative';
  category: 'holdings' | 'signature' | 'role' | 'activity' | 'age';
  tier: string;
  description: string;
  reason: string | null;
}

const n = (value: number) => value.toLocaleString('en-US');

/** Graded badges: the highest grade whose threshold is reached, or null. */
function grade(value: number, [bronze, silver, gold]: readonly [number, number, number]): 'bronze' | 'silver' | 'gold' | null {
  return value >= gold ? 'gold' : value >= silver ? 'silver' : value >= bronze ? 'bronze' : null;
}

const ACTIVE_GRADES = [100, 1_000, 10_000] as const;
const VETERAN_GRADES_DAYS = [365, 730, 1825] as const;
const DEPLOYER_GRADES = [1, 10, 100] as const;
const DORMANT_DAYS = 365;
const NEWCOMER_DAYS = 7;

const ROLE_LABELS: Record<string, { label: string; emoji: string; description: string }> = {
  protocol: { label: 'Protocol', emoji: '⚙️', description: 'A protocol sentinel, not a wallet' },
  exchange: { label: 'Exchange', emoji: '🏦', description: 'A curated hot or cold wallet of an exchange' },
  exchange_deposit: { label: 'Exchange deposit', emoji: '📥', description: 'A deposit relay that forwards customer deposits to an exchange' },
  mining_pool: { label: 'Mining pool', emoji: '⛏️', description: 'A curated mining pool' },
  custodial: { label: 'Custodian', emoji: '🔒', description: 'A curated custodial or staking service' },
  treasury: { label: 'Treasury', emoji: '🏛️', description: 'A curated treasury or fund' },
  contract: { label: 'Contract', emoji: '📜', description: 'A contract account' },
  migration: { label: 'Migration', emoji: '🌉', description: 'The pow-to-pos migration address' },
  entity: { label: 'Known entity', emoji: '🏷️', description: 'An address with a curated label' },
  slave_key: { label: 'Slave key', emoji: '🗝️', description: 'A pow signing key registered by a master address' },
  staker: { label: 'Staker', emoji: '🥩', description: 'Receives consensus-layer withdrawals' },
  miner: { label: 'Miner', emoji: '⛏️', description: 'First funded by a block reward' },
  automated: { label: 'Automated', emoji: '🤖', description: 'Transacts faster than a person does by hand' },
};

function tierBadge(chain: ChainId, balance: bigint): Badge | null {
  const found = holderTier(chain, balance);
  if (!found) return null;
  const { tier, index } = found;
  return {
    key: `tier_${tier.name}`,
    label: tier.label,
    emoji: tier.emoji,
    tone: index >= 7 ? 'positive' : index >= 4 ? 'info' : 'neutral',
    category: 'holdings',
    tier: tier.name,
    description: tier.minCoins === 0n ? 'Holds less than 1 coin' : `Holds at least ${n(Number(tier.minCoins))} coins`,
    reason: `balance ${formatCoins(chain, balance)} quanta`,
  };
}

function signatureBadges(f: AddressFacts, xmss: XmssFigures | null): Badge[] {
  if (isSentinel(f.chain, f.address)) return [];
  if (f.chain === 'pos') {
    if (f.isContract) return [];
    return [{
      key: 'sig_ml_dsa_87', label: 'ML-DSA-87', emoji: '🛡️', tone: 'info', category: 'signature', tier: 'standard',
      description: 'Signs with ML-DSA-87 (FIPS 204), a lattice-based post-quantum signature scheme', reason: null,
    }];
  }
  if (!xmss) return [];
  const badges: Badge[] = [{
    key: 'sig_xmss', label: `XMSS h${xmss.tree_height}`, emoji: '🔐', tone: 'info', category: 'signature', tier: 'standard',
    description: 'Signs with XMSS, a hash-based post-quantum scheme whose one-time keys each sign once',
    reason: `tree height ${xmss.tree_height}: ${n(xmss.ots_keys_total)} one-time keys, ${n(xmss.ots_keys_used)} used`,
  }];
  if (xmss.status === 'low') {
    badges.push({
      key: 'ots_low', label: 'Few keys left', emoji: '⚠️', tone: 'warning', category: 'signature', tier: 'standard',
      description: 'At most 10% of the one-time signing keys are left', reason: `${n(xmss.ots_keys_remaining)} of ${n(xmss.ots_keys_total)} keys left`,
    });
  } else if (xmss.status === 'exhausted') {
    badges.push({
      key: 'ots_exhausted', label: 'Keys exhausted', emoji: '⛔', tone: 'negative', category: 'signature', tier: 'standard',
      description: 'Every one-time signing key is used: the address can no longer sign', reason: `${n(xmss.ots_keys_used)} of ${n(xmss.ots_keys_total)} keys used`,
    });
  }
  return badges;
}

function roleBadges(f: AddressFacts, walletClass: WalletClass | null): Badge[] {
  const badges: Badge[] = [];
  const role = walletClass ? ROLE_LABELS[walletClass.walletClass] : undefined;
  if (walletClass && role) {
    badges.push({
      key: `role_${walletClass.walletClass}`, label: role.label, emoji: role.emoji, tone: 'info', category: 'role', tier: 'standard',
      description: role.description, reason: walletClass.reason,
    });
  }
  const deployer = grade(f.deployedCount, DEPLOYER_GRADES);
  if (f.chain === 'pos' && deployer) {
    badges.push({
      key: 'deployer', label: 'Deployer', emoji: '🏗️', tone: 'info', category: 'role', tier: deployer,
      description: 'Created contracts (bronze 1, silver 10, gold 100)', reason: `${n(f.deployedCount)} contracts created`,
    });
  }
  if (f.chain === 'pow' && f.slaveCount > 0) {
    badges.push({
      key: 'slave_master', label: 'Slave master', emoji: '🔑', tone: 'info', category: 'role', tier: 'standard',
      description: 'Registered slave keys that sign on its behalf', reason: `${n(f.slaveCount)} slave keys registered`,
    });
  }
  return badges;
}

function activityBadges(f: AddressFacts): Badge[] {
  const badges: Badge[] = [];
  const active = grade(f.txCount, ACTIVE_GRADES);
  if (active) {
    const label = { bronze: 'Active', silver: 'Very active', gold: 'Power user' }[active];
    badges.push({
      key: 'active', label, emoji: '⚡', tone: 'positive', category: 'activity', tier: active,
      description: 'Logical transactions (bronze 100, silver 1,000, gold 10,000)', reason: `${n(f.txCount)} transactions`,
    });
  }
  const lastActive = f.lastSeen ?? f.appeared;
  if (f.tipTs !== null && lastActive !== null && f.balance > 0n && f.tipTs - lastActive >= DORMANT_DAYS * DAY_SECONDS) {
    badges.push({
      key: 'dormant', label: 'Dormant', emoji: '💤', tone: 'neutral', category: 'activity', tier: 'standard',
      description: `Holds coins and has not been active for ${DORMANT_DAYS} days`,
      reason: `last active ${n(Math.floor((f.tipTs - lastActive) / DAY_SECONDS))} days before the latest block`,
    });
  }
  return badges;
}

function ageBadges(f: AddressFacts): Badge[] {
  const badges: Badge[] = [];
  if (f.genesisHolder) {
    badges.push({
      key: 'genesis', label: 'Genesis', emoji: '🌱', tone: 'positive', category: 'age', tier: 'standard',
      description: 'Received value in the genesis block', reason: null,
    });
  }
  if (f.tipTs !== null && f.appeared !== null) {
    const days = Math.floor((f.tipTs - f.appeared) / DAY_SECONDS);
    const veteran = grade(days, VETERAN_GRADES_DAYS);
    if (veteran) {
      badges.push({
        key: 'veteran', label: 'Veteran', emoji: '🎖️', tone: 'positive', category: 'age', tier: veteran,
        description: 'First appeared long ago (bronze 1 year, silver 2 years, gold 5 years)', reason: `first appeared ${n(days)} days before the latest block`,
      });
    } else if (days < NEWCOMER_DAYS) {
      badges.push({
        key: 'newcomer', label: 'Newcomer', emoji: '✨', tone: 'neutral', category: 'age', tier: 'standard',
        description: `First appeared less than ${NEWCOMER_DAYS} days before the latest block`, reason: `first appeared ${n(days)} days before the latest block`,
      });
    }
  }
  return badges;
}

/** The badges of an address in display order: holdings, signature, role, activity, age. None for an address never seen. */
export function badgesOf(f: AddressFacts, walletClass: WalletClass | null, xmss: XmssFigures | null): Badge[] {
  if (!f.exists) return [];
  const tier = tierBadge(f.chain, f.balance);
  return [...(tier ? [tier] : []), ...signatureBadges(f, xmss), ...roleBadges(f, walletClass), ...activityBadges(f), ...ageBadges(f)];
}
