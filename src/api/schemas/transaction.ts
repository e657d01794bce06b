/** TransactionDetail (spec section 2): one row of a transaction list, declared once. */
import { Type, type Static } from 'typebox';
import { Amount, Nullable, NullableTimestamp } from './common.ts';

const NullableInteger = (description: string) => Nullable(Type.Integer({ description }));
const NullableString = (description: string) => Nullable(Type.String({ description }));
const NullableAmountOf = (description: string) => ({ ...Nullable(Amount), description });

export const TransactionDetail = Type.Object(
  {
    chain: Type.String(),
    network: Type.String(),
    tx_hash: Type.String(),
    height: NullableInteger('Block height.'),
    timestamp: NullableTimestamp,
    from_addr: NullableString('Sender: whose balance pays the value and the fee (on pow also when a slave key signed).'),
    to_addr: NullableString(
      'Recipient of this row: the single recipient, or on a multi-recipient pow transfer the recipient at recipient_index. ' +
        'Null for a contract creation (see contract_address) and for transactions without a recipient.',
    ),
    block_hash: NullableString('Hash of the block.'),
    tx_index: NullableInteger('Position of the transaction in its block.'),
    recipient_index: NullableInteger('Position of this row\'s recipient in the transaction\'s recipient list (pow transfers); null when the transaction has no list.'),
    value: NullableAmountOf('Native value of this row: the amount sent to this row\'s recipient (the whole value when the transaction has one recipient).',
    ),
    fee: NullableAmountOf('Fee of the whole transaction, paid once by the sender; the same on every row of a multi-recipient transaction.'),
    nonce: NullableInteger('Sender nonce (pos).'),
    tx_type: NullableString('pow subtype (transfer, coinbase, message, slave, ...) or pos transfer, contract_call, contract_create.'),
    tx_type_evm: NullableInteger('pos: EIP-2718 envelope type.'),
    gas: NullableInteger('pos: gas limit.'),
    gas_used: NullableInteger('pos: gas used.'),
    gas_price: NullableAmountOf('pos: gas price (planck).'),
    effective_gas_price: NullableAmountOf('pos: effective gas price paid (planck).'),
    contract_address: NullableString('pos: the contract this transaction created.'),
    status: NullableInteger('pos: 1 success, 0 reverted (a reverted transaction moves no value but pays its fee).'),
    master_addr: NullableString('pow: the master address when a slave key signed.'),
    signer_addr: NullableString('pow: the slave address whose key signed, when it is not from_addr.'),
    input_data: NullableString('Hex data: pos call input, pow message payload.'),
  },
  { description: 'A transaction as one row per recipient (spec section 2).' },
);

export type TransactionDetailType = Static<typeof TransactionDetail>;
