/**
 * A validator named in a path (docs/api-validators.md, "Naming a validator"):
 * - its index: decimal digits without sign or leading zeros, at most 2^53 - 1;
 * - its public key: `0x` and the key's hex digits in any case, as the beacon API writes and reads it
 *   (qrysm's handlers decode it with hexutil.Decode, which wants the prefix). qrysm's keys are
 *   ML-DSA-87 (Dilithium) keys of 2,592 bytes (fieldparams DilithiumPubkeyLength), 5,184 hex digits;
 *   a beacon node of Ethereum's API has 48-byte BLS keys, 96 digits. Either is looked up in the
 *   lowercase form the staking sync stores.
 */
import { invalidParam } from '../problem.ts';

export type ValidatorId = { index: number; pubkey?: undefined } | { pubkey: string; index?: undefined };

/** qrysm's validator public keys (ML-DSA-87, config/fieldparams DilithiumPubkeyLength). */
export const QRYSM_PUBKEY_BYTES = 2592;
/** An Ethereum beacon node's BLS12-381 public keys. */
export const BLS_PUBKEY_BYTES = 48;
/** The longest a validator path segment can be: 0x and qrysm's key in hex. */
export const MAX_VALIDATOR_ID_LENGTH = 2 + 2 * QRYSM_PUBKEY_BYTES;

const INDEX = /^(0|[1-9][0-9]{0,15})$/;
const PUBKEY = /^0[xX]([0-9a-fA-F]*)$/;

const MESSAGE =
  `is neither a validator index (decimal digits, no sign or leading zeros) nor a validator public key (0x and ${2 * QRYSM_PUBKEY_BYTES} hex digits: ` +
  `qrysm's ${QRYSM_PUBKEY_BYTES.toLocaleString('en')}-byte ML-DSA-87 keys; or ${2 * BLS_PUBKEY_BYTES} for a ${BLS_PUBKEY_BYTES}-byte BLS key of an Ethereum beacon node)`;

/** The validator `raw` names, or a 400 naming `param`. */
export function validatorIdParam(raw: string, param = 'validator'): ValidatorId {
  const key = PUBKEY.exec(raw);
  if (key) {
    const digits = key[1]!.length;
    if (digits === 2 * QRYSM_PUBKEY_BYTES || digits === 2 * BLS_PUBKEY_BYTES) return { pubkey: `0x${key[1]!.toLowerCase()}` };
    throw invalidParam(param, `is a public key of ${digits % 2 === 0 ? `${digits / 2} bytes` : `${digits} hex digits`}; a validator's is ${QRYSM_PUBKEY_BYTES.toLocaleString('en')} bytes (${2 * QRYSM_PUBKEY_BYTES} hex digits after 0x) on qrysm, ${BLS_PUBKEY_BYTES} on an Ethereum beacon node`);
  }
  if (INDEX.test(raw)) {
    const index = Number(raw);
    if (Number.isSafeInteger(index)) return { index };
  }
  throw invalidParam(param, MESSAGE);
}

/** How a validator id is written in messages (a key by its first and last digits). */
export function describeValidatorId(id: ValidatorId): string {
  return id.pubkey === undefined ? `index ${id.index}` : `public key ${id.pubkey.slice(0, 10)}…${id.pubkey.slice(-8)}`;
}
