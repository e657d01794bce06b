/**
 * Wallet classes (docs/metrics.md, "Wallet class"): ordered rules, the first that matches decides.
 * Each answer says how it was reached (`method`: protocol, curated, onchain or heuristic) and why
 * (`reason`, one sentence naming the evidence).
 */
import { isSentinel, POW_COINBASE_SENTINEL } from '../chain/chains.ts';
import { DAY_SECONDS } from '../time.ts';
import type { AddressFacts } from './address-facts.ts';

type WalletClassMethod = 'protocol' | 'curated' | 'onchain' | 'heuristic';

export interface WalletClass {
  walletClass: string;
  method: WalletClassMethod;
  reason: string;
}

/** Label categories that name a class of their own; any other category is the class `entity`. */
const LABEL_CLASSES = new Set(['exchange', 'mining_pool', 'custodial', 'treasury', 'contract', 'migration']);

/** An address doing at least this many transactions, at least AUTOMATED_PER_DAY a day over its life, is automated. */
const AUTOMATED_MIN_TXS = 1_000;
const AUTOMATED_PER_DAY = 50;

const count = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** The class of an address, or null for one never seen and not curated. */
export function classifyWallet(f: AddressFacts): WalletClass | null {
  if (isSentinel(f.chain, f.address)) {
    return {
      walletClass: 'protocol',
      method: 'protocol',
      reason: f.address === POW_COINBASE_SENTINEL
        ? 'the coinbase sentinel: the sender of block rewards, not a wallet'
        : 'the zero address: the sender of mints, not a wallet',
    };
  }
  if (f.exchange) {
    if (f.exchange.role !== 'deposit_relay') {
      return { walletClass: 'exchange', method: 'curated', reason: `curated ${f.exchange.role} wallet of ${f.exchange.name}` };
    }
    return f.exchange.confirmed
      ? { walletClass: 'exchange_deposit', method: 'curated', reason: `curated deposit relay of ${f.exchange.name}` }
      : { walletClass: 'exchange_deposit', method: 'heuristic', reason: `suspected deposit relay of ${f.exchange.name} (link not confirmed)` };
  }
  if (f.labelCategory) {
    const walletClass = LABEL_CLASSES.has(f.labelCategory) ? f.labelCategory : 'entity';
    return { walletClass, method: 'curated', reason: `labelled ${f.label} (${f.labelCategory})` };
  }
  if (!f.exists) return null;
  if (f.isContract) return { walletClass: 'contract', method: 'onchain', reason: 'created by a contract-creation transaction' };
  if (f.masterAddress) return { walletClass: 'slave_key', method: 'onchain', reason: `slave key registered by ${f.masterAddress}` };
  if (f.withdrawalCount > 0) {
    return { walletClass: 'staker', method: 'onchain', reason: `receives consensus-layer withdrawals (${count(f.withdrawalCount, 'withdrawal')})` };
  }
  // The genesis coinbase pays the premine, not a block reward.
  if (f.fundedBy === POW_COINBASE_SENTINEL && f.chain === 'pow' && !f.genesisHolder) {
    return { walletClass: 'miner', method: 'heuristic', reason: 'first funded by a block reward' };
  }
  if (f.txCount >= AUTOMATED_MIN_TXS && f.firstSeen !== null && f.lastSeen !== null) {
    const days = Math.max(1, Math.ceil((f.lastSeen - f.firstSeen) / DAY_SECONDS));
    if (f.txCount >= AUTOMATED_PER_DAY * days) {
      return { walletClass: 'automated', method: 'heuristic', reason: `${count(f.txCount, 'transaction')} in ${count(days, 'day')}: faster than a person transacts by hand` };
    }
  }
  if (f.balance > 0n && f.txSentCount === 0) return { walletClass: 'holder', method: 'heuristic', reason: 'holds coins and has never sent a transaction' };
  return { walletClass: 'individual', method: 'heuristic', reason: 'no entity signal: an ordinary wallet' };
}

/** The classes that are entities (docs/metrics.md, "Wallet class"); a deposit relay is one only when confirmed. */
const ENTITY_CLASSES = new Set(['protocol', 'exchange', 'mining_pool', 'custodial', 'treasury', 'contract', 'migration', 'entity']);

/** Whether a class is an entity's (custodial, protocol or curated) rather than an individual's. */
export function isEntityClass(c: WalletClass): boolean {
  return ENTITY_CLASSES.has(c.walletClass) || (c.walletClass === 'exchange_deposit' && c.method === 'curated');
}
