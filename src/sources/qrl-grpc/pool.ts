/**
 * The QRL node's pool as the pending poller reads it (ingest/pending.ts): `GetLatestData` with the
 * filter TRANSACTIONS_UNCONFIRMED, which answers the node's validated pool (theQRL/QRL
 * qrlnode.py `get_latest_transactions_unconfirmed`: `TransactionPool.transactions`, highest fee
 * first) from `offset`, at most 100 a call (PublicAPIService.py `MAX_REQUEST_QUANTITY`). Each entry
 * is a TransactionExtended whose `tx` decodes as a block's transaction does (decode.ts `decodeTx`).
 *
 * A pool of more than 100 is read page by page, and the pages of one read are one moment of the
 * pool only if no block changed it meanwhile: when the node's head moves during a paged read, the
 * read is not complete (nothing is dropped on its word). A read stops at about `limit` entries.
 */
import type { Logger } from 'pino';
import type { PoolReader, PoolTx } from '../../chain/model.ts';
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
      for (;;) {
        const answer = await getLatestData(client, TRANSACTIONS_UNCONFIRMED, offset, LATEST_DATA_QUANTITY);
        const page: unknown[] = Array.isArray(answer.transactions_unconfirmed) ? answer.transactions_unconfirmed : [];
        page.forEach((entry, i) => {
          const tx = poolTx(entry as Decoded, offset + i, (hash, error) => {
            if (reported.size >= MAX_REPORTED) reported.clear();
            if (!reported.has(hash)) logger?.warn({ hash, err: error }, 'a pending pow transaction does not decode: left out of the pending list');
            reported.add(hash);
          });
          if (tx && !seen.has(tx.hash)) {
            seen.add(tx.hash);
            txs.push(tx);
          }
        });
        offset += page.length;
        if (page.length < LATEST_DATA_QUANTITY) break;
        if (offset >= limit) {
          full = true;
          break;
        }
      }
      const paged = offset >= LATEST_DATA_QUANTITY;
      const moved = paged && (await nodeHead(client)).hash !== before.hash;
      return { txs, complete: !full && !moved, poolSize: full ? null : offset };
    },
  };
}

/** One TransactionExtended of the pool, or null (reported) when its transaction does not decode. */
function poolTx(entry: Decoded, position: number, undecodable: (hash: string, error: string) => void): PoolTx | null {
  try {
    const { tx } = decodeTx(entry.tx ?? {}, position);
    if (tx.type === 'coinbase') throw new NodeDataError('tx', 'a coinbase in the pool');
    return {
      hash: tx.hash,
      pool: 'pending',
      type: tx.type,
      typeEvm: null,
      from: tx.from,
      to: tx.to,
      value: tx.value,
      recipientCount: tx.recipients?.length ?? 1,
      fee: tx.fee,
      nonce: tx.nonce,
      gas: null,
      gasPrice: null,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
    };
  } catch (error) {
    if (!(error instanceof NodeDataError)) throw error;
    const raw = entry.tx?.transaction_hash;
    undecodable(raw instanceof Uint8Array ? Buffer.from(raw).toString('hex') : `pool entry ${position}`, message(error));
    return null;
  }
}
