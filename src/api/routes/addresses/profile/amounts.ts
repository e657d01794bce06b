/**
 * Exact arithmetic for the numbers of the address profile: shares of integer amounts converted to
 * a JSON number only at the end, and amounts written in coins for people to read.
 */
import { CHAIN_INFO, type ChainId } from '../../../../chain/chains.ts';

/**
 * `100 * part / whole` as a number: exact when both fit in a double's integer range (one
 * correctly rounded division), otherwise from an exact quotient of 20 significant digits. 0 when
 * `whole` is not positive.
 */
export function percentOf(part: bigint, whole: bigint): number {
  if (whole <= 0n) return 0;
  const scaled = part * 100n;
  const limit = BigInt(Number.MAX_SAFE_INTEGER);
  if (scaled <= limit && scaled >= -limit && whole <= limit) return Number(scaled) / Number(whole);
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  // Scale the quotient to at least 20 significant digits, then let Number() round the decimal.
  const shift = Math.max(0, 20 - (magnitude.toString().length - whole.toString().length));
  const quotient = (magnitude * 10n ** BigInt(shift)) / whole;
  const value = Number(`${quotient}e-${shift}`);
  return negative ? -value : value;
}

/** An amount in coins as an exact decimal string without trailing zeros, e.g. 1234.5. */
export function formatCoins(chain: ChainId, amount: bigint): string {
  const { unitsPerCoin, decimals } = CHAIN_INFO[chain];
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  const whole = (magnitude / unitsPerCoin).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = (magnitude % unitsPerCoin).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** `units` whole coins in the chain's smallest unit. */
export function coinsToUnits(chain: ChainId, coins: bigint): bigint {
  return coins * CHAIN_INFO[chain].unitsPerCoin;
}
