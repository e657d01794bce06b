/**
 * The generate part: builds a tier's base with the generator and the bulk load (unless a finished
 * build of the same world and schema exists) and reads back what the world contains. It follows
 * src/ingest/load-synthetic.ts step for step, but stops each chain a day short of its end, where no
 * reorg straddles it, for the ingest part to add (bench/README.md, "generate").
 */
import sql, { raw } from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import type { BlockSource, SourceItem } from '../../src/chain/model.ts';
import { loadSyntheticWorld, type LoadHooks, type LoadReport as WorldLoadReport } from '../../src/ingest/load-synthetic.ts';
import { createSyntheticWorld, type NotableAccounts, type SyntheticWorld } from '../../src/sources/synthetic/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { Store } from '../../src/store/store.ts';
import { loadAverage, log, round, WORK_DIR } from '../proc.ts';
import { freeBytes } from '../stores.ts';
import type { TierStore } from '../stores.ts';
import { codeHash } from '../tiers.ts';

export interface AddressFact {
  address: string;
  txCount: number;
  label: string | null;
}

export interface TierFacts {
  blocks: Record<ChainId, number>;
  transactions: Record<ChainId | 'total', number>;
  addresses: Record<ChainId | 'total', number>;
  rawRows: Record<string, number>;
  rawRowsTotal: number;
  /**
   * Rows of every table after the build: raw, derived and curated. With the COPY ceiling this bounds
   * the generate-and-store rate (docs/ingest.md). Absent from records built before it was counted.
   */
  storedRows?: Record<string, number>;
  databaseMb: number;
  /** The most active addresses of each chain by transaction count, sentinels included. */
  top: Record<ChainId, AddressFact[]>;
  /** The accounts the API part uses, with their transaction counts. */
  notable: Record<ChainId, Record<'busiestHotWallet' | 'ordinary' | 'whale', AddressFact>>;
  /**
   * pow: the key that made the most signatures (a slave of a busy wallet) and the multi-signature
   * address with the most spends (docs/api-ots.md), null when there is none. Absent from records built before.
   */
  powKeys?: { busiestSigner: string | null; multiSig: string | null };
}

export interface BuildRecord {
  tier: string;
  key: string;
  store: string;
  builtAt: string;
  codeHash: string;
  world: Record<string, unknown>;
  /** The last height of each chain in the base (the ingest part adds the rest). */
  baseHeights: Record<ChainId, number>;
  /** The last height of each chain in the whole world. */
  lastHeights: Record<ChainId, number>;
  loadAverage: { before: number[]; after: number[] };
  seconds: { pow: number; pos: number; finish: number; total: number };
  chains: Record<ChainId, { blocks: number; transactions: number; reorgs: number }>;
  /** Generate-and-store rates (raw phase). */
  txPerSecond: Record<ChainId | 'both', number>;
  rawRowsPerSecond: number;
  /** Whole build, finish phase included. */
  endToEndTxPerSecond: number;
  /** CPU seconds of the benchmark process (the generator and the ingest code) during the raw phase; the rest of the wall time is the store. */
  benchCpuSeconds: number;
  /** Where the store's time went, by query label (the ten largest). */
  topLabels: { label: string; ms: number; count: number }[];
  facts: TierFacts;
  checks: { name: string; value: number; min: number; pass: boolean }[];
}

export const RAW_TABLES = ['blocks', 'transactions', 'tx_recipients', 'internal_txs', 'token_transfers', 'slaves', 'withdrawals', 'migration_legs'];

/** Returns the tier's build record, building the database first when needed. */
export async function ensureTier(target: TierStore, options: { rebuild: boolean }): Promise<{ record: BuildRecord; built: boolean }> {
  const existing = target.readRecord<BuildRecord>();
  if (!options.rebuild && existing && (await target.exists('base'))) {
    const code = codeHash();
    if (existing.codeHash !== code) {
      log(`${target.tier.name}/${target.kind}: built ${existing.builtAt} with other generator/ingest/rollup code (${existing.codeHash}, now ${code}); using it — --rebuild to refresh`);
    } else {
      log(`${target.tier.name}/${target.kind}: reusing ${target.where('base')} (built ${existing.builtAt})`);
    }
    return { record: existing, built: false };
  }
  return { record: await buildTier(target), built: true };
}

/** Bytes a stored transaction takes with everything derived from it (bench/README.md, disk), with some room. */
const BYTES_PER_TRANSACTION = 4600;
/** What the benchmark leaves free on a shared disk. */
export const DISK_MARGIN = 5 * 2 ** 30;

async function buildTier(target: TierStore): Promise<BuildRecord> {
  const { tier } = target;
  log(`${tier.name}/${target.kind}: building ${target.where('base')}: ${tier.description}`);
  // Older builds of the tier go first: their space counts as free.
  await target.reset();
  if (target.kind === 'pglite' || !process.env.QUARRY_DATABASE_URL) {
    const w = tier.world;
    const estimate = (w.scale * (w.powDays + w.posDays) + 1440 * w.powDays) * BYTES_PER_TRANSACTION;
    const free = freeBytes(WORK_DIR);
    if (free < estimate + DISK_MARGIN) {
      throw new Error(`${tier.name}: the build needs about ${gb(estimate)} GB and ${gb(DISK_MARGIN)} GB left over; the disk has ${gb(free)} GB free`);
    }
  }
  const store = await target.open('base');
  try {
    await migrate(store);
    const before = loadAverage();
    const cpu = process.cpuUsage();
    let rawCpu = 0;
    let lastLog = 0;
    const report = await loadWorldUpTo(store, createSyntheticWorld(tier.world), tier.stretch, {
      onPhase: (phase) => {
        if (phase === 'rollups') {
          const used = process.cpuUsage(cpu);
          rawCpu = (used.user + used.system) / 1e6;
        }
        log(`${tier.name}/${target.kind}: ${phase === 'rollups' ? 'closing days, rebuilding indexes' : `generating and storing ${phase}`}`);
      },
      onProgress: (progress, lastHeight) => {
        if (Date.now() - lastLog < 30_000) return;
        lastLog = Date.now();
        log(`${tier.name}/${target.kind}: ${progress.chain} ${progress.height + 1}/${lastHeight + 1} blocks, ${progress.transactions} transactions`);
      },
    });
    const after = loadAverage();
    const rawSeconds = report.seconds.pow + report.seconds.pos;
    const txs = { pow: report.chains.pow.transactions, pos: report.chains.pos.transactions };
    const facts = await tierFacts(store, target, report.world.describe());
    const topLabels = [...store.stats()]
      .sort((a, b) => b[1].totalMs - a[1].totalMs)
      .slice(0, 10)
      .map(([label, s]) => ({ label, ms: Math.round(s.totalMs), count: s.count }));
    const expect = tier.expect ?? {};
    const busiest = Math.max(facts.notable.pow.busiestHotWallet.txCount, facts.notable.pos.busiestHotWallet.txCount);
    const checks = [
      { name: 'transactions', value: facts.transactions.total, min: expect.transactions ?? 0 },
      { name: 'addresses', value: facts.addresses.total, min: expect.addresses ?? 0 },
      { name: 'busiest address transactions', value: busiest, min: expect.busiestTransactions ?? 0 },
    ].map((c) => ({ ...c, pass: c.value >= c.min }));
    const record: BuildRecord = {
      tier: tier.name,
      key: target.key,
      store: target.kind,
      builtAt: new Date().toISOString(),
      codeHash: codeHash(),
      world: { ...tier.world, end: tier.world.end.toISOString() },
      baseHeights: report.baseHeights,
      lastHeights: report.world.lastHeight,
      loadAverage: { before, after },
      seconds: { pow: round(report.seconds.pow), pos: round(report.seconds.pos), finish: round(report.seconds.finish), total: round(report.seconds.total) },
      chains: {
        pow: { blocks: report.chains.pow.blocks, transactions: txs.pow, reorgs: report.chains.pow.reorgs },
        pos: { blocks: report.chains.pos.blocks, transactions: txs.pos, reorgs: report.chains.pos.reorgs },
      },
      txPerSecond: {
        pow: Math.round(txs.pow / report.seconds.pow),
        pos: Math.round(txs.pos / report.seconds.pos),
        both: Math.round((txs.pow + txs.pos) / rawSeconds),
      },
      rawRowsPerSecond: Math.round(facts.rawRowsTotal / rawSeconds),
      endToEndTxPerSecond: Math.round((txs.pow + txs.pos) / report.seconds.total),
      benchCpuSeconds: round(rawCpu),
      topLabels,
      facts,
      checks,
    };
    target.writeRecord(record);
    log(
      `${tier.name}/${target.kind}: built in ${record.seconds.total} s: ${facts.transactions.total} transactions, ${facts.addresses.total} addresses, ` +
        `${record.txPerSecond.both} tx/s generated and stored (finish ${record.seconds.finish} s)`,
    );
    for (const check of checks.filter((c) => !c.pass)) log(`${tier.name}: the world falls short: ${check.name} ${check.value} < ${check.min}`);
    return record;
  } finally {
    await store.close();
  }
}

interface LoadReport extends WorldLoadReport {
  baseHeights: Record<ChainId, number>;
}

/** loadSyntheticWorld (src/ingest/load-synthetic.ts), each chain stopping about `short` blocks before its end. */
async function loadWorldUpTo(store: Store, world: SyntheticWorld, short: Record<ChainId, number>, hooks: LoadHooks): Promise<LoadReport> {
  const baseHeights = {} as Record<ChainId, number>;
  const stop = (chain: ChainId) => world.lastHeight[chain] - short[chain];
  const report = await loadSyntheticWorld(store, world, {
    ...hooks,
    // Progress is out of the height the chain stops at, not the whole generated chain's.
    onProgress: (progress) => hooks.onProgress?.(progress, stop(progress.chain)),
    source: (w, chain) => stopCleanly(w[chain], stop(chain), (height) => (baseHeights[chain] = height)),
  });
  return { ...report, baseHeights };
}

/** Reorgs are at most this deep: a block followed by this many blocks, each on the one before, is canonical. */
const LOOK_AHEAD = 4;

/**
 * The source's items up to the first canonical block at or above `height` after which the chain
 * goes on without a reorg for LOOK_AHEAD blocks: neither that block nor the next is in a reorg.
 */
function stopCleanly(source: BlockSource, height: number, onStop: (height: number) => void): BlockSource {
  return {
    chain: source.chain,
    name: source.name,
    hashAt: source.hashAt?.bind(source),
    blockAt: source.blockAt?.bind(source),
    async *blocks(from: number) {
      const ahead: SourceItem[] = [];
      const clean = () => {
        const first = ahead[0];
        if (first?.kind !== 'block' || first.block.height < height) return false;
        for (let i = 1; i <= LOOK_AHEAD; i++) {
          const prev = ahead[i - 1];
          const next = ahead[i];
          if (prev?.kind !== 'block' || next?.kind !== 'block') return false;
          if (next.block.height !== prev.block.height + 1 || next.block.parentHash !== prev.block.hash) return false;
        }
        return true;
      };
      for await (const item of source.blocks(from)) {
        ahead.push(item);
        if (ahead.length <= LOOK_AHEAD) continue;
        if (clean()) {
          const stop = ahead[0] as Extract<SourceItem, { kind: 'block' }>;
          yield stop;
          onStop(stop.block.height);
          return;
        }
        yield ahead.shift()!;
      }
      throw new Error(`${source.chain}: no clean place to stop at or above height ${height}`);
    },
  };
}

async function tierFacts(store: Store, target: TierStore, notable: Record<ChainId, NotableAccounts>): Promise<TierFacts> {
  const perChain = async (label: string, statement: ReturnType<typeof sql>) => {
    const rows = await store.query<{ chain: ChainId; n: number }>(label, statement);
    const out = { pow: 0, pos: 0 } as Record<ChainId, number>;
    for (const row of rows) out[row.chain] = Number(row.n);
    return out;
  };
  const blocks = await perChain('bench.facts.blocks', sql`SELECT chain, count(*) AS n FROM blocks GROUP BY chain`);
  const transactions = await perChain('bench.facts.transactions', sql`SELECT chain, count(*) AS n FROM transactions GROUP BY chain`);
  const addresses = await perChain('bench.facts.addresses', sql`SELECT chain, count(*) AS n FROM address_summary GROUP BY chain`);
  // Every table counted once; the raw tables' counts are read off the same figures.
  const storedRows: Record<string, number> = {};
  const tables = await store.query<{ table_name: string }>(
    'bench.facts.tables',
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  for (const { table_name: table } of tables) {
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) continue;
    const [row] = await store.query<{ n: number }>('bench.facts.stored', sql`SELECT count(*) AS n FROM ${raw(table)}`);
    storedRows[table] = Number(row?.n ?? 0);
  }
  const rawRows = Object.fromEntries(RAW_TABLES.map((table) => [table, storedRows[table] ?? 0]));
  const addressFact = async (chain: ChainId, address: string): Promise<AddressFact> => {
    const [row] = await store.query<{ tx_count: number; label: string | null }>(
      'bench.facts.address',
      sql`SELECT s.tx_count, (SELECT label FROM labels l WHERE l.chain = s.chain AND l.address = s.address ORDER BY is_primary DESC LIMIT 1) AS label
          FROM address_summary s WHERE s.chain = ${chain} AND s.address = ${address}`,
    );
    return { address, txCount: Number(row?.tx_count ?? 0), label: row?.label ?? null };
  };
  const top = { pow: [], pos: [] } as Record<ChainId, AddressFact[]>;
  const notableFacts = {} as TierFacts['notable'];
  for (const chain of ['pow', 'pos'] as const) {
    const rows = await store.query<{ address: string }>(
      'bench.facts.top',
      sql`SELECT address FROM address_summary WHERE chain = ${chain} ORDER BY tx_count DESC, address LIMIT 3`,
    );
    for (const row of rows) top[chain].push(await addressFact(chain, row.address));
    notableFacts[chain] = {
      busiestHotWallet: await addressFact(chain, notable[chain].busiestHotWallet),
      ordinary: await addressFact(chain, notable[chain].ordinary),
      whale: await addressFact(chain, notable[chain].whale),
    };
  }
  const [signer] = await store.query<{ address: string }>(
    'bench.facts.signer',
    sql`SELECT coalesce(signer_addr, from_addr) AS address FROM transactions WHERE chain = 'pow' AND ots_index IS NOT NULL
        GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
  );
  const [multiSig] = await store.query<{ address: string }>(
    'bench.facts.multisig',
    sql`SELECT multisig_address AS address FROM multisig_spends WHERE chain = 'pow' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`,
  );
  return {
    powKeys: { busiestSigner: signer?.address ?? null, multiSig: multiSig?.address ?? null },
    blocks,
    transactions: { ...transactions, total: transactions.pow + transactions.pos },
    addresses: { ...addresses, total: addresses.pow + addresses.pos },
    rawRows,
    rawRowsTotal: Object.values(rawRows).reduce((a, b) => a + b, 0),
    storedRows,
    databaseMb: await databaseMb(store, target),
    top,
    notable: notableFacts,
  };
}

const gb = (bytes: number) => (bytes / 2 ** 30).toFixed(1);

async function databaseMb(store: Store, target: TierStore): Promise<number> {
  if (store.kind === 'postgres') {
    const [row] = await store.query<{ bytes: number }>('bench.facts.size', sql`SELECT pg_database_size(current_database()) AS bytes`);
    return round(Number(row?.bytes ?? 0) / 2 ** 20, 0);
  }
  return round((await target.bytes('base')) / 2 ** 20, 0);
}


/** The notable accounts of a tier's world, without generating any block. */
export function notableAccounts(target: TierStore): Record<ChainId, NotableAccounts> {
  return createSyntheticWorld(target.tier.world).describe();
}
