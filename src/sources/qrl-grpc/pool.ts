/**
 * The QRL node's pool as the pending poller reads it (ingest/pending.ts): `GetLatestData` with the
 * filter TRANSACTIONS_UNCONFIRMED, which answers the node's validated pool (theQRL/QRL
 * qrlnode.py `get_latest_transactions_unconfirmed`: `TransactionPool.transactions`, highest fee
 * first) from `offset`, at most 100 a call (PublicAPIService.py `MAX_REQUEST_QUANTITY`). Each entry
 * is a TransactionExtended whose `tx` decodes as a block's transaction does (decode.ts `decodeTx`).
 *
 * A pool of more than 100 is read page by page, and the pages of one read are one moment of the
 * pool only if nothing changed it meanwhile: a block that mines some of it, or a transaction that
 * leaves it (dropped, replaced) or comes in with a higher fee, shifts the entries after it, and a
 * page read by offset then skips or repeats some. Each page after the first starts one entry early,
 * at the last entry of the page before: when that entry is not where it was, or the node's head
 * moved, the read is not complete (nothing is dropped on its word). A read stops at about `limit` entries.
 */
import type { Logger } from 'pino';
import { pooledTx, type PoolReader, type PoolTx } from '../../chain/model.ts';
import type { QrlClient } from './client.ts';
import { decodeTx } from './decode.ts';
import { message, NodeDataError } from './errors.ts';
import type { Decoded } from './proto.ts';
import { nodeHead } from './source.ts';

/** GetLatestDataReq.Filter.TRANSACTIONS_UNCONFIRMED. */
export const TRANSACTIONS_UNCONFIRMED = 3;
/** The most entries the node answers per GetLatestData call. */
export const LATEST_DATA_QUANTITY = 100;

/** `GetLatestData(filter, offset, quantity)`, decoded. */
export async function getLatestData(client: QrlClient, filter: number, offset: number, quantity: number): Promise<Decoded> {
  return (await client.call('GetLatestData', { filter, offset, quantity })).message;
}

/** Hashes already reported as undecodable: each is logged once while the reader lives. */
const MAX_REPORTED = 10_000;

export function createQrlPoolReader(client: QrlClient, logger?: Logger): PoolReader {
  const reported = new Set<string>();
  return {
    chain: 'pow',
    method: 'GetLatestData',
    async read(limit) {
      const before = await nodeHead(client);
      const txs: PoolTx[] = [];
      const seen = new Set<string>();
      let offset = 0;
      let full = false;
      let shifted = false;
      /** The raw hash of the last entry of the page before, which the next page must start with. */
      let boundary: string | null = null;
      for (;;) {
        const start = boundary === null ? 0 : offset - 1;
        const answer = await getLatestData(client, TRANSACTIONS_UNCONFIRMED, start, LATEST_DATA_QUANTITY);
        const page: unknown[] = Array.isArray(answer.transactions_unconfirmed) ? answer.transactions_unconfirmed : [];
        if (boundary !== null && entryHash(page[0]) !== boundary) shifted = true;
        page.forEach((entry, i) => {
          const tx = poolTx(entry as Decoded, start + i, (hash, error) => {
            if (reported.size >= MAX_REPORTED) reported.clear();
            if (!reported.has(hash)) logger?.warn({ hash, err: error }, 'a pending pow transaction does not decode: left out of the pending list');
            reported.add(hash);
          });
          if (tx && !seen.has(tx.hash)) {
            seen.add(tx.hash);
            txs.push(tx);
          }
        });
        offset = start + page.length;
        boundary = entryHash(page.at(-1));
        if (page.length < LATEST_DATA_QUANTITY) break;
        if (offset >= limit) {
          full = true;
          break;
        }
      }
      const paged = offset >= LATEST_DATA_QUANTITY;
      const moved = paged && (await nodeHead(client)).hash !== before.hash;
      return { txs, complete: !full && !moved && !shifted, poolSize: full ? null : offset };
    },
  };
}

/** The transaction hash of a pool entry (TransactionExtended.tx.transaction_hash) as hex; null when it has none. */
function entryHash(entry: unknown): string | null {
  const raw = (entry as Decoded | undefined)?.tx?.transaction_hash;
  return raw instanceof Uint8Array ? Buffer.from(raw).toString('hex') : null;
}

/** One TransactionExtended of the pool, or null (reported) when its transaction does not decode. */
function poolTx(entry: Decoded, position: number, undecodable: (hash: string, error: string) => void): PoolTx | null {
  try {
    const { tx } = decodeTx(entry.tx ?? {}, position);
    if (tx.type === 'coinbase') throw new NodeDataError('tx', 'a coinbase in the pool');
    return pooledTx('pow', tx);
  } catch (error) {
    if (!(error instanceof NodeDataError)) throw error;
    const raw = entry.tx?.transaction_hash;
    undecodable(raw instanceof Uint8Array ? Buffer.from(raw).toString('hex') : `pool entry ${position}`, message(error));
    return null;
  }
}
