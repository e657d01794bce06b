/** A token's row as the API writes it (TokenSummary): amounts as decimal strings, times formatted. */
import { formatTimestampOrNull } from '../../../time.ts';
import { formatUnits, type AnswerAmount } from '../../amounts.ts';
import type { TokenSummaryType } from '../../schemas/token.ts';
import type { TokenSummaryRow } from './detail.read.ts';

/** `raw` of a token with `decimals` for people; the raw integer when the decimals are unknown. */
export function tokenDisplay(raw: string | null, decimals: number | null): string | null {
  return raw === null ? null : formatUnits(raw, Math.max(0, decimals ?? 0));
}

/** A token without figures (its metadata stored, none of its transfers) has no supply, holder or transfer yet. */
export function tokenSummary(row: TokenSummaryRow, amount: AnswerAmount): TokenSummaryType {
  const supply = amount(row.supply ?? '0', row.contract, 'total_supply', { token: row.contract });
  return {
    token: row.contract,
    name: row.name,
    symbol: row.symbol,
    decimals: row.decimals,
    total_supply: supply,
    total_supply_display: tokenDisplay(supply, row.decimals),
    holders: row.holders ?? 0,
    transfers: row.transfers ?? 0,
    first_transfer_height: row.first_height,
    first_transfer_at: formatTimestampOrNull(row.first_ts),
  };
}
