/**
 * GET /api/v1/{chain}/transactions/{hash}: one transaction with what its page shows (recipients,
 * token and internal transfers, receipt, fee and burn, confirmations, migration leg, the pow
 * subtype's body: slave keys, token, message, lattice keys, multi-signature fields). A hash a reorg removed answers 404 saying so.
 */
import { Type, type Static } from 'typebox';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { notFound } from '../../problem.ts';
import { Amount, Nullable, NullableAmount, StringEnum, STANDARD_ERRORS, Timestamp } from '../../schemas/common.ts';
import { CHAINS, type ChainId } from '../../../chain/chains.ts';
import { formatTimestamp } from '../../../time.ts';
import { hashParam } from '../../params/chain-hash.ts';
import { toTransactionDetail } from '../addresses/feed/rows.ts';
import { ChainTransaction } from './list.ts';
import { readOrphan, readTransactionPage, type LegEntry, type TxPageRow } from './detail.read.ts';

const TransactionParams = Type.Object({
  chain: StringEnum(CHAINS, { description: 'Chain: pow (legacy proof of work) or pos (QRL 2.0).' }),
  hash: Type.String({ maxLength: 200, description: 'Transaction hash: pos 0x + 64 hex, pow 64 hex; any case.' }),
});

const Recipient = Type.Object({
  recipient_index: Type.Integer({ description: 'Position in the transaction\'s recipient list.' }),
  to_addr: Type.String(),
  amount: { ...Amount, description: 'Native amount to this recipient (0 on a transfer_token entry: its tokens are in token_transfers).' },
});

const TokenTransfer = Type.Object({
  log_index: Type.Integer({ description: 'pos: the log\'s index in the block; pow: the entry\'s position in the transaction.' }),
  contract: Type.String({ description: 'The token: pos contract address, pow hash of the token\'s creating transaction.' }),
  from_addr: Type.String(),
  to_addr: Type.String(),
  amount: { ...Amount, description: 'In the token\'s smallest unit.' },
  token_name: Nullable(Type.String()),
  token_symbol: Nullable(Type.String()),
  token_decimals: Nullable(Type.Integer()),
});

const InternalTransfer = Type.Object({
  trace_address: Type.String({ description: 'Path of the call frame below the top level, e.g. 0.1.' }),
  call_type: Type.String({ description: 'call, create, create2, selfdestruct, …' }),
  from_addr: Type.String(),
  to_addr: Type.String(),
  value: Amount,
});

const MigrationLeg = Type.Object({
  chain: Type.String(),
  role: StringEnum(['burn', 'mint'] as const),
  tx_hash: Type.String(),
  height: Type.Integer(),
  timestamp: Timestamp,
  from_addr: Type.String(),
  to_addr: Type.String(),
  amount: { ...Amount, description: 'In the leg\'s chain\'s smallest unit.' },
});

const Migration = Type.Object(
  {
    account_id: Type.String(),
    role: StringEnum(['burn', 'mint'] as const, { description: 'This transaction\'s part: the pow burn or the pos mint.' }),
    amount: { ...Amount, description: 'Burned (shor) or minted (planck) by this transaction.' },
    counterpart: Nullable(MigrationLeg),
  },
  { description: 'The pow-to-pos migration this transaction is a leg of; counterpart is the other chain\'s leg of the same account id, null until it is stored.' },
);

const Token = Type.Object(
  {
    address: Type.String({ description: 'The token: pow the creating transaction\'s hash (this one), pos the deployed contract.' }),
    name: Nullable(Type.String()),
    symbol: Nullable(Type.String()),
    decimals: Nullable(Type.Integer()),
    creator: Nullable(Type.String()),
    total_supply: { ...NullableAmount, description: 'pow: the sum of the initial balances, a QRL token\'s whole supply; null on pos.' },
  },
  { description: 'The token this transaction created (pow token, pos deployment of a token contract); null otherwise.' },
);

const SlaveKey = Type.Object({
  slave_address: Type.String({ description: 'Address of the registered slave key.' }),
  access_type: Type.Integer({ description: 'Access type granted (0 = all).' }),
});

const LatticeKeys = Type.Object(
  {
    kyber_pk: Type.String({ description: 'pk1: the Kyber public key, hex (empty when not given).' }),
    dilithium_pk: Type.String({ description: 'pk2: the Dilithium public key, hex (empty when not given).' }),
    ecdsa_pk: Type.String({ description: 'pk3: the ECDSA public key, hex (empty when not given).' }),
  },
  { description: 'pow latticePK transaction: the public keys its sender published for encrypted messaging; null otherwise.' },
);

const MultiSig = Type.Object(
  {
    kind: StringEnum(['create', 'spend', 'vote'] as const, { description: 'multi_sig_create, multi_sig_spend or multi_sig_vote.' }),
    multisig_address: Nullable(Type.String({
      description: 'create: the address it made; spend: the address it spends from; vote: that of the spend voted on (null if that spend is not stored).',
    })),
    threshold: Nullable(Type.Integer({ description: 'create: the sum of approving weights that carries a spend.' })),
    signatories: Nullable(Type.Array(Type.Object({ address: Type.String(), weight: Type.Integer() }), { description: 'create: the signatories in order, with their weights.' })),
    recipients: Nullable(Type.Array(Recipient, { description: 'spend: who it pays, and how much, if its votes carry it.' })),
    total: { ...NullableAmount, description: 'spend: the sum of its recipients\' amounts.' },
    expiry_height: Nullable(Type.Integer({ description: 'spend: no vote counts in a block above this height.' })),
    spend_tx_hash: Nullable(Type.String({ description: 'vote: the hash of the spend voted on.' })),
    unvote: Nullable(Type.Boolean({ description: 'vote: true when the vote withdraws the signatory\'s approval.' })),
  },
  {
    description:
      'pow multi-signature transaction: its body; fields of the other kinds are null. Whether a spend was approved, ' +
      'executed or expired is at GET /pow/addresses/{multisig_address}/multisig.',
  },
);

export const TransactionPage = Type.Object(
  {
    ...ChainTransaction.properties,
    recipients: Type.Array(Recipient, { description: 'Every entry of the recipient list in order (pow transfer and transfer_token); empty without a list.' }),
    token_transfers: Type.Array(TokenTransfer, { description: 'Token movements the transaction caused, in log order (pow: transfer_token legs, a token\'s initial balances).' }),
    internal_transfers: Type.Array(InternalTransfer, { description: 'pos: value moved by nested call frames, in trace order; empty on pow.' }),
    burned: { ...NullableAmount, description: 'pos: the base-fee part of the fee, destroyed; null on pow.' },
    max_fee_per_gas: { ...NullableAmount, description: 'pos: the sender\'s fee cap (EIP-1559), null for legacy transactions.' },
    max_priority_fee_per_gas: { ...NullableAmount, description: 'pos: the sender\'s tip cap (EIP-1559), null for legacy transactions.' },
    confirmations: Type.Integer({ description: 'Stored tip height minus the transaction\'s height (0 in the tip block).' }),
    ots_index: Nullable(Type.Integer({ description: 'pow: the XMSS one-time key index of the signature.' })),
    migration: Nullable(Migration),
    slave_keys: Nullable(Type.Array(SlaveKey, { description: 'pow slave transaction: the keys it registered, by address.' })),
    token: Nullable(Token),
    lattice_keys: Nullable(LatticeKeys),
    multi_sig: Nullable(MultiSig),
  },
  { description: 'A transaction as one object (not per recipient), with what a transaction page shows.' },
);

type Page = Static<typeof TransactionPage>;

function migrationLeg(l: LegEntry, amount: AnswerAmount) {
  return {
    chain: l.chain,
    role: l.role as 'burn' | 'mint',
    tx_hash: l.tx_hash,
    height: l.height,
    timestamp: formatTimestamp(l.ts),
    from_addr: l.from_addr,
    to_addr: l.to_addr,
    amount: amount(l.amount, l.from_addr, 'migration.counterpart.amount', { tx_hash: l.tx_hash }) ?? '0',
  };
}

function toPage(row: TxPageRow, chain: ChainId, network: string, amount: AnswerAmount): Page {
  const where = { tx_hash: row.tx_hash };
  const of = (value: string | null, field: string) => amount(value, row.from_addr, field, where);
  const m = row.migration;
  const ms = row.multi_sig;
  return {
    ...toTransactionDetail({ ...row, ri: 0, recipient_index: null }, chain, network, row.from_addr, amount),
    recipient_count: row.recipient_count,
    recipients: row.recipients.map((r) => ({ recipient_index: r.recipient_index, to_addr: r.to_addr, amount: of(r.amount, 'recipients.amount') ?? '0' })),
    token_transfers: row.token_transfers.map((x) => ({
      log_index: x.log_index,
      contract: x.contract,
      from_addr: x.from_addr,
      to_addr: x.to_addr,
      amount: of(x.amount, 'token_transfers.amount') ?? '0',
      token_name: x.name,
      token_symbol: x.symbol,
      token_decimals: x.decimals,
    })),
    internal_transfers: row.internal_transfers.map((i) => ({ ...i, value: of(i.value, 'internal_transfers.value') ?? '0' })),
    burned: chain === 'pos' ? of(row.burned, 'burned') : null,
    max_fee_per_gas: of(row.max_fee_per_gas, 'max_fee_per_gas'),
    max_priority_fee_per_gas: of(row.max_priority_fee_per_gas, 'max_priority_fee_per_gas'),
    confirmations: Math.max(0, row.tip_height - row.height),
    ots_index: row.ots_index,
    migration: m && {
      account_id: m.account_id,
      role: m.role as 'burn' | 'mint',
      amount: of(m.amount, 'migration.amount') ?? '0',
      counterpart: m.counterpart && migrationLeg(m.counterpart, amount),
    },
    slave_keys: row.tx_type === 'slave' ? row.slaves : null,
    token: row.token && { ...row.token, total_supply: row.token.total_supply === null ? null : of(row.token.total_supply, 'token.total_supply') },
    lattice_keys: row.lattice_keys,
    multi_sig: ms && {
      ...ms,
      recipients: ms.recipients && ms.recipients.map((r) => ({ ...r, amount: of(r.amount, 'multi_sig.recipients.amount') ?? '0' })),
      total: ms.total === null ? null : of(ms.total, 'multi_sig.total'),
    },
  };
}

export function transactionDetailRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:hash',
    {
      schema: {
        tags: ['transactions'],
        operationId: 'getChainTransaction',
        summary: 'One transaction with its recipients, token and internal transfers, receipt, migration leg and subtype',
        params: TransactionParams,
        response: {
          200: TransactionPage,
          ...STANDARD_ERRORS,
          404: { ...STANDARD_ERRORS[404], description: 'Unknown chain, or no stored transaction has this hash (the detail says when a reorg removed it).' },
        },
      },
    },
    async (request) => {
      const { chain } = request.params;
      const hash = hashParam(chain, request.params.hash);
      const row = await readTransactionPage(ctx.store, chain, hash);
      if (row) return toPage(row, chain, ctx.network(chain), answerAmounts(request.log, chain));
      const orphan = await readOrphan(ctx.store, chain, hash);
      if (orphan) {
        throw notFound(
          `${chain} transaction ${hash} is not in the canonical chain: it was in block ${orphan.height} (hash ${orphan.block_hash}), ` +
            `removed by a reorganisation at height ${orphan.reorg_height} on ${formatTimestamp(orphan.removed_ts)} UTC`,
        );
      }
      throw notFound(`no ${chain} transaction with hash ${hash} is stored`);
    },
  );
}
