/** GET /api/v1/{chain}/addresses/{address}: AddressDetail, the totals and identity of one address. */
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestampOrNull } from '../../../time.ts';
import { addressParam } from '../../params/address.ts';
import { AddressPathParams, BooleanQuery, isTrue, Nullable, NullableAmount, NullableTimestamp, STANDARD_ERRORS, StringEnum } from '../../schemas/common.ts';
import { INTERNAL_TRANSFER_STATES, readInternalTransfers, type InternalTransferState } from '../../../store/internal-transfers.ts';
import type { AddressFacts } from '../../../domain/address-facts.ts';
import { classifyWallet } from '../../../domain/wallet-class.ts';
import { loadAddressFacts } from './profile/facts.ts';

const NullableInteger = (description: string) => Nullable(Type.Integer({ description }));

const AddressDetailResponse = Type.Object(
  {
    chain: Type.String(),
    network: Type.String(),
    address: Type.String({ description: 'Canonical form: Q + lowercase hex.' }),
    balance: { ...NullableAmount, description: 'Received less sent less fees, over every indexed movement.' },
    total_received: { ...NullableAmount, description: 'All incoming native value: transfers, coinbase, internal transfers, withdrawals, fee tips, genesis.' },
    total_sent: { ...NullableAmount, description: 'All outgoing native value, fees excluded.' },
    total_fees_paid: NullableAmount,
    tx_count: NullableInteger('Logical transactions touching the address (a multi-recipient transfer counts once).'),
    tx_received_count: NullableInteger('Logical transactions in which the address receives.'),
    tx_sent_count: NullableInteger('Logical transactions the address sends (or signs as a pow slave key).'),
    first_seen: { ...NullableTimestamp, description: 'Time of the first transaction touching the address.' },
    last_seen: { ...NullableTimestamp, description: 'Time of the latest transaction touching the address.' },
    master_address: Nullable(Type.String({ description: 'pow: the master that registered this slave key; null otherwise.' })),
    wallet_class: Nullable(Type.String({ description: 'See docs/metrics.md, "Wallet class"; null for an address never seen and not curated.' })),
    wallet_class_method: Nullable(Type.String({ description: 'protocol, curated, onchain or heuristic.' })),
    wallet_class_reason: Nullable(Type.String()),
    is_deployer: Nullable(Type.Boolean({ description: 'pos: the address created at least one contract; null on pow.' })),
    withdrawal_count: NullableInteger('pos: consensus-layer withdrawals credited to the address; null on pow.'),
    withdrawal_total: { ...NullableAmount, description: 'pos: their total; null on pow.' },
    internal_tx_count: NullableInteger('pos: internal transfers touching the address (a self-transfer once); null on pow.'),
    internal_transfers: StringEnum(INTERNAL_TRANSFER_STATES, {
      description: 'Whether internal_tx_count and the internal transfers in the totals are complete: not_indexed when the pos indexer runs without a tracer (--no-traces); not_applicable on pow.',
    }),
    label: Type.Optional(Nullable(Type.String({ description: 'With with_labels=true: the primary curated label.' }))),
    label_category: Type.Optional(Nullable(Type.String({ description: 'With with_labels=true: its category.' }))),
  },
  { description: 'AddressDetail. An address never seen answers zeros and nulls.' },
);

const AddressDetailQuery = Type.Object({
  with_labels: BooleanQuery('Include label and label_category of the primary label'),
});

function addressDetail(chain: ChainId, network: string, f: AddressFacts, withLabels: boolean, amount: AnswerAmount, internalTransfers: InternalTransferState): Static<typeof AddressDetailResponse> {
  const pos = chain === 'pos';
  const walletClass = classifyWallet(f);
  return {
    chain,
    network,
    address: f.address,
    // An unknown balance: the totals count only from the first indexed height, so they are not answered either.
    balance: f.balanceKnown ? amount(f.balance, f.address, 'balance') : null,
    total_received: f.balanceKnown ? amount(f.totalReceived, f.address, 'total_received') : null,
    total_sent: f.balanceKnown ? amount(f.totalSent, f.address, 'total_sent') : null,
    total_fees_paid: amount(f.totalFeesPaid, f.address, 'total_fees_paid'),
    tx_count: f.txCount,
    tx_received_count: f.txReceivedCount,
    tx_sent_count: f.txSentCount,
    first_seen: formatTimestampOrNull(f.firstSeen),
    last_seen: formatTimestampOrNull(f.lastSeen),
    master_address: f.masterAddress,
    wallet_class: walletClass?.walletClass ?? null,
    wallet_class_method: walletClass?.method ?? null,
    wallet_class_reason: walletClass?.reason ?? null,
    is_deployer: pos ? f.deployedCount > 0 : null,
    withdrawal_count: pos ? f.withdrawalCount : null,
    withdrawal_total: pos ? amount(f.withdrawalTotal, f.address, 'withdrawal_total') : null,
    internal_tx_count: pos ? f.internalTxCount : null,
    internal_transfers: internalTransfers,
    ...(withLabels ? { label: f.label, label_category: f.labelCategory } : {}),
  };
}

export function addressDetailRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getAddress',
        summary: 'Balance, totals, counts and identity of an address',
        params: AddressPathParams,
        querystring: AddressDetailQuery,
        response: { 200: AddressDetailResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const { chain } = request.params;
      const address = addressParam(request, chain, request.params.address);
      const facts = await loadAddressFacts(ctx, chain, address);
      const internalTransfers = (await readInternalTransfers(ctx.store, chain)).status;
      return addressDetail(chain, ctx.network(chain), facts, isTrue(request.query.with_labels), answerAmounts(request.log, chain), internalTransfers);
    },
  );
}
