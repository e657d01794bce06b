/**
 * `quarry index pow --archive`: the fake node's chain (with reorgs behind it, undecodable answers
 * replaced, every transaction subtype the generator makes, multisig ones included) written as a QRL v1 archive by the test tree's own writer
 * (test/fakes/qrl-archive), in shards of 100 blocks with real digests. Indexing it must give the
 * store that ingesting the generator directly gives (the store the gRPC indexer is held to in
 * pow-grpc.test.ts); a damaged archive stops the chain at the first height of the damaged shard,
 * naming the shard, the height and the check, with nothing written from that shard on.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import type { SourceItem } from '../../src/chain/model.ts';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { ChainStalledError } from '../../src/ingest/pipeline.ts';
import { indexPow, indexPowArchive } from '../../src/ingest/index-pow.ts';
import { ConfigError } from '../../src/config/env.ts';
import type { Store } from '../../src/store/store.ts';
import { messages } from '../../src/sources/qrl-grpc/proto.ts';
import { describeEachStore, openTestStore, singleStoreKinds } from '../support/stores.ts';
import { FakeQrlNode } from '../fakes/qrl-node/server.ts';
import { feed, generatePowItems, referenceDigest, startNodeWithChain, storeDigest } from '../fakes/qrl-node/world.ts';
import { archiveBlocks, readIndex, replaceShard, shardBytes, writeArchive, writeIndex, type ArchiveBlock } from '../fakes/qrl-archive/writer.ts';

const silent = pino({ level: 'silent' });
const SHARD = 100;
/** The second shard's file name and heights, as the reasons name them. */
const SECOND = `quarry-test-blocks-0000000${SHARD}\\.qrlblk \\(heights ${SHARD}-${2 * SHARD - 1}\\)`;

let items: SourceItem[];
let blocks: ArchiveBlock[];
let expected: Record<string, string>;
let work: string;
/** The whole chain as an archive. */
let whole: string;

before(async () => {
  // With multisig bodies and reused keys: the archive's blocks go through the gRPC source's decoder.
  items = await generatePowItems({ days: 0.25, multiSig: 2, otsReuses: 2 });
  const views = feed(new FakeQrlNode({ signatureBytes: 64 }), items);
  expected = await referenceDigest(views);
  blocks = archiveBlocks(items);
  work = mkdtempSync(path.join(os.tmpdir(), 'quarry-pow-archive-'));
  whole = path.join(work, 'whole');
  writeArchive(whole, blocks, { shardBlocks: SHARD });
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

let copies = 0;
/** A copy of the whole archive to damage. */
function copy(): string {
  const dir = path.join(work, `copy-${++copies}`);
  cpSync(whole, dir, { recursive: true });
  return dir;
}

/**
 * Equal digests; on a difference, names the tables that differ. A final chain's store holds one
 * more row than the reference, the final mark in chain_settings (checked on its own): that table
 * is compared without it.
 */
async function assertSameStore(store: Store, wanted: Record<string, string>): Promise<void> {
  const actual = await storeDigest(store);
  const [final] = await store.query<{ n: number }>('t', sql`SELECT count(*)::int AS n FROM chain_settings WHERE chain = 'pow' AND key = 'final'`);
  if (final!.n > 0) {
    assert.match(actual.chain_settings!, /^1:/);
    assert.match(wanted.chain_settings!, /^0:/);
    actual.chain_settings = wanted.chain_settings!;
  }
  const differ = Object.keys({ ...actual, ...wanted }).filter((table) => actual[table] !== wanted[table]);
  assert.deepEqual(differ.map((t) => `${t}: ${actual[t]?.slice(0, 80)} vs ${wanted[t]?.slice(0, 80)}`), []);
}

async function topHeight(store: Store): Promise<number | null> {
  const [row] = await store.query<{ height: number | null }>('t', sql`SELECT max(height)::int AS height FROM blocks WHERE chain = 'pow'`);
  return row?.height ?? null;
}

async function stallOf(store: Store): Promise<{ height: number; reason: string; source: string } | null> {
  const [row] = await store.query<{ height: string; reason: string; source: string }>('t', sql`SELECT height::text AS height, reason, source FROM ingest_stalls WHERE chain = 'pow'`);
  return row ? { height: Number(row.height), reason: row.reason, source: row.source } : null;
}

/** Each block's record offset in its shard: header, then (height, length, bytes) per record. */
function recordOffset(networkId: string, height: number): number {
  const first = Math.floor(height / SHARD) * SHARD;
  let offset = 8 + 4 + 4 + Buffer.byteLength(networkId) + 4 + 32 + 24;
  for (let h = first; h < height; h++) offset += 16 + blocks[h]!.raw.length;
  return offset;
}

describeEachStore('quarry index pow --archive', (getStore, kind) => {
  it('indexes the archive into the store the generator ingested directly gives, and marks the chain final at the terminal block', async () => {
    const types = new Set(items.flatMap((i) => (i.kind === 'block' ? i.block.transactions.map((t) => t.type) : [])));
    for (const type of ['transfer', 'coinbase', 'latticePK', 'message', 'token', 'transfer_token', 'slave', 'multi_sig_create', 'multi_sig_spend', 'multi_sig_vote', 'unknown']) {
      assert.ok(types.has(type as never), `the chain has no ${type}`);
    }
    const heights = items.map((i) => (i.kind === 'block' ? i.block.height : i.kind === 'undecodable' ? i.height : -1));
    assert.ok(items.some((i) => i.kind === 'undecodable') && new Set(heights).size < heights.length, 'the chain has reorgs and undecodable answers behind it');
    const store = getStore();
    const result = await indexPowArchive(store, { archive: whole }, { logger: silent });
    const terminal = blocks.length - 1;
    assert.equal(result.height, terminal);
    assert.equal(result.final, true);
    assert.equal(result.read.blocks, blocks.length);
    assert.equal(result.read.shards, Math.ceil(blocks.length / SHARD));
    await assertSameStore(store, expected);
    const [final] = await store.query<{ value: string }>('t', sql`SELECT value FROM chain_settings WHERE chain = 'pow' AND key = 'final'`);
    assert.deepEqual(JSON.parse(final!.value), { height: terminal, hash: blocks[terminal]!.hash, runId: 'quarry-test', networkId: 'Quarry demo network' });
    const [tip] = await store.query<{ height: string }>('t', sql`SELECT height::text AS height FROM chain_node_tips WHERE chain = 'pow'`);
    assert.equal(Number(tip!.height), terminal);
    const [checkpoint] = await store.query<{ source: string; height: string }>('t', sql`SELECT source, height::text AS height FROM checkpoints WHERE chain = 'pow'`);
    assert.deepEqual({ ...checkpoint }, { source: 'qrl-archive', height: String(terminal) });
  });

  it('run again, reads nothing and changes nothing; a node alone is refused on the final chain', async () => {
    const store = getStore();
    const result = await indexPowArchive(store, { archive: path.join(whole, 'shards.json') }, { logger: silent });
    assert.equal(result.blocks, 0);
    assert.equal(result.read.blocks, 0);
    await assertSameStore(store, expected);
    const settings = resolveIndexPowSettings({ node: '127.0.0.1:1', progress: false }, {});
    await assert.rejects(indexPow(store, settings, { logger: silent }), (error: unknown) => error instanceof ConfigError && /final at height \d+/.test(error.message));
  });

  it('an archive of another chain than the stored one is refused before anything is read', async () => {
    const other = path.join(work, `other-${kind}`);
    writeArchive(other, archiveBlocks(await generatePowItems({ seed: 12, days: 0.05 })), { shardBlocks: SHARD, runId: 'other' });
    await assert.rejects(indexPowArchive(getStore(), { archive: other }, { logger: silent }), (error: unknown) => error instanceof ConfigError && /another chain/.test(error.message));
  });

  /** A damage to the whole archive's copy, what it stops at and the reason's pattern. */
  const damages: { what: string; damage: (dir: string) => void; height: number; reason: RegExp }[] = [
    {
      what: 'a corrupted byte',
      damage: (dir) => {
        const name = readIndex(dir).shards[1]!.name;
        const data = readFileSync(path.join(dir, name));
        data[recordOffset('Quarry demo network', SHARD + 40) + 16 + 5]! ^= 0x01;
        writeFileSync(path.join(dir, name), data);
      },
      height: SHARD,
      reason: new RegExp(`archive shard ${SECOND}: the sha256 check failed at height ${SHARD}:`),
    },
    {
      what: 'a missing shard',
      damage: (dir) => unlinkSync(path.join(dir, readIndex(dir).shards[1]!.name)),
      height: SHARD,
      reason: new RegExp(`${SECOND}: the shard file check failed at height ${SHARD}: the file is missing`),
    },
    {
      what: 'a wrong digest in shards.json',
      damage: (dir) => {
        const index = readIndex(dir);
        index.shards[1]!.sha3_256 = index.shards[1]!.sha3_256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
        writeIndex(dir, index);
      },
      height: SHARD,
      reason: new RegExp(`${SECOND}: the sha3-256 check failed at height ${SHARD}:`),
    },
    {
      what: `a gap in heights (a record of height ${SHARD + 52} where ${SHARD + 51} is due; the digests made to match)`,
      damage: (dir) => {
        const name = readIndex(dir).shards[1]!.name;
        const data = readFileSync(path.join(dir, name));
        data.writeBigUInt64LE(BigInt(SHARD + 52), recordOffset('Quarry demo network', SHARD + 51));
        replaceShard(dir, 1, data);
      },
      height: SHARD,
      reason: new RegExp(`${SECOND}: the height check failed at height ${SHARD + 51}: a record of height ${SHARD + 52} where ${SHARD + 51} was due`),
    },
    {
      what: `a transaction hash seen twice (a transaction of block ${SHARD + 20} given the hash of one in block 10; the digests made to match)`,
      damage: (dir) => {
        const block = messages.Block.decode(blocks[SHARD + 20]!.raw) as unknown as { transactions: { transaction_hash: Uint8Array }[] };
        const earlier = messages.Block.decode(blocks[10]!.raw) as unknown as { transactions: { transaction_hash: Uint8Array }[] };
        block.transactions[0]!.transaction_hash = earlier.transactions[0]!.transaction_hash;
        const part = blocks.slice(SHARD, 2 * SHARD).map((b) => (b.height === SHARD + 20 ? { ...b, raw: Buffer.from(messages.Block.encode(block).finish()) } : b));
        replaceShard(dir, 1, shardBytes('Quarry demo network', blocks[0]!.hash, part));
      },
      height: SHARD,
      reason: new RegExp(`${SECOND}: the duplicate transaction hash check failed at height ${SHARD + 20}: transaction [0-9a-f]{64} is also in block 10`),
    },
    {
      what: 'a wrong genesis (shards.json and every shard header agreeing on another hash)',
      damage: (dir) => {
        const index = readIndex(dir);
        const wrong = 'ab'.repeat(32);
        index.shards.forEach((shard, i) => {
          const part = blocks.slice(shard.first_height, shard.last_height + 1);
          writeFileSync(path.join(dir, shard.name), shardBytes(index.network_id, wrong, part));
          replaceShard(dir, i, readFileSync(path.join(dir, shard.name)));
        });
        const rewritten = readIndex(dir);
        rewritten.genesis_hash = wrong;
        writeIndex(dir, rewritten);
      },
      height: 0,
      reason: new RegExp(`quarry-test-blocks-0000000000\\.qrlblk \\(heights 0-${SHARD - 1}\\): the genesis hash check failed at height 0: block 0 is [0-9a-f]{64}, shards.json says (ab){32}`),
    },
  ];

  // The damages of the second shard share a store: the first run writes the first shard, each
  // later run resumes there, reads the first shard again and stops at the damaged one.
  let damaged: Store | undefined;
  after(() => damaged?.close());
  for (const { what, damage, height, reason } of damages) {
    it(`${what}: stops the chain at height ${height}, naming the shard, height and check; nothing from that shard is written`, async () => {
      const dir = copy();
      damage(dir);
      const store = height === 0 ? await openTestStore(kind) : (damaged ??= await openTestStore(kind));
      try {
        await assert.rejects(indexPowArchive(store, { archive: dir }, { logger: silent }), (error: unknown) => error instanceof ChainStalledError && reason.test(error.message));
        assert.equal(await topHeight(store), height === 0 ? null : height - 1);
        const stall = await stallOf(store);
        assert.equal(stall?.height, height);
        assert.equal(stall?.source, 'qrl-archive');
        assert.match(stall!.reason, reason);
        const [final] = await store.query('t', sql`SELECT 1 FROM chain_settings WHERE chain = 'pow' AND key = 'final'`);
        assert.equal(final, undefined);
      } finally {
        if (store !== damaged) await store.close();
      }
    });
  }

  // The two runs below check the archive reader's resume and its hand-over to a node, which do not
  // depend on the store: they run on one store, PostgreSQL when the run has it. On PGlite, the
  // import into the embedded store is the first test's; a resume after a stop ends equal in
  // test/ingest/properties.test.ts (a crash, then the rest) and pow-grpc-kill.test.ts (the command
  // killed and run again).
  const oneStore = singleStoreKinds().includes(kind);
  if (!oneStore) return;

  it('stopped inside a shard and run again: re-checks the shard it lands in (a damage there stops it), then ends equal', async () => {
    const dir = copy();
    const store = await openTestStore(kind);
    try {
      const controller = new AbortController();
      const stopAt = SHARD + 60;
      const progress = () => ({ update: (done: number) => (done >= stopAt ? controller.abort() : undefined), stop() {} });
      const first = await indexPowArchive(store, { archive: dir }, { logger: silent, signal: controller.signal, progress });
      assert.equal(first.final, false);
      const stopped = (await topHeight(store))!;
      assert.ok(stopped >= stopAt - 1 && stopped < 2 * SHARD - 1, `stopped at ${stopped}`);
      // The shard the next run lands in is damaged, after the stop: the run stops at the height it resumes from.
      const name = readIndex(dir).shards[1]!.name;
      const good = readFileSync(path.join(dir, name));
      const bad = Buffer.from(good);
      bad[bad.length - 1]! ^= 0x01;
      writeFileSync(path.join(dir, name), bad);
      await assert.rejects(indexPowArchive(store, { archive: dir }, { logger: silent }), (error: unknown) => error instanceof ChainStalledError && new RegExp(`${SECOND}: the sha256 check failed`).test(error.message));
      assert.equal((await stallOf(store))?.height, stopped + 1);
      assert.equal(await topHeight(store), stopped);
      // Repaired, the run goes on from there and clears the stall.
      writeFileSync(path.join(dir, name), good);
      const second = await indexPowArchive(store, { archive: dir }, { logger: silent });
      assert.equal(second.final, true);
      assert.equal(second.read.blocks, blocks.length, 'the shards below the resume height are read again');
      assert.equal(await stallOf(store), null);
      await assertSameStore(store, expected);
    } finally {
      await store.close();
    }
  });

  it('an archive cut from a live chain: a node takes over at the terminal block, and the store equals the whole chain indexed', async () => {
    const dir = path.join(work, `cut-${kind}`);
    const terminal = 2 * SHARD + 30;
    writeArchive(dir, blocks.slice(0, terminal + 1), { shardBlocks: SHARD });
    const { node, address } = await startNodeWithChain(items);
    const store = await openTestStore(kind);
    try {
      const nodeSettings = resolveIndexPowSettings({ node: address, progress: false }, {});
      const result = await indexPowArchive(store, { archive: dir, node: nodeSettings }, { logger: silent });
      assert.equal(result.final, false);
      assert.equal(result.read.blocks, terminal + 1);
      assert.equal(result.height, node.height);
      await assertSameStore(store, expected);
      const [final] = await store.query('t', sql`SELECT 1 FROM chain_settings WHERE chain = 'pow' AND key = 'final'`);
      assert.equal(final, undefined);
    } finally {
      await store.close();
      await node.stop();
    }
  });
});
