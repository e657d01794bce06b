import type { ChainId } from '../../chain/chains.ts';
import { invalidParam } from '../problem.ts';

/**
 * Hashes as each chain's store holds them: pos `0x` + 64 lowercase hex (the EVM decoder lowercases
 * them, src/sources/evm-rpc/format.ts), pow 64 lowercase hex without a prefix (the gRPC decoder
 * writes the node's 32 bytes as hex, src/sources/qrl-grpc/decode.ts).
 */
const FORMS: Record<ChainId, { pattern: RegExp; form: string }> = {
  pos: { pattern: /^0x[0-9a-f]{64}$/i, form: '0x followed by 64 hex digits' },
  pow: { pattern: /^[0-9a-f]{64}$/i, form: '64 hex digits' },
};

/** A block or transaction hash of `chain` in its stored form (any case accepted), or a 400 naming `param`. */
export function hashParam(chain: ChainId, raw: string, param = 'hash'): string {
  const { pattern, form } = FORMS[chain];
  if (!pattern.test(raw)) throw invalidParam(param, `is not a ${chain} hash: expected ${form}`);
  return raw.toLowerCase();
}
