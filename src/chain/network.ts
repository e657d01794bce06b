/**
 * What a chain's network is like, as its nodes say: the slot time, the slots per epoch and the width
 * of its addresses. Learned from the node by the indexer, kept per chain in the store's chain
 * settings (store/chain-network.ts), and read by every figure and parser that depends on it. The
 * defaults are what Quarry assumes before a node has been seen: the spec's "about 12 s" for pos,
 * Ethereum's 32 slots per epoch, and today's 20-byte pos addresses.
 */
import type { ChainId } from './chains.ts';

export interface ChainNetwork {
  /** Seconds per slot (pos) or target seconds between blocks (pow). */
  slotSeconds: number;
  /** Slots per epoch of the consensus layer; null on pow, which has none. */
  slotsPerEpoch: number | null;
  /** Bytes in an account address: 39 on pow; 20 or 64 on pos (go-qrllib's 64-byte addresses). */
  addressBytes: number;
  /** Where `slotSeconds` came from: the default, the beacon node's spec, or the chain's own block timestamps. */
  clockSource: ClockSource;
}

export type ClockSource = 'default' | 'beacon' | 'blocks';

/** The address widths a pos network may have: go-qrl's 20 bytes, and go-qrllib's 64 (`Q` + 128 hex). */
export const POS_ADDRESS_WIDTHS = [20, 64] as const;

export const DEFAULT_NETWORK: Readonly<Record<ChainId, Readonly<ChainNetwork>>> = {
  pow: { slotSeconds: 60, slotsPerEpoch: null, addressBytes: 39, clockSource: 'default' },
  pos: { slotSeconds: 12, slotsPerEpoch: 32, addressBytes: 20, clockSource: 'default' },
};

/** Seconds per epoch, or null on a chain without epochs. */
export function epochSeconds(network: ChainNetwork): number | null {
  return network.slotsPerEpoch === null ? null : network.slotSeconds * network.slotsPerEpoch;
}
