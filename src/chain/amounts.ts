/**
 * Exact arithmetic on amounts (integers of a chain's smallest unit), never through a float until
 * the answer: a share as a percentage, and the decimal display of an amount in coins.
 */

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

/**
 * Exact decimal display of a raw integer amount: the integer shifted `decimals` places, without
 * trailing zeros, never through a float. `formatUnits('1500000000000000000', 18)` is `'1.5'`.
 */
export function formatUnits(raw: string, decimals: number): string {
  if (!/^-?[0-9]+$/.test(raw)) throw new Error(`not an integer amount: ${raw}`);
  const negative = raw.startsWith('-');
  const digits = (negative ? raw.slice(1) : raw).replace(/^0+(?=[0-9])/, '');
  if (decimals <= 0) return (negative && digits !== '0' ? '-' : '') + digits;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : whole;
  return negative && text !== '0' ? `-${text}` : text;
}
