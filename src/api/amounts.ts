/**
 * Amounts in the API, in one place: the unsigned decimal strings answered for amount fields, exact
 * shares of amounts as numbers, and amounts written for people (coins, token units).
 */
import type { FastifyBaseLogger } from 'fastify';
import { CHAIN_INFO, type ChainId } from '../chain/chains.ts';

// Exact shares and decimal displays of amounts are the chain's arithmetic, shared with the rollups' charts.
export { formatUnits, percentOf } from '../chain/amounts.ts';

/** An amount field as answered: an unsigned decimal string, or null. */
export type AnswerAmount = (
  value: string | bigint | null | undefined,
  address: string,
  field: string,
  /** What else identifies the amount in the log (a transaction hash, a token contract). */
  where?: Record<string, string>,
) => string | null;

/**
 * How every route writes an amount field (spec conventions 2: an unsigned integer). A negative
 * stored amount (an indexing gap, docs/api-conventions.md "Amounts") breaks that contract: it is
 * answered as null and logged as a data-integrity error naming the chain, address and field.
 */
export function answerAmounts(log: FastifyBaseLogger, chain: ChainId): AnswerAmount {
  return (value, address, field, where) => {
    if (value === null || value === undefined) return null;
    const text = typeof value === 'bigint' ? value.toString() : value;
    if (!text.startsWith('-')) return text;
    log.error({ integrity: 'negative-amount', chain, address, field, ...where, stored: text }, 'data integrity: a stored amount is negative; answered as null');
    return null;
  };
}

/** `pct` (a JSON number) as an exact fraction num/den. */
function decimalFraction(pct: number): { num: bigint; den: bigint } {
  const [mantissa, exponent = '0'] = pct.toString().toLowerCase().split('e');
  const [whole, fraction = ''] = mantissa!.split('.');
  let num = BigInt(whole! + fraction);
  let den = 10n ** BigInt(fraction.length);
  const e = Number(exponent);
  if (e >= 0) num *= 10n ** BigInt(e);
  else den *= 10n ** BigInt(-e);
  return { num, den };
}

/** The smallest amount that is at least `pct` percent of `whole`. */
export function pctThreshold(pct: number, whole: bigint): bigint {
  if (whole <= 0n) return 0n;
  const { num, den } = decimalFraction(pct);
  const a = whole * num;
  const b = 100n * den;
  return (a + b - 1n) / b;
}

/** An amount in coins as an exact decimal string with thousands separators, without trailing zeros, e.g. 1,234.5. */
export function formatCoins(chain: ChainId, amount: bigint): string {
  const { unitsPerCoin, decimals } = CHAIN_INFO[chain];
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  const whole = (magnitude / unitsPerCoin).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = (magnitude % unitsPerCoin).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** `coins` whole coins in the chain's smallest unit. */
export function coinsToUnits(chain: ChainId, coins: bigint): bigint {
  return coins * CHAIN_INFO[chain].unitsPerCoin;
}
