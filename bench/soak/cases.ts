/**
 * The soak's request mix: the API part's cases (bench/parts/api-cases.ts), their subjects read from
 * the soak's store once its indexers have caught up (the fake nodes' chains are not the tiers'
 * worlds, so the accounts are found by what they did: the busiest, a median one, the largest
 * balance, a slave master, a token holder), cursor pages and `@latest` hashes resolved once on
 * the primary's API. The hostile cases are the API part's concern and left out here.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import { POW_COINBASE_SENTINEL } from '../../src/chain/chains.ts';
import type { NotableAccounts } from '../../src/sources/synthetic/index.ts';
import type { Store } from '../../src/store/store.ts';
import { cursorAt, newestHash, tipBlock } from '../parts/api.ts';
import { buildCases, casePath, type CaseInputs } from '../parts/api-cases.ts';

/** The accounts the cases are about, found in the store. */
async function notableAccounts(store: Store, chain: ChainId, contract: string | null): Promise<{ notable: NotableAccounts; busiest: number; ordinary: number }> {
  const sentinel = chain === 'pow' ? POW_COINBASE_SENTINEL : '';
  const ranked = await store.query<{ address: string; tx_count: number }>(
    'soak.accounts',
    sql`SELECT address, tx_count FROM address_summary WHERE chain = ${chain} AND address <> ${sentinel} ORDER BY tx_count DESC, address LIMIT 400`,
  );
  if (ranked.length < 3) throw new Error(`${chain}: only ${ranked.length} addresses with transactions`);
  const busiest = ranked[0]!;
  const ordinary = ranked[Math.floor(ranked.length / 2)]!;
  const [whale] = await store.query<{ address: string }>(
    'soak.whale',
    sql`SELECT address FROM address_summary WHERE chain = ${chain} AND address <> ${sentinel} ORDER BY balance DESC, address LIMIT 1`,
  );
  const [master] = await store.query<{ address: string }>('soak.master', sql`SELECT master_address AS address FROM slaves WHERE chain = ${chain} GROUP BY master_address ORDER BY count(*) DESC, master_address LIMIT 1`);
  const [holder] = await store.query<{ address: string }>('soak.holder', sql`SELECT address FROM token_balances WHERE chain = ${chain} AND balance > 0 ORDER BY transfer_count, address LIMIT 1`);
  const [token] = await store.query<{ address: string }>('soak.token', sql`SELECT address FROM token_contracts WHERE chain = ${chain} ORDER BY created_height, address LIMIT 1`);
  const [miner] = await store.query<{ address: string }>('soak.miner', sql`SELECT miner AS address FROM blocks WHERE chain = ${chain} AND miner IS NOT NULL GROUP BY miner ORDER BY count(*) DESC, miner LIMIT 1`);
  return {
    notable: {
      busiestHotWallet: busiest.address,
      exchange: busiest.address,
      whale: whale!.address,
      ordinary: ordinary.address,
      slaveMaster: master?.address ?? null,
      contract,
      token: token?.address ?? '',
      tokenHolder: holder?.address ?? ordinary.address,
      migrationAddress: null,
      miningPool: chain === 'pow' ? (miner?.address ?? null) : null,
      treasury: whale!.address,
    },
    busiest: busiest.tx_count,
    ordinary: ordinary.tx_count,
  };
}

/**
 * Every case's path, resolved: a case whose cursor or hash cannot be had on this chain (too few
 * transactions for a deep page, say) is left out.
 */
export async function soakPaths(store: Store, base: string, headers: Record<string, string>, posContract: string): Promise<string[]> {
  const pow = await notableAccounts(store, 'pow', null);
  const pos = await notableAccounts(store, 'pos', posContract);
  const [end] = await store.query<{ ts: string }>('soak.end', sql`SELECT max(ts)::text AS ts FROM blocks`);
  const inputs: CaseInputs = {
    notable: { pow: pow.notable, pos: pos.notable },
    txCounts: { pow: { busiest: pow.busiest, ordinary: pow.ordinary }, pos: { busiest: pos.busiest, ordinary: pos.ordinary } },
    end: Number(end!.ts),
    tips: { pow: await tipBlock(base, headers, 'pow'), pos: await tipBlock(base, headers, 'pos') },
  };
  const paths: string[] = [];
  for (let c of buildCases(inputs)) {
    if (c.route === 'chainTransaction' && c.hash === '') continue;
    if (c.hash?.startsWith('@')) {
      const hash = await newestHash(base, headers, c);
      if (!hash) continue;
      c = { ...c, hash };
    }
    let query = c.query;
    if (c.cursorDepth !== undefined) {
      const cursor = await cursorAt(base, headers, c, c.cursorDepth);
      if (!cursor) continue;
      query = { ...c.query, cursor };
    }
    paths.push(casePath(c, query));
  }
  return paths;
}
