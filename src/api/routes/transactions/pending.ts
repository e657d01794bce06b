/**
 * GET /api/v1/{chain}/transactions/pending: what the chain's node has not mined yet, as the indexer
 * following it last read its pool (ingest/pending.ts), newest first seen first, by cursor. Without
 * a following indexer the list is empty and `pending_source` says why. It reads the clock (whether
 * the last poll is recent), so the answer cache does not keep it.
 */
import { Type } from 'typebox';
import { readPendingPoll } from '../../../ingest/pending-store.ts';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { invalidParam } from '../../problem.ts';
import { ChainPathParams } from '../../schemas/common.ts';
import { PendingSource, pendingSource, PendingTransaction } from '../../schemas/pending.ts';
import { listRoute } from '../list-route.ts';
import { readPendingTransactions, type PendingRow } from './pending.read.ts';

const number = (value: number | string | null) => (value === null ? null : Number(value));

function pendingItem(row: PendingRow) {
  return {
    tx_hash: row.tx_hash,
    first_seen: formatTimestamp(Number(row.first_seen)),
    pool: row.pool,
    tx_type: row.tx_type,
    tx_type_evm: row.tx_type_evm,
    from_addr: row.from_addr,
    to_addr: row.to_addr,
    value: row.value,
    recipient_count: row.recipient_count,
    fee: row.fee,
    nonce: number(row.nonce),
    gas: number(row.gas),
    gas_price: row.gas_price,
    max_fee_per_gas: row.max_fee_per_gas,
    max_priority_fee_per_gas: row.max_priority_fee_per_gas,
  };
}

export function pendingTransactionsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/pending',
    tags: ['transactions'],
    operationId: 'getPendingTransactions',
    summary: 'What the chain\'s node has not mined yet, newest first seen first, by cursor',
    params: ChainPathParams,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: PendingTransaction,
    order: 'Newest first seen first: by first_seen, then hash, descending.',
    totalDescription: 'Pending transactions kept for the chain (at most the cap); 0 when the list is empty by force (see pending_source).',
    echo: { chain: Type.String(), network: Type.String(), pending_source: PendingSource },
    config: { snapshotCache: false },
    async prepare(ctx, { params }) {
      const { source, current } = pendingSource(await readPendingPoll(ctx.store, params.chain), Math.floor(Date.now() / 1000));
      return { echo: { chain: params.chain, network: ctx.network(params.chain), pending_source: source }, current };
    },
    cursorScope: ({ echo }) => echo.chain,
    async read(ctx, { echo, current }, { limit, after }) {
      if (!current) return { items: [], total: 0, hasMore: false, lastKey: null };
      const key = after ? ([Number(after[0]), String(after[1])] as const) : null;
      if (key && !Number.isSafeInteger(key[0])) throw invalidParam('cursor', 'is not a cursor returned by this query; pass next_cursor back unchanged');
      const { rows, total } = await readPendingTransactions(ctx.store, echo.chain, key, limit);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { items: page.map(pendingItem), total, hasMore: rows.length > limit, lastKey: last ? [Number(last.first_seen), last.tx_hash] : null };
    },
  });
}
