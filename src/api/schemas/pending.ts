/**
 * Pending transactions as the API answers them (docs/api-transactions.md, "Pending transactions"):
 * a list item, and `PendingSource`, whether an indexer follows the chain's node and when it last
 * read the node's pool: the list's envelope and the network health say it the same way.
 */
import { Type, type Static } from 'typebox';
import { PENDING_CAP, pendingStaleSeconds, pendingState, type PendingPoll } from '../../ingest/pending-store.ts';
import { formatTimestamp } from '../../time.ts';
import { Amount, Nullable, NullableAmount, NullableTimestamp, StringEnum, Timestamp } from './common.ts';

export const PendingTransaction = Type.Object(
  {
    tx_hash: Type.String(),
    first_seen: { ...Timestamp, description: 'When the indexer first read it in the node\'s pool (UTC, YYYY-MM-DDTHH:MM:SS).' },
    pool: StringEnum(['pending', 'queued'] as const, {
      description: 'pos: pending, executable now; queued, waiting for an earlier nonce of its sender. pow: pending.',
    }),
    tx_type: Type.String({ description: 'As in the transaction list: pow its subtype; pos transfer, contract_call or contract_create (a transfer to an address with code at the node\'s head is a contract_call).' }),
    tx_type_evm: Nullable(Type.Integer({ description: 'pos: the EIP-2718 envelope type; null on pow.' })),
    from_addr: Type.String(),
    to_addr: Nullable(Type.String({ description: 'Null on a pos contract creation and on a pow transfer to several recipients.' })),
    value: { ...Amount, description: 'The native amount it sends (on pow, to all its recipients).' },
    recipient_count: Type.Integer({ description: 'pow: recipients of a transfer or transfer_token; 1 otherwise.' }),
    fee: { ...NullableAmount, description: 'pow: the fee it pays (shor). pos: null, since the fee is known once mined (gas used × effective gas price).' },
    nonce: Nullable(Type.Integer()),
    gas: Nullable(Type.Integer({ description: 'pos: the gas limit; null on pow.' })),
    gas_price: { ...NullableAmount, description: 'pos: what the node gives for a transaction in its pool, the fee cap (maxFeePerGas) of a type-2 transaction; null on pow.' },
    max_fee_per_gas: { ...NullableAmount, description: 'pos: the EIP-1559 fee cap; null for legacy transactions and on pow.' },
    max_priority_fee_per_gas: { ...NullableAmount, description: 'pos: the EIP-1559 tip cap; null for legacy transactions and on pow.' },
  },
  { description: 'A transaction the node has not mined yet.' },
);

export const PendingSource = Type.Object(
  {
    following: Type.Boolean({ description: 'Whether an indexer follows the chain\'s node: it polls the node\'s pool and has polled it recently (see reason).' }),
    reason: Nullable(Type.String({ description: 'Why the pending list is empty whatever the pool holds: no indexer follows, or the pool could not be read recently. Null while the list shows the pool.' })),
    method: Nullable(Type.String({ description: 'The node method the pool is read with: txpool_content (pos), GetLatestData (pow); null before any poll.' })),
    interval_seconds: Nullable(Type.Number({ description: 'Seconds between two polls of the indexer.' })),
    stale_after_seconds: Nullable(Type.Integer({ description: 'A poll older than this no longer counts: three intervals, at least 60 s.' })),
    last_poll_time: { ...NullableTimestamp, description: 'When the last poll ended, whether or not it read the pool.' },
    last_read_time: { ...NullableTimestamp, description: 'When a poll last read the pool.' },
    pool_size: Nullable(Type.Integer({ description: 'Transactions the node\'s pool held at the last read (null when the read stopped at the cap, or before any).' })),
    cap: Type.Integer({ description: `Most pending transactions kept per chain (${PENDING_CAP}); while the pool holds more, those first seen then are not kept.` }),
    error: Nullable(Type.String({ description: 'Why the last poll did not read the pool; null when it did.' })),
  },
  { description: 'Where the pending list comes from: the indexer following the chain\'s node, and its last read of the node\'s pool.' },
);

export type PendingSourceAnswer = Static<typeof PendingSource>;

/** What `PendingSource` says of `poll` at `now` (Unix seconds), and whether the stored set may be shown. */
export function pendingSource(poll: PendingPoll | null, now: number): { source: PendingSourceAnswer; current: boolean } {
  const state = pendingState(poll, now);
  return {
    current: state.current,
    source: {
      following: state.following,
      reason: state.reason,
      method: poll?.method ?? null,
      interval_seconds: poll ? poll.intervalMs / 1000 : null,
      stale_after_seconds: poll ? pendingStaleSeconds(poll.intervalMs) : null,
      last_poll_time: poll ? formatTimestamp(poll.polledTs) : null,
      last_read_time: poll?.okTs == null ? null : formatTimestamp(poll.okTs),
      pool_size: poll?.poolSize ?? null,
      cap: PENDING_CAP,
      error: poll?.error ?? null,
    },
  };
}
