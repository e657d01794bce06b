/**
 * The `window` parameter: a positive integer and a unit (m, h, d, w, y = 365 days), or `all`
 * where an endpoint allows the full history. More than ten years is refused. Some endpoints snap
 * the day count up to the nearest UI tier. A length in minutes or hours is `rolling`: where the
 * answer is not a per-day series it is exactly that many seconds ending at the latest block
 * (src/domain/window.ts); per-day series round it up to whole days.
 */
import { invalidParam } from '../problem.ts';
import { DAY_SECONDS } from '../../time.ts';

/** A length: what every window parameter takes. */
export const WINDOW_PATTERN = '^[1-9][0-9]*[mhdwy]$';
/** A length or `all`: a window that may ask for the whole history. */
export const WINDOW_OR_ALL_PATTERN = '^(?:[1-9][0-9]*[mhdwy]|all)$';
const WINDOW_TIERS = [1, 7, 14, 30, 60, 90, 180, 365, 730, 1095, 1825, 3650] as const;
const MAX_WINDOW_DAYS = 3650;

const UNIT_SECONDS = { m: 60, h: 3600, d: DAY_SECONDS, w: 7 * DAY_SECONDS, y: 365 * DAY_SECONDS } as const;

export interface Window {
  /** The whole history was asked for. */
  all: boolean;
  /** Length in seconds (null when `all`). */
  seconds: number | null;
  /** Length in whole days, rounded up, or snapped to a tier (null when `all`). */
  days: number | null;
  /** Given in minutes or hours (and not snapped): `seconds` is the exact length. */
  rolling: boolean;
}

export interface WindowOptions {
  /** Window used when the parameter is absent. */
  fallback: string;
  /** Whether `all` is accepted. */
  allowAll?: boolean;
  /** Snap the day count up to the nearest UI tier (and the length with it). */
  snapToTier?: boolean;
  param?: string;
}

export function parseWindow(raw: string | null | undefined, options: WindowOptions): Window {
  const param = options.param ?? 'window';
  const text = raw == null || raw === '' ? options.fallback : raw;
  if (text === 'all') {
    if (!options.allowAll) throw invalidParam(param, 'must be a length such as 24h, 7d or 90d; all is not accepted here');
    return { all: true, seconds: null, days: null, rolling: false };
  }
  const match = /^([1-9][0-9]{0,15})([mhdwy])$/.exec(text);
  if (!match) {
    throw invalidParam(param, `must be a positive whole number followed by m, h, d, w or y (for example 7d)${options.allowAll ? ', or all' : ''}`);
  }
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  if (seconds > MAX_WINDOW_DAYS * DAY_SECONDS) throw invalidParam(param, `must not exceed 10 years (${MAX_WINDOW_DAYS} days)`);
  const days = Math.ceil(seconds / DAY_SECONDS);
  if (!options.snapToTier) return { all: false, seconds, days, rolling: match[2] === 'm' || match[2] === 'h' };
  const tier = WINDOW_TIERS.find((t) => t >= days) ?? MAX_WINDOW_DAYS;
  return { all: false, seconds: tier * DAY_SECONDS, days: tier, rolling: false };
}
