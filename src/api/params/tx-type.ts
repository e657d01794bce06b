import type { ChainId } from '../../chain/chains.ts';
import { TX_TYPES } from '../../chain/model.ts';
import { invalidParam } from '../problem.ts';

/** The `tx_type` parameter: one of the chain's transaction types, or a 400 listing them; null when absent. */
export function txTypeParam(chain: ChainId, raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  const allowed = TX_TYPES[chain];
  if (!allowed.includes(raw as never)) throw invalidParam('tx_type', `must be one of: ${allowed.join(', ')}`);
  return raw;
}
