/** The path parameters of the block routes. */
import { Type } from 'typebox';
import { ChainPathParams } from '../../schemas/common.ts';

const BlockIdParam = Type.String({
  description: 'A block height (decimal, no sign or leading zeros) or a block hash (64 hex digits, any case, with or without 0x).',
  examples: ['12345'],
});

export const BlockPathParams = Type.Object({ ...ChainPathParams.properties, id: BlockIdParam });
/** Routes of one chain (`/pos/blocks/{id}/...`): the chain is in the path. */
export const OneChainBlockPathParams = Type.Object({ id: BlockIdParam });

/** The echoed context of a list of one block's items. */
export const BlockEchoFields = {
  chain: Type.String(),
  network: Type.String(),
  height: Type.Integer({ description: 'Height of the block.' }),
  hash: Type.String({ description: 'Hash of the block.' }),
};
