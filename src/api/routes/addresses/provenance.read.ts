/** The read of GET /{chain}/addresses/{address}/provenance: an address's first funder and its first and last transactions. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Store } from '../../../store/store.ts';

export interface ProvenanceRow {
  funded_by: string | null;
  funded_at: number | null;
  funded_tx: string | null;
  first_tx: string | null;
  first_seen: number | null;
  last_tx: string | null;
  last_seen: number | null;
}

/** The address's provenance, kept in its summary; undefined for an address never seen. */
export async function readProvenance(store: Store, chain: ChainId, address: string): Promise<ProvenanceRow | undefined> {
  const [row] = await store.query<ProvenanceRow>(
    'addresses.provenance',
    sql`SELECT funded_by, funded_at, funded_tx, first_tx, first_seen, last_tx, last_seen
        FROM address_summary WHERE chain = ${chain} AND address = ${address}`,
    { reusePlan: true }, // a key lookup
  );
  return row;
}
