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
