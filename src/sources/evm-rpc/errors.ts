/**
 * The evm-rpc error taxonomy. Every failure the indexer sees is either retryable (the node or the
 * network may answer next time: timeouts, 5xx, 429, rate-limit codes, a reorg racing our reads)
 * or not (the node answered, and the answer is final: unknown method, reverted call, malformed
 * data). Callers branch on `retryable`, never on message text.
 */
export { NodeDataError } from '../node-errors.ts';

export class RpcError extends Error {
  readonly retryable: boolean;
  /** JSON-RPC error code, or HTTP status for transport failures. */
  readonly code: number | undefined;
  readonly method: string | undefined;
  /** Raw JSON-RPC `error.data` (revert data of eth_call), when the node sent one. */
  readonly data: unknown;

  constructor(message: string, options: { retryable: boolean; code?: number; method?: string; data?: unknown; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RpcError';
    this.retryable = options.retryable;
    this.code = options.code;
    this.method = options.method;
    this.data = options.data;
  }
}

/** The node does not offer the method (so a fallback should be tried, not a retry). */
export class RpcMethodNotFoundError extends RpcError {
  constructor(method: string, message: string, code?: number) {
    super(`${method}: ${message}`, { retryable: false, code, method });
    this.name = 'RpcMethodNotFoundError';
  }
}

/**
 * Parts of one block that disagree with each other (receipts of another block hash, a trace per
 * transaction count that does not match): the node's chain moved between our reads. Retryable:
 * reading the block again gives a consistent picture.
 */
export class InconsistentBlockError extends RpcError {
  constructor(message: string) {
    super(message, { retryable: true });
    this.name = 'InconsistentBlockError';
  }
}

export function isRetryable(error: unknown): boolean {
  return error instanceof RpcError && error.retryable;
}

// JSON-RPC codes that mean "ask again later" on common nodes and gateways: -32005 limit exceeded
// (EIP-1474), 429 sent as a code by some gateways, -32098/-32099 server busy (Nethermind, reth).
const RETRYABLE_CODES = new Set([-32005, 429, -32098, -32099]);
const RETRYABLE_MESSAGE = /rate limit|too many requests|timeout|timed out|try again|busy|limit exceeded|header not found|temporarily|unavailable|overloaded|capacity/i;
// Codes and messages of nodes that do not implement a method (geth answers -32601 "the method
// x does not exist/is not available"; others say "not supported" or "unsupported").
const NOT_FOUND_MESSAGE = /method .*(not found|does not exist|not available|not supported|unsupported)|^method not found|not implemented|unsupported method|unknown method/i;

/** Classifies a JSON-RPC `error` object of a response. */
export function errorFromRpc(method: string, error: { code?: unknown; message?: unknown; data?: unknown }): RpcError {
  const code = typeof error.code === 'number' ? error.code : undefined;
  const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
  if (code === -32601 || NOT_FOUND_MESSAGE.test(message)) return new RpcMethodNotFoundError(method, message, code);
  const retryable = (code !== undefined && RETRYABLE_CODES.has(code)) || RETRYABLE_MESSAGE.test(message);
  return new RpcError(`${method}: ${message}`, { retryable, code, method, data: error.data });
}
