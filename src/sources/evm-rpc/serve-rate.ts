/**
 * How fast a node can serve what the pos indexer reads per block (the block with transactions,
 * its receipts, its call traces), read the way a fast client would: several blocks per batched
 * HTTP request, several requests in flight, nothing decoded beyond JSON.parse. The backfill's
 * blocks/s divided by this is the indexer's efficiency against that node.
 */
import { toQuantity } from './format.ts';
import type { RpcNamespace } from './methods.ts';

export interface ServeRateOptions {
  namespace?: RpcNamespace;
  /** Blocks per HTTP request (3 calls each). Default 10. */
  blocksPerRequest?: number;
  /** HTTP requests in flight. Default 8. */
  concurrency?: number;
  /** Use trace_block instead of debug_traceBlockByNumber. */
  traces?: 'debug' | 'parity';
}

export interface ServeRate {
  from: number;
  to: number;
  blocks: number;
  transactions: number;
  seconds: number;
  blocksPerSecond: number;
}

/**
 * Reads `blocks` (the newest N blocks, or an inclusive range) and reports blocks per second.
 * Throws if the node answers any call with an error.
 */
export async function measureNodeServeRate(rpcUrl: string, blocks: number | { from: number; to: number }, options: ServeRateOptions = {}): Promise<ServeRate> {
  const ns = options.namespace ?? 'eth';
  const perRequest = Math.max(1, options.blocksPerRequest ?? 10);
  const concurrency = Math.max(1, options.concurrency ?? 8);
  let id = 0;
  const post = async (body: unknown): Promise<unknown> => {
    const response = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  };
  let range: { from: number; to: number };
  if (typeof blocks === 'number') {
    const head = Number(((await post({ jsonrpc: '2.0', id: ++id, method: `${ns}_blockNumber`, params: [] })) as { result: string }).result);
    range = { from: Math.max(0, head - blocks + 1), to: head };
  } else {
    range = blocks;
  }
  const heights = Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i);
  const chunks: number[][] = [];
  for (let i = 0; i < heights.length; i += perRequest) chunks.push(heights.slice(i, i + perRequest));

  let transactions = 0;
  let nextChunk = 0;
  const started = performance.now();
  const worker = async () => {
    while (nextChunk < chunks.length) {
      const chunk = chunks[nextChunk++]!;
      const body = chunk.flatMap((height) => {
        const tag = toQuantity(height);
        return [
          { jsonrpc: '2.0', id: ++id, method: `${ns}_getBlockByNumber`, params: [tag, true] },
          { jsonrpc: '2.0', id: ++id, method: `${ns}_getBlockReceipts`, params: [tag] },
          options.traces === 'parity'
            ? { jsonrpc: '2.0', id: ++id, method: 'trace_block', params: [tag] }
            : { jsonrpc: '2.0', id: ++id, method: 'debug_traceBlockByNumber', params: [tag, { tracer: 'callTracer' }] },
        ];
      });
      const answers = (await post(body)) as { result?: { transactions?: unknown } | null; error?: { message: string } }[];
      for (const answer of answers) {
        if (answer.error) throw new Error(answer.error.message);
        if (answer.result && Array.isArray(answer.result.transactions)) transactions += answer.result.transactions.length;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { ...range, blocks: heights.length, transactions, seconds, blocksPerSecond: heights.length / seconds };
}
