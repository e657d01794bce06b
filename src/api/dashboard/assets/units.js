// Amounts arrive as exact decimal strings in the chain's smallest unit. Shown figures are formatted
// from BigInt, exactly; chart coordinates are the same value as a float, for drawing only.

export const DECIMALS = { pow: 9, pos: 18 };
export const UNIT = 'quanta';

/** A raw integer amount shifted by `decimals` places, as an exact decimal string without trailing zeros: "1234.5". */
export function unitsText(raw, decimals) {
  if (raw === null || raw === undefined) return null;
  let value = BigInt(raw);
  const negative = value < 0n;
  if (negative) value = -value;
  const unit = 10n ** BigInt(decimals);
  const fraction = decimals > 0 ? (value % unit).toString().padStart(decimals, '0').replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${value / unit}${fraction ? `.${fraction}` : ''}`;
}

/** `unitsText` with thousands grouped in the integer part: "1,234.5"; "–" for no amount. */
export function groupedUnits(raw, decimals) {
  const text = unitsText(raw, decimals);
  if (text === null) return '–';
  const [int, fraction] = text.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

/** An amount in coins as an exact decimal string, trailing zeros dropped: "1234.5". */
export function coinsText(raw, chain) {
  return unitsText(raw, DECIMALS[chain]);
}

/** The exact figure in coins with thousands grouped: "1,234.5". */
export function groupedCoins(raw, chain) {
  return groupedUnits(raw, DECIMALS[chain]);
}

/**
 * A token amount in the token's own decimals, exact and grouped; a token whose decimals are
 * unknown (its creation not indexed) shows the raw integer, as the API's `*_display` fields do.
 */
export function tokenUnits(raw, decimals) {
  return groupedUnits(raw, decimals ?? 0);
}

/** The amount in coins as a float: a chart coordinate, never a shown figure. */
export function coinsNumber(raw, chain) {
  const text = coinsText(raw, chain);
  return text === null ? null : Number(text);
}

/** A short axis label: 1.2M, 35k, 0.004. */
export function compact(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return '';
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${+(value / 1e9).toPrecision(3)}B`;
  if (abs >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`;
  if (abs >= 1e3) return `${+(value / 1e3).toPrecision(3)}k`;
  if (abs === 0) return '0';
  return `${+value.toPrecision(3)}`;
}

export function shortHash(text, keep = 8) {
  if (!text) return '–';
  return text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep + 2)}`;
}

/** How long ago a `YYYY-MM-DDTHH:MM:SS` UTC time was: "12 s ago", "3 min ago", "2 h ago". */
export function ago(timestamp, now = Date.now()) {
  if (!timestamp) return '';
  const then = Date.parse(`${timestamp.replace(' ', 'T').slice(0, 19)}Z`);
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}
