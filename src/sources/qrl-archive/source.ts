/**
 * The pow chain's BlockSource over a QRL v1 archive (format.ts): the blocks of its shards, in
 * height order, each shard checked whole before any of its blocks is given out.
 *
 * A shard's checks: its size and both digests against shards.json; its header (network id, genesis
 * hash, heights, record count) against shards.json; its framing (record heights contiguous, lengths
 * within the file, nothing after the last record); each record's Block parsed and decoded by the
 * gRPC source's decoder (../qrl-grpc/decode.ts: the same canonical block as from a node, the
 * block's size being its stored length); the block number equal to the record's height; the
 * genesis, fork and terminal blocks' hashes equal to shards.json's; each block's previous hash equal
 * to the hash of the block below (the store's tip for the first block given out); no block hash and
 * no transaction hash seen twice in the archive; and, at the last shard, the transaction count equal
 * to shards.json's. A check that fails ends `blocks` with a SourceHaltError at the shard's first
 * height (or the first height asked for, when that is inside the shard): the pipeline stops the
 * chain there, with the shard, the height and the check in the reason.
 *
 * Started above genesis (a resumed import), the shards below the first height asked for are read
 * again (digests, framing, hashes, links: not decoded into canonical blocks), so that the duplicate
 * check and the links cover the whole archive.
 */
import type { Logger } from 'pino';
import { SourceHaltError, type BlockSource, type CanonicalBlock, type SourceItem } from '../../chain/model.ts';
import { NodeDataError } from '../node-errors.ts';
import { decodeBlock } from '../qrl-grpc/decode.ts';
import { messages, u64, type Decoded } from '../qrl-grpc/proto.ts';
import { ArchiveCheckError, readShard, type ArchiveIndex, type ShardEntry, type ShardRecord } from './format.ts';
import { SeenHashes } from './seen.ts';

export const ARCHIVE_SOURCE_NAME = 'qrl-archive';

export interface QrlArchiveSourceOptions {
  index: ArchiveIndex;
  /** The block the store holds just below the first height asked for, if any: the first block given out must name it as parent. */
  parent?: { height: number; hash: string } | null;
  logger?: Logger;
}

/** Where the time goes: reading, checking and decoding shards (the rest of an import is writing). */
export interface ArchiveReadStats {
  shards: number;
  blocks: number;
  bytes: number;
  /** Milliseconds spent reading, checking and decoding. */
  readMs: number;
}

export interface QrlArchiveSource extends BlockSource {
  readonly index: ArchiveIndex;
  readonly stats: ArchiveReadStats;
  /** Stops reading: the iterator ends at its next step. */
  close(): void;
}

/** The hashes a stored Block carries: its own, its parent's, its transactions'. */
interface BlockHashes {
  height: number;
  /** The header's block number. */
  number: bigint;
  hash: string;
  parentHash: string;
  txHashes: string[];
}

const hex = (value: unknown): string => (value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') : '');

function parseBlock(record: ShardRecord, shard: ShardEntry): Decoded {
  try {
    return messages.Block.decode(record.bytes) as Decoded;
  } catch (error) {
    throw new ArchiveCheckError('protobuf', `the record does not parse as a Block: ${(error as Error).message}`, shard, record.height);
  }
}

function hashesOf(message: Decoded, height: number): BlockHashes {
  const header = (message.header ?? {}) as Decoded;
  const txs = (message.transactions ?? []) as Decoded[];
  return { height, number: u64(header.block_number), hash: hex(header.hash_header), parentHash: hex(header.hash_header_prev), txHashes: txs.map((tx) => hex(tx.transaction_hash)) };
}

export function createQrlArchiveSource(options: QrlArchiveSourceOptions): QrlArchiveSource {
  const { index, logger } = options;
  const stats: ArchiveReadStats = { shards: 0, blocks: 0, bytes: 0, readMs: 0 };
  let closed = false;

  /** The hashes at `height`, read again from its shard: a fingerprint seen twice is compared in full. */
  async function hashesAt(height: number): Promise<BlockHashes | null> {
    const shard = index.shards.find((s) => s.firstHeight <= height && height <= s.lastHeight);
    if (!shard) return null;
    const record = (await readShard(index, shard))[height - shard.firstHeight]!;
    return hashesOf(parseBlock(record, shard), height);
  }

  async function* blocks(from: number): AsyncIterable<SourceItem> {
    const blockHashes = new SeenHashes();
    const txHashes = new SeenHashes();
    let transactions = 0;
    let previous: string | null = null;
    /** Blocks of the shard being checked, by height: duplicates within it are compared without reading again. */
    let current = new Map<number, BlockHashes>();

    const earlier = async (height: number) => current.get(height) ?? (await hashesAt(height));

    /** The checks every block of the archive passes, whether given out or read again below a resume. */
    async function check(b: BlockHashes, shard: ShardEntry): Promise<void> {
      const fail = (check: string, detail: string) => new ArchiveCheckError(check, detail, shard, b.height);
      if (b.number !== BigInt(b.height)) throw fail('block number', `the header says block ${b.number}`);
      if (b.hash.length !== 64) throw fail('block hash', `a block hash of ${b.hash.length / 2} bytes`);
      if (b.height === 0 && b.hash !== index.genesisHash) throw fail('genesis hash', `block 0 is ${b.hash}, shards.json says ${index.genesisHash}`);
      if (b.height === index.forkHeight && b.hash !== index.forkHash) throw fail('fork hash', `block ${b.height} is ${b.hash}, shards.json's fork_hash is ${index.forkHash}`);
      if (b.height === index.terminalHeight && b.hash !== index.terminalHash) throw fail('terminal hash', `block ${b.height} is ${b.hash}, shards.json's terminal_hash is ${index.terminalHash}`);
      if (b.height > 0 && previous !== null && b.parentHash !== previous) throw fail('previous hash', `the block names ${b.parentHash} as its parent; block ${b.height - 1} is ${previous}`);
      if (b.height === from && options.parent && options.parent.height === from - 1 && b.parentHash !== options.parent.hash) {
        throw fail('previous hash', `the block names ${b.parentHash} as its parent; the store holds ${options.parent.hash} at height ${from - 1}`);
      }
      current.set(b.height, b);
      for (const at of blockHashes.add(b.hash, b.height)) {
        if ((await earlier(at))?.hash === b.hash) throw fail('duplicate block hash', `${b.hash} is also the hash of block ${at}`);
      }
      for (const tx of b.txHashes) {
        for (const at of txHashes.add(tx, b.height)) {
          const twice = at === b.height ? b.txHashes.filter((h) => h === tx).length > 1 : (await earlier(at))?.txHashes.includes(tx);
          if (twice) {
            throw fail('duplicate transaction hash', `transaction ${tx} is also in block ${at}`);
          }
        }
      }
      transactions += b.txHashes.length;
      previous = b.hash;
    }

    /** Reads and checks a shard; its canonical blocks from `from` on when `decode`. */
    async function shardBlocks(shard: ShardEntry, decode: boolean): Promise<CanonicalBlock[]> {
      const started = performance.now();
      current = new Map();
      const out: CanonicalBlock[] = [];
      const records = await readShard(index, shard);
      for (const record of records) {
        const message = parseBlock(record, shard);
        await check(hashesOf(message, record.height), shard);
        if (decode && record.height >= from) {
          let block: CanonicalBlock;
          try {
            block = decodeBlock(message, record.height, record.bytes.length);
          } catch (error) {
            if (error instanceof NodeDataError) throw new ArchiveCheckError('decode', error.message, shard, record.height);
            throw error;
          }
          out.push(block);
        }
      }
      if (shard === index.shards.at(-1) && transactions !== index.transactionCount) {
        throw new ArchiveCheckError('transaction count', `the archive holds ${transactions} transactions, shards.json says ${index.transactionCount}`, shard, shard.lastHeight);
      }
      stats.shards++;
      stats.blocks += records.length;
      stats.bytes += shard.bytes;
      stats.readMs += performance.now() - started;
      return out;
    }

    if (from <= index.terminalHeight) {
      const landing = index.shards.findIndex((s) => s.lastHeight >= from);
      if (landing > 0) logger?.info({ from, shards: landing }, 'resuming an archive import: reading the shards below it again for the links and the duplicate check');
      for (const [i, shard] of index.shards.entries()) {
        if (closed) return;
        const below = i < landing;
        let out: CanonicalBlock[];
        try {
          out = await shardBlocks(shard, !below);
        } catch (error) {
          if (!(error instanceof ArchiveCheckError)) throw error;
          throw new SourceHaltError(Math.max(from, shard.firstHeight), error.message);
        }
        for (const block of out) {
          if (closed) return;
          yield { kind: 'block', block };
        }
      }
    }
    yield { kind: 'caught-up' };
  }

  return {
    chain: 'pow',
    name: ARCHIVE_SOURCE_NAME,
    index,
    stats,
    blocks,
    close() {
      closed = true;
    },
  };
}
