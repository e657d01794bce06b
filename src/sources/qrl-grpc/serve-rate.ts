/**
 * How fast a QRL node serves what the pow indexer reads per block (GetBlockByNumber), read the way
 * a fast client would: many calls in flight, nothing decoded. The backfill's blocks/s divided by
 * this is the indexer's efficiency against that node.
 */
import { createQrlClient } from './client.ts';

export interface PowServeRate {
  blocks: number;
  bytes: number;
  seconds: number;
  blocksPerSecond: number;
}

export async function measurePowServeRate(address: string, range: { from: number; to: number }, concurrency = 16): Promise<PowServeRate> {
  const client = createQrlClient({ address, concurrency });
  let next = range.from;
  let bytes = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next <= range.to) {
          const height = next++;
          bytes += (await client.raw('GetBlockByNumber', { block_number: height })).length;
        }
      }),
    );
  } finally {
    client.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const blocks = range.to - range.from + 1;
  return { blocks, bytes, seconds, blocksPerSecond: blocks / seconds };
}
