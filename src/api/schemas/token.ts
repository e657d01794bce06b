/** The token shapes of the token routes (docs/api-tokens.md): a list's summary and a token page. */
import { Type, type Static } from 'typebox';
import { Nullable, NullableAmount, NullableTimestamp } from './common.ts';

/** An amount of a token written for people: the raw amount shifted by its decimals, exact. */
export const TokenDisplay = (of: string) =>
  Nullable(
    Type.String({
      pattern: '^[0-9]+(\\.[0-9]+)?$',
      description: `${of} shifted by the token's decimals, exact, without trailing zeros (e.g. 1.5); the raw integer when the decimals are unknown; null when ${of} is.`,
      examples: ['1.5'],
    }),
  );

/** What a list of tokens shows of each. */
export const TokenSummaryFields = {
  token: Type.String({ description: 'The token\'s id: pos its contract address (Q form); pow the hash of the transaction that created it.' }),
  name: Nullable(Type.String({ description: 'Name; null when the token does not say (or its creation is not stored).' })),
  symbol: Nullable(Type.String({ description: 'Symbol; null when the token does not say.' })),
  decimals: Nullable(Type.Integer({ description: 'Decimals; null when the token does not say.' })),
  total_supply: { ...NullableAmount, description: 'In the token\'s smallest unit: what its transfers minted (from the zero address, pow: the initial balances) less what they burned (to the zero address).' },
  total_supply_display: TokenDisplay('total_supply'),
  holders: Type.Integer({ description: 'Addresses holding a positive balance of it (the zero address and pow\'s coinbase sentinel excluded).' }),
  transfers: Type.Integer({ description: 'Its transfers (pos Transfer logs; pow initial balances and transfer_token legs).' }),
  first_transfer_height: Nullable(Type.Integer({ description: 'Height of the block of its first transfer (pow: its creation; pos: usually its mint); null without one.' })),
  first_transfer_at: { ...NullableTimestamp, description: 'Time of that block.' },
};

export const TokenSummary = Type.Object(TokenSummaryFields, { description: 'A token as the list shows it.' });
export type TokenSummaryType = Static<typeof TokenSummary>;

export const TokenDetail = Type.Object(
  {
    chain: Type.String(),
    network: Type.String(),
    ...TokenSummaryFields,
    creator: Nullable(Type.String({ description: 'Who created it: the sender of the pow token transaction, the deployer of the pos contract; null when unknown.' })),
    created_tx: Nullable(Type.String({ description: 'Hash of the transaction that created it (a pow token\'s id); null when unknown.' })),
    created_height: Nullable(Type.Integer({ description: 'Height of that transaction\'s block; null when it is not stored.' })),
    created_at: { ...NullableTimestamp, description: 'Time of that block.' },
  },
  { description: 'A token: its metadata, supply, holder and transfer counts, and its creation.' },
);
export type TokenDetailType = Static<typeof TokenDetail>;
