/**
 * The two chains Quarry indexes, and the facts about them every layer shares. What a chain's
 * network decides (its slot time, its address width) is not here: chain/network.ts.
 */
import { POS_ADDRESS_WIDTHS } from './network.ts';

export const CHAINS = ['pow', 'pos'] as const;
export type ChainId = (typeof CHAINS)[number];

export function isChainId(value: string): value is ChainId {
  return value === 'pow' || value === 'pos';
}

export interface ChainInfo {
  id: ChainId;
  /** Smallest units per coin (quanta): 10^9 shor on pow, 10^18 planck on pos. */
  unitsPerCoin: bigint;
  /** Decimal digits of the smallest unit. */
  decimals: number;
  unitName: 'shor' | 'planck';
}

export const CHAIN_INFO: Record<ChainId, ChainInfo> = {
  pow: { id: 'pow', unitsPerCoin: 10n ** 9n, decimals: 9, unitName: 'shor' },
  pos: { id: 'pos', unitsPerCoin: 10n ** 18n, decimals: 18, unitName: 'planck' },
};

/** 1 shor = 10^9 planck: the factor that puts both chains in one unit (shor). */
export const PLANCK_PER_SHOR = 10n ** 9n;

/** The pow coinbase sender: a 32-byte zero sentinel, shown as `Q` + 64 zeros. */
export const POW_COINBASE_SENTINEL = 'Q' + '0'.repeat(64);
/** The pos zero address of a network whose addresses have `width` bytes (`Q` + 2 × width zeros), sender of mints. */
export function posZeroAddress(width: number): string {
  return 'Q' + '0'.repeat(2 * width);
}

/** The zero address of 20-byte pos networks. */
export const POS_ZERO_ADDRESS = posZeroAddress(20);

/** The sentinels of each chain; on pos the zero address of every width (a store holds one width only). */
export const SENTINELS: Record<ChainId, readonly string[]> = {
  pow: [POW_COINBASE_SENTINEL],
  pos: POS_ADDRESS_WIDTHS.map(posZeroAddress),
};

export function isSentinel(chain: ChainId, address: string): boolean {
  return SENTINELS[chain].includes(address);
}
