/**
 * A generated pow chain loaded into a fake QRL node, and the store that ingesting the generator
 * directly gives (in the node's addresses): what `quarry index pow` must reproduce exactly.
 */
import sql, { raw } from 'sql-template-tag';
import type { BlockSource, SourceItem } from '../../../src/chain/model.ts';
import { ingest } from '../../../src/ingest/pipeline.ts';
import { collect, createSyntheticWorld } from '../../../src/sources/synthetic/index.ts';
import { MAINNET_POW_GENESIS } from '../../../src/sources/synthetic/options.ts';
import type { Store } from '../../../src/store/store.ts';
import { openTestStore, storeKinds } from '../../support/stores.ts';
import { FakeQrlNode, type FakeQrlNodeOptions } from './server.ts';

export interface PowNodeWorld {
  /** The generator's items, in order (orphan branches before the canonical block). */
  items: SourceItem[];
  /** What a faithful decoder yields for each item, in the same order. */
  views: SourceItem[];
}

export interface PowItemsOptions {
  seed?: number;
  days?: number;
  scale?: number;
  /**
   * A mainnet-shaped history instead (docs/synthetic-data.md): `days` of pow from mainnet's genesis
   * time with this share of coinbase-only blocks, and no reorgs or undecodable items.
   */
  coinbaseOnlyShare?: number;
  /** The last height served: a slice of the history from genesis. */
  toHeight?: number;
  /** Multi-signature addresses and one-time key reuses in the chain (SyntheticOptions.powMultiSig, powOtsReuses). */
  multiSig?: number;
  otsReuses?: number;
}

/**
 * A small pow chain with reorgs, undecodable blocks and transactions, and every subtype the
 * generator makes; or a slice of a mainnet-shaped one (`coinbaseOnlyShare`).
 */
export async function generatePowItems(options: PowItemsOptions = {}): Promise<SourceItem[]> {
  if (options.coinbaseOnlyShare !== undefined) return mainnetShapedItems({ ...options, coinbaseOnlyShare: options.coinbaseOnlyShare });
  const world = createSyntheticWorld({
    seed: options.seed ?? 11,
    end: new Date('2026-06-01T00:00:00Z'),
    powDays: options.days ?? 0.5,
    posDays: 0.05,
    scale: options.scale ?? 4000,
    reorgEvery: 40,
    malformedEvery: 50,
    // The account id of a migration is Quarry's own: a pow node cannot tell it.
    migrationCutover: null,
    powMultiSig: options.multiSig ?? 0,
    powOtsReuses: options.otsReuses ?? 0,
  });
  return (await collect(world.pow)).filter((item) => item.kind !== 'caught-up');
}

async function mainnetShapedItems(options: PowItemsOptions & { coinbaseOnlyShare: number }): Promise<SourceItem[]> {
  const world = createSyntheticWorld({
    seed: options.seed ?? 1,
    powGenesis: MAINNET_POW_GENESIS,
    powDays: options.days ?? 1,
    posDays: 1,
    scale: options.scale ?? 800,
    powCoinbaseOnlyShare: options.coinbaseOnlyShare,
    reorgEvery: 0,
    migrationCutover: null,
  });
  const toHeight = options.toHeight ?? world.lastHeight.pow;
  const items: SourceItem[] = [];
  // Without reorgs the items come in height order, one per height.
  for await (const item of world.pow.blocks(0)) {
    if (item.kind !== 'block' || item.block.height > toHeight) break;
    items.push(item);
  }
  return items;
}

/** Feeds `items` to `node`, returning their node views. */
export function feed(node: FakeQrlNode, items: SourceItem[]): SourceItem[] {
  return items.map((item) => {
    node.push(item);
    return node.headView()!;
  });
}

export async function startNodeWithChain(items: SourceItem[], options: FakeQrlNodeOptions = {}): Promise<{ node: FakeQrlNode; address: string; views: SourceItem[] }> {
  const node = new FakeQrlNode({ signatureBytes: 64, ...options });
  const views = feed(node, items);
  const address = await node.start();
  return { node, address, views };
}

/** The views as a source that behaves like the generator (orphans first, then the canonical block). */
export function viewSource(views: SourceItem[]): BlockSource {
  const canonical = new Map<number, SourceItem>();
  for (const item of views) {
    if (item.kind === 'caught-up') continue;
    const height = item.kind === 'block' ? item.block.height : item.height;
    canonical.set(height, item);
    for (const h of [...canonical.keys()]) if (h > height) canonical.delete(h);
  }
  const hashOf = (item: SourceItem | undefined) => (item?.kind === 'block' ? item.block.hash : null);
  return {
    chain: 'pow',
    name: 'synthetic',
    async *blocks(from: number) {
      for (const item of views) {
        if (item.kind === 'caught-up') continue;
        const height = item.kind === 'block' ? item.block.height : item.height;
        if (height >= from) yield item;
      }
      yield { kind: 'caught-up' };
    },
    hashAt: async (height) => hashOf(canonical.get(height)),
    blockAt: async (height) => canonical.get(height) ?? null,
  };
}

export async function ingestExpected(store: Store, views: SourceItem[]): Promise<void> {
  await ingest(store, viewSource(views));
}

/**
 * Tables that record the run, not the chain: which source wrote, when, what it saw on the way (the
 * event log numbers what each run wrote, in its batches), the node's tip, the node's pool as polled.
 */
const RUN_TABLES = new Set(['checkpoints', 'schema_migrations', 'reorgs', 'orphaned_txs', 'chain_events', 'dead_letters', 'api_keys', 'chain_node_tips', 'ingest_stalls', 'writer_locks', 'pending_txs', 'pending_polls']);
/** Columns that identify a write rather than hold data (the population chart's cache token is new on every close). */
const RUN_COLUMNS: Record<string, string[]> = { holder_state_meta: ['token'] };

/**
 * The digest of the store that ingesting `views` directly gives: the reference an indexed store is
 * compared with. It is built on PostgreSQL when the run has a server (the digest is the same on
 * both stores, and PostgreSQL ingests several times faster than the embedded store), else on PGlite.
 */
export async function referenceDigest(views: SourceItem[]): Promise<Record<string, string>> {
  const store = await openTestStore(storeKinds().includes('postgres') ? 'postgres' : 'pglite');
  try {
    await ingestExpected(store, views);
    return await storeDigest(store);
  } finally {
    await store.close();
  }
}

/**
 * A digest of every table of the chain's data, and the dead letters' (height, item). Each table's
 * is its row count and the md5 of its rows' text, sorted bytewise, computed by the database: both
 * stores print a row alike (node-postgres and PGlite would hand back its values differently), and
 * the rows never cross into JavaScript. A table with run columns hashes its rows as JSON without them.
 * `except` names tables left out (a standby cannot read unlogged ones).
 */
export async function storeDigest(store: Store, except: readonly string[] = []): Promise<Record<string, string>> {
  const tables = await store.query<{ table_name: string }>(
    'test.tables',
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const digest: Record<string, string> = {};
  for (const { table_name: table } of tables) {
    if (RUN_TABLES.has(table) || except.includes(table)) continue;
    const [row] = await store.query<{ n: number; md5: string }>(
      'test.digest',
      sql`SELECT count(*)::int AS n, md5(coalesce(string_agg(line, E'\n' ORDER BY line COLLATE "C"), '')) AS md5
          FROM (SELECT ${RUN_COLUMNS[table] ? sql`(to_jsonb(t) - ${RUN_COLUMNS[table]}::text[])::text` : sql`t::text`} AS line FROM ${raw(table)} t) rows`,
    );
    digest[table] = `${row!.n}:${row!.md5.slice(0, 16)}`;
  }
  const letters = await store.query<{ height: string | null; item: string | null }>('test.letters', sql`SELECT height::text AS height, item FROM dead_letters ORDER BY height, item`);
  digest.dead_letters = letters.map((l) => `${l.height}/${l.item}`).join(',');
  return digest;
}
