/**
 * A writer of the QRL v1 archive format (src/sources/qrl-archive/format.ts) for tests: the fake
 * node's chain (test/fakes/qrl-node) as the node stores it, each block the protobuf `Block` bytes
 * the node serves, cut into shards of a few hundred blocks, with a shards.json holding real
 * SHA-256 and SHA3-256 digests. Written here from the published description of the format, so the
 * reader is checked against an independent writer.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import type { SourceItem } from '../../../src/chain/model.ts';
import { POW_DEMO_NETWORK_ID } from '../../../src/sources/synthetic/pow.ts';
import { encodeItem, KeyBook, type EncodeOptions } from '../qrl-node/encode.ts';

/** The pins the published format requires in shards.json (qrl.proto, qrl_pb2.py and its descriptor of QRL v4.0.1). */
export const PINS = {
  protobuf_schema_sha256: '0d70a3372c4668a1bf4fd42983ae01f2e0fb54b4030b808bbea78e5adadb23f0',
  protobuf_binding_sha256: 'a6d9fdd3d3490ae04171c4a6fd777bfc42ca2f38f73788893069cc366f7cd4d3',
  protobuf_descriptor_sha256: '9e65bd19e719a916f46ff2f3b9e5696996c2ae0203d0f9068e707395baf357f0',
};

export interface ArchiveBlock {
  height: number;
  hash: string;
  /** The stored protobuf Block. */
  raw: Buffer;
  txCount: number;
}

/** The Block inside an encoded GetBlockByNumberResp (field 1), byte for byte. */
function blockField(response: Buffer): Buffer {
  const reader = protobuf.Reader.create(response);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 2) {
      const length = reader.uint32();
      return response.subarray(reader.pos, reader.pos + length);
    }
    reader.skipType(tag & 7);
  }
  throw new Error('no block in the answer');
}

/**
 * The chain a fake node holds after `items` (a block at a height it has replaces that height and
 * all above it), encoded as the node encodes it (the same options as startNodeWithChain's node).
 */
export function archiveBlocks(items: SourceItem[], options: EncodeOptions = { signatureBytes: 64 }): ArchiveBlock[] {
  const keys = new KeyBook();
  const chain: (ArchiveBlock | null)[] = [];
  for (const item of items) {
    if (item.kind === 'caught-up') continue;
    const height = item.kind === 'block' ? item.block.height : item.height;
    chain.length = height;
    const encoded = encodeItem(item, keys, options);
    chain.push(encoded.view.kind === 'block' ? { height, hash: encoded.hash, raw: Buffer.from(blockField(encoded.response)), txCount: encoded.view.block.transactions.length } : null);
  }
  return chain.map((block, height) => {
    if (!block) throw new Error(`the chain's block ${height} does not decode: an archive holds only whole blocks`);
    return block;
  });
}

export interface ShardJson {
  name: string;
  first_height: number;
  last_height: number;
  record_count: number;
  bytes: number;
  sha256: string;
  sha3_256: string;
}

export type IndexJson = Record<string, unknown> & { shards: ShardJson[]; genesis_hash: string; network_id: string };

export interface WriteOptions {
  networkId?: string;
  /** Blocks per shard (default 250). */
  shardBlocks?: number;
  runId?: string;
  /** Default: the terminal height. */
  forkHeight?: number;
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

/** A shard's bytes: header, then each record's height, length and bytes. */
export function shardBytes(networkId: string, genesisHash: string, blocks: { height: number; raw: Buffer }[], header: { first?: number; last?: number; count?: number } = {}): Buffer {
  const network = Buffer.from(networkId, 'utf8');
  const parts: Buffer[] = [
    Buffer.from('QRLV1BLK', 'ascii'), u32(1), u32(network.length), network, u32(32), Buffer.from(genesisHash, 'hex'),
    u64(header.first ?? blocks[0]!.height), u64(header.last ?? blocks.at(-1)!.height), u64(header.count ?? blocks.length),
  ];
  for (const block of blocks) parts.push(u64(block.height), u64(block.raw.length), block.raw);
  return Buffer.concat(parts);
}

const digests = (data: Buffer) => ({
  bytes: data.length,
  sha256: createHash('sha256').update(data).digest('hex'),
  sha3_256: createHash('sha3-256').update(data).digest('hex'),
});

/** Sorted keys, compact, one trailing newline: how the format's writers serialise the index. */
function serialise(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v;
  return JSON.stringify(sort(value)) + '\n';
}

export function writeIndex(dir: string, index: IndexJson): void {
  writeFileSync(path.join(dir, 'shards.json'), serialise(index));
}

export function readIndex(dir: string): IndexJson {
  return JSON.parse(readFileSync(path.join(dir, 'shards.json'), 'utf8')) as IndexJson;
}

/** Writes `blocks` (heights 0..n-1) as an archive in `dir`; returns its index. */
export function writeArchive(dir: string, blocks: ArchiveBlock[], options: WriteOptions = {}): IndexJson {
  mkdirSync(dir, { recursive: true });
  const networkId = options.networkId ?? POW_DEMO_NETWORK_ID;
  const per = options.shardBlocks ?? 250;
  const runId = options.runId ?? 'quarry-test';
  const genesisHash = blocks[0]!.hash;
  const shards: ShardJson[] = [];
  for (let first = 0; first < blocks.length; first += per) {
    const part = blocks.slice(first, first + per);
    const name = `${runId}-blocks-${String(first).padStart(10, '0')}.qrlblk`;
    const data = shardBytes(networkId, genesisHash, part);
    writeFileSync(path.join(dir, name), data);
    shards.push({ name, first_height: first, last_height: part.at(-1)!.height, record_count: part.length, ...digests(data) });
  }
  const terminal = blocks.at(-1)!;
  const fork = blocks[options.forkHeight ?? terminal.height]!;
  const index: IndexJson = {
    schema: 'qrl.v1.archive.shards.v1',
    block_stream_format: 'qrl-v1-block-stream-v1',
    ...PINS,
    run_id: runId,
    network_id: networkId,
    genesis_hash: genesisHash,
    fork_height: fork.height,
    fork_hash: fork.hash,
    terminal_height: terminal.height,
    terminal_hash: terminal.hash,
    block_count: blocks.length,
    transaction_count: blocks.reduce((n, b) => n + b.txCount, 0),
    max_blocks_per_shard: Math.max(per, 1),
    max_shard_bytes: 64 * 1024 * 1024,
    shards,
  };
  writeIndex(dir, index);
  return index;
}

/** Replaces shard `i`'s file with `data` and writes its size and digests into shards.json (a damage the digests do not catch). */
export function replaceShard(dir: string, i: number, data: Buffer): void {
  const index = readIndex(dir);
  const shard = index.shards[i]!;
  writeFileSync(path.join(dir, shard.name), data);
  Object.assign(shard, digests(data));
  writeIndex(dir, index);
}
