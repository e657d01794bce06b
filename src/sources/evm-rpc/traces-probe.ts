/**
 * Which tracer a node serves, asked once at start: geth's `debug_traceBlockByNumber` (go-qrl
 * serves it with its `debug` module), else parity's `trace_block` (some eth nodes), else none. Only
 * "method not found" counts as absent: any other answer (go-qrl will not trace the genesis block,
 * say) shows the method is there. Without a tracer, internal transfers cannot be indexed and the
 * balances of contracts that pass value on would be wrong, so the pos indexer refuses such a node
 * unless told to go without (`--no-traces`).
 */
import { isRetryable, RpcMethodNotFoundError } from './errors.ts';
import { debugTraceBlockByNumber, traceBlock, type EvmNode } from './methods.ts';
import type { TracesMode } from './block-parts.ts';

export async function probeTraces(node: EvmNode, height: number): Promise<TracesMode> {
  for (const [mode, call] of [['debug', debugTraceBlockByNumber], ['parity', traceBlock]] as const) {
    try {
      await call(node, height);
      return mode;
    } catch (error) {
      if (isRetryable(error)) throw error;
      if (!(error instanceof RpcMethodNotFoundError)) return mode;
    }
  }
  return 'none';
}

/** Why a node without a tracer is refused, and what to do about it. */
export function noTracerMessage(url: string): string {
  return (
    `the node at ${url} serves neither debug_traceBlockByNumber nor trace_block, so internal transfers (value moved by contracts) ` +
    `cannot be indexed and balances of contracts that pass value on would be wrong. Enable the debug module: ` +
    `on go-qrl, start it with --http.api qrl,debug,net,web3 (and txpool for the pending transactions). ` +
    `Or index without internal transfers: --no-traces (QUARRY_POS_TRACES=off); the API then says they are not indexed.`
  );
}
