/** The path parameter and echoed fields of the validator routes. */
import { Type } from 'typebox';
import { MAX_VALIDATOR_ID_LENGTH } from '../../params/validator-id.ts';

export const ValidatorPathParams = Type.Object({
  validator: Type.String({
    maxLength: MAX_VALIDATOR_ID_LENGTH,
    description: 'A validator index (decimal, no sign or leading zeros) or its public key (0x + hex, any case: 2,592 bytes on qrysm, 48 on an Ethereum beacon node).',
    examples: ['12'],
  }),
});

/** The echoed context of a list of one validator's items. */
export const ValidatorEchoFields = {
  chain: Type.String(),
  network: Type.String(),
  index: Type.Integer({ description: 'Index of the validator.' }),
};
