/**
 * The QRL v1 archive's on-disk format, "QRL v1 canonical block stream, version 1"
 * (theQRL/qrl-v1-archive, schemas/qrl-v1-block-stream-v1.md), read and checked:
 *
 * - `shards.json` (schema `qrl.v1.archive.shards.v1`): the chain's identity (network id, genesis,
 *   fork and terminal height and hash), block and transaction counts, the shard caps, and the
 *   ordered shards, each with its file name, heights, record count, byte count, SHA-256 and
 *   SHA3-256 of the whole file.
 * - A `.qrlblk` shard: the magic `QRLV1BLK`, version (u32 LE, 1), network id (u32 LE length, then
 *   UTF-8), genesis hash (u32 LE length 32, then the bytes), first height, last height and record
 *   count (u64 LE each); then records of height (u64 LE), byte length (u64 LE) and that many bytes
 *   of the protobuf `Block` as the node stored it. No padding, no trailer.
 *
 * Every failure is an ArchiveCheckError naming the check that failed (and, in a shard, the shard
 * and the height); the source turns it into a stop of the chain at that height (source.ts).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const MAGIC = Buffer.from('QRLV1BLK', 'ascii');
export const VERSION = 1;
export const INDEX_SCHEMA = 'qrl.v1.archive.shards.v1';
export const STREAM_FORMAT = 'qrl-v1-block-stream-v1';
export const MAX_BLOCKS_PER_SHARD = 10_000;
export const MAX_SHARD_BYTES = 64 * 1024 * 1024;
/**
 * SHA-256 of the QRL v4.0.1 qrl.proto the archive's blocks are encoded with (the format pins it).
 * Quarry's qrl.proto (../qrl-grpc/qrl.proto) keeps that file's Block and Transaction messages
 * unchanged, so an archive pinned to this schema is read with the gRPC source's decoder; an archive
 * pinned to another schema is refused.
 */
export const PROTOBUF_SCHEMA_SHA256 = '0d70a3372c4668a1bf4fd42983ae01f2e0fb54b4030b808bbea78e5adadb23f0';

const HEX32 = /^[0-9a-f]{64}$/;
const SHARD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.qrlblk$/;

/** A check the archive failed: `check` names it; `shard` and `height` say where, when known. */
export class ArchiveCheckError extends Error {
  override name = 'ArchiveCheckError';
  constructor(
    readonly check: string,
    readonly detail: string,
    readonly shard?: ShardEntry,
    readonly height?: number,
  ) {
    const where = shard ? `archive shard ${shard.name} (heights ${shard.firstHeight}-${shard.lastHeight})` : 'archive shards.json';
    super(`${where}: the ${check} check failed${height === undefined ? '' : ` at height ${height}`}: ${detail}`);
  }
}

export interface ShardEntry {
  name: string;
  firstHeight: number;
  lastHeight: number;
  recordCount: number;
  bytes: number;
  sha256: string;
  sha3_256: string;
}

export interface ArchiveIndex {
  /** The directory holding shards.json and the shards. */
  dir: string;
  runId: string;
  networkId: string;
  genesisHash: string;
  forkHeight: number;
  forkHash: string;
  terminalHeight: number;
  terminalHash: string;
  blockCount: number;
  transactionCount: number;
  maxBlocksPerShard: number;
  maxShardBytes: number;
  shards: ShardEntry[];
}

/** `--archive`: a directory holding shards.json, or the path of a shards.json. */
export function indexPath(archive: string): string {
  return path.basename(archive) === 'shards.json' ? archive : path.join(archive, 'shards.json');
}

type Json = Record<string, unknown>;

function field<T>(object: Json, key: string, ok: (value: unknown) => boolean, what: string, shard?: ShardEntry): T {
  const value = object[key];
  if (!ok(value)) throw new ArchiveCheckError('index', `${shard ? `shards[${shard.name}].` : ''}${key} must be ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`);
  return value as T;
}

const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
const isHash = (value: unknown) => typeof value === 'string' && HEX32.test(value);
const isText = (value: unknown) => typeof value === 'string' && value.length > 0;

/** Reads and checks shards.json: its schema, identity, counts, caps and the shards' contiguous heights. */
export async function readArchiveIndex(archive: string): Promise<ArchiveIndex> {
  const file = indexPath(archive);
  let raw: Json;
  try {
    raw = JSON.parse(await readFile(file, 'utf8')) as Json;
  } catch (error) {
    throw new ArchiveCheckError('index', `cannot read ${file}: ${(error as Error).message}`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ArchiveCheckError('index', `${file} is not a JSON object`);
  if (raw.schema !== INDEX_SCHEMA) throw new ArchiveCheckError('index', `schema must be ${INDEX_SCHEMA}, got ${JSON.stringify(raw.schema)}`);
  if (raw.block_stream_format !== STREAM_FORMAT) throw new ArchiveCheckError('index', `block_stream_format must be ${STREAM_FORMAT}, got ${JSON.stringify(raw.block_stream_format)}`);
  if (raw.protobuf_schema_sha256 !== PROTOBUF_SCHEMA_SHA256) {
    throw new ArchiveCheckError('index', `protobuf_schema_sha256 is ${JSON.stringify(raw.protobuf_schema_sha256)}: Quarry's decoder reads the blocks of the qrl.proto pinned as ${PROTOBUF_SCHEMA_SHA256}`);
  }
  const networkId = field<string>(raw, 'network_id', (v) => isText(v) && Buffer.byteLength(v as string) <= 128, 'a network id of 1 to 128 bytes');
  const index: ArchiveIndex = {
    dir: path.dirname(file),
    runId: field<string>(raw, 'run_id', isText, 'a text'),
    networkId,
    genesisHash: field<string>(raw, 'genesis_hash', isHash, '64 lowercase hex digits'),
    forkHeight: field<number>(raw, 'fork_height', isCount, 'a height'),
    forkHash: field<string>(raw, 'fork_hash', isHash, '64 lowercase hex digits'),
    terminalHeight: field<number>(raw, 'terminal_height', isCount, 'a height'),
    terminalHash: field<string>(raw, 'terminal_hash', isHash, '64 lowercase hex digits'),
    blockCount: field<number>(raw, 'block_count', isCount, 'a count'),
    transactionCount: field<number>(raw, 'transaction_count', isCount, 'a count'),
    maxBlocksPerShard: field<number>(raw, 'max_blocks_per_shard', (v) => isCount(v) && (v as number) >= 1 && (v as number) <= MAX_BLOCKS_PER_SHARD, `from 1 to ${MAX_BLOCKS_PER_SHARD}`),
    maxShardBytes: field<number>(raw, 'max_shard_bytes', (v) => isCount(v) && (v as number) >= 1024 && (v as number) <= MAX_SHARD_BYTES, `from 1024 to ${MAX_SHARD_BYTES}`),
    shards: [],
  };
  if (index.forkHeight > index.terminalHeight) throw new ArchiveCheckError('index', `fork_height ${index.forkHeight} is above terminal_height ${index.terminalHeight}`);
  if (index.blockCount !== index.terminalHeight + 1) throw new ArchiveCheckError('index', `block_count ${index.blockCount} is not terminal_height + 1 (${index.terminalHeight + 1})`);
  const shards = raw.shards;
  if (!Array.isArray(shards) || shards.length === 0) throw new ArchiveCheckError('index', 'shards must be a non-empty list');
  const names = new Set<string>();
  let next = 0;
  for (const [i, entry] of shards.entries()) {
    if (!entry || typeof entry !== 'object') throw new ArchiveCheckError('index', `shards[${i}] is not an object`);
    const e = entry as Json;
    const name = field<string>(e, 'name', (v) => typeof v === 'string' && SHARD_NAME.test(v), 'a file name ending in .qrlblk');
    if (names.has(name)) throw new ArchiveCheckError('index', `shard ${name} is listed twice`);
    names.add(name);
    const shard: ShardEntry = { name, firstHeight: 0, lastHeight: 0, recordCount: 0, bytes: 0, sha256: '', sha3_256: '' };
    shard.firstHeight = field(e, 'first_height', isCount, 'a height', shard);
    shard.lastHeight = field(e, 'last_height', isCount, 'a height', shard);
    shard.recordCount = field(e, 'record_count', isCount, 'a count', shard);
    shard.bytes = field(e, 'bytes', isCount, 'a byte count', shard);
    shard.sha256 = field(e, 'sha256', isHash, '64 lowercase hex digits', shard);
    shard.sha3_256 = field(e, 'sha3_256', isHash, '64 lowercase hex digits', shard);
    if (shard.firstHeight !== next) throw new ArchiveCheckError('index', `shard ${name} starts at height ${shard.firstHeight} where ${next} was due`);
    if (shard.recordCount < 1 || shard.recordCount > index.maxBlocksPerShard || shard.lastHeight !== shard.firstHeight + shard.recordCount - 1) {
      throw new ArchiveCheckError('index', `shard ${name}: heights ${shard.firstHeight}-${shard.lastHeight} do not hold its ${shard.recordCount} records (1 to ${index.maxBlocksPerShard})`);
    }
    if (shard.bytes > index.maxShardBytes) throw new ArchiveCheckError('index', `shard ${name}: ${shard.bytes} bytes is over the cap of ${index.maxShardBytes}`);
    index.shards.push(shard);
    next = shard.lastHeight + 1;
  }
  if (next !== index.terminalHeight + 1) throw new ArchiveCheckError('index', `the shards end at height ${next - 1}, not at terminal_height ${index.terminalHeight}`);
  return index;
}

/** One record of a shard: its height and the stored protobuf bytes of its Block. */
export interface ShardRecord {
  height: number;
  bytes: Buffer;
}

/**
 * Reads a shard and checks it against its index entry (size, both digests), its header against
 * the index (network id, genesis hash, heights, record count), and its framing (record heights
 * contiguous from the first, lengths within the file, nothing after the last record).
 */
export async function readShard(index: ArchiveIndex, shard: ShardEntry): Promise<ShardRecord[]> {
  let data: Buffer;
  try {
    data = await readFile(path.join(index.dir, shard.name));
  } catch (error) {
    throw new ArchiveCheckError('shard file', (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file is missing' : (error as Error).message, shard, shard.firstHeight);
  }
  const fail = (check: string, detail: string, height = shard.firstHeight) => new ArchiveCheckError(check, detail, shard, height);
  if (data.length !== shard.bytes) throw fail('size', `${data.length} bytes where shards.json says ${shard.bytes}`);
  const sha256 = createHash('sha256').update(data).digest('hex');
  if (sha256 !== shard.sha256) throw fail('sha256', `the file's SHA-256 is ${sha256}, shards.json says ${shard.sha256}`);
  const sha3 = createHash('sha3-256').update(data).digest('hex');
  if (sha3 !== shard.sha3_256) throw fail('sha3-256', `the file's SHA3-256 is ${sha3}, shards.json says ${shard.sha3_256}`);

  let pos = 0;
  const take = (n: number, what: string, height: number): Buffer => {
    if (n > data.length - pos) throw fail('framing', `the file ends inside ${what}`, height);
    const out = data.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const u32 = (what: string) => take(4, what, shard.firstHeight).readUInt32LE(0);
  const u64 = (what: string, height: number) => {
    const value = take(8, what, height).readBigUInt64LE(0);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw fail('framing', `${what} ${value} is too large`, height);
    return Number(value);
  };
  if (!take(MAGIC.length, 'the magic', shard.firstHeight).equals(MAGIC)) throw fail('header', 'the file does not start with QRLV1BLK');
  const version = u32('the version');
  if (version !== VERSION) throw fail('header', `version ${version}; this reader knows version ${VERSION}`);
  const networkLength = u32('the network id length');
  if (networkLength < 1 || networkLength > 128) throw fail('header', `a network id of ${networkLength} bytes`);
  const networkId = take(networkLength, 'the network id', shard.firstHeight).toString('utf8');
  if (networkId !== index.networkId) throw fail('network id', `the shard says ${JSON.stringify(networkId)}, shards.json ${JSON.stringify(index.networkId)}`);
  const genesisLength = u32('the genesis hash length');
  if (genesisLength !== 32) throw fail('header', `a genesis hash of ${genesisLength} bytes`);
  const genesis = take(32, 'the genesis hash', shard.firstHeight).toString('hex');
  if (genesis !== index.genesisHash) throw fail('genesis hash', `the shard says ${genesis}, shards.json ${index.genesisHash}`);
  const first = u64('the first height', shard.firstHeight);
  const last = u64('the last height', shard.firstHeight);
  const count = u64('the record count', shard.firstHeight);
  if (first !== shard.firstHeight || last !== shard.lastHeight || count !== shard.recordCount) {
    throw fail('header', `heights ${first}-${last} and ${count} records where shards.json says ${shard.firstHeight}-${shard.lastHeight} and ${shard.recordCount}`);
  }

  const records: ShardRecord[] = [];
  for (let height = first; height <= last; height++) {
    const recorded = u64('a record height', height);
    if (recorded !== height) throw fail('height', `a record of height ${recorded} where ${height} was due`, height);
    const length = u64('a record length', height);
    if (length < 1) throw fail('framing', 'an empty record', height);
    records.push({ height, bytes: take(length, `the record of ${length} bytes`, height) });
  }
  if (pos !== data.length) throw fail('framing', `${data.length - pos} bytes after the last record`, last);
  return records;
}
