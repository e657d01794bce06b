/** AddressSummaryRow (spec section 2): a leaderboard row, declared once. */
import { Type, type Static } from 'typebox';
import { Nullable, NullableAmount, NullableTimestamp } from './common.ts';

export const AddressSummaryRow = Type.Object({
  address: Type.String(),
  chain: Nullable(Type.String()),
  network: Nullable(Type.String()),
  balance: NullableAmount,
  total_received: NullableAmount,
  total_sent: NullableAmount,
  total_fees_paid: NullableAmount,
  tx_count: Nullable(Type.Integer()),
  tx_received_count: Nullable(Type.Integer()),
  tx_sent_count: Nullable(Type.Integer()),
  first_seen: NullableTimestamp,
  last_seen: NullableTimestamp,
  label: Nullable(Type.String({ description: 'Filled only with with_labels=true.' })),
  label_category: Nullable(Type.String({ description: 'Filled only with with_labels=true.' })),
  received_30d: { ...NullableAmount, description: 'Filled only with with_delta_30d=true: value received in the 30 UTC days ending with the latest block’s day.' },
  sent_30d: { ...NullableAmount, description: 'Filled only with with_delta_30d=true: value sent in that window, fees excluded.' },
});

export type AddressSummaryRowType = Static<typeof AddressSummaryRow>;
