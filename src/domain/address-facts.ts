/**
 * What the wallet class, badges and reputation of one address are decided from (docs/metrics.md,
 * "Wallet class", "Insights"): its summary figures, curated facts and the chain's latest block time.
 */
import type { ChainId } from '../chain/chains.ts';

export interface AddressFacts {
  chain: ChainId;
  address: string;
  /** The address has an address_summary row (it was touched by an indexed block). */
  exists: boolean;
  /** 0 when unknown (see balanceKnown). */
  balance: bigint;
  /** False when the balance (and so the totals it comes from) is unknown. */
  balanceKnown: boolean;
  totalReceived: bigint;
  totalSent: bigint;
  totalFeesPaid: bigint;
  txCount: number;
  txReceivedCount: number;
  txSentCount: number;
  firstSeen: number | null;
  lastSeen: number | null;
  /** First appearance: first transaction or earlier credit. */
  appeared: number | null;
  fundedBy: string | null;
  withdrawalCount: number;
  withdrawalTotal: bigint;
  internalTxCount: number;
  deployedCount: number;
  isContract: boolean;
  masterAddress: string | null;
  slaveCount: number;
  otsUsed: number;
  otsMaxIndex: number | null;
  label: string | null;
  labelCategory: string | null;
  exchange: { name: string; role: 'hot' | 'cold' | 'deposit_relay'; confirmed: boolean } | null;
  genesisHolder: boolean;
  /** Time of the chain's latest indexed block; null before any block. */
  tipTs: number | null;
}
