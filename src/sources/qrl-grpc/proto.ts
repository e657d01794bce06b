/**
 * The QRL node's messages (qrl.proto beside this file), loaded once with protobufjs, keeping the
 * proto field names (`addrs_to`, not `addrsTo`) so the code reads like the definitions.
 */
import path from 'node:path';
import protobuf from 'protobufjs';

const root = new protobuf.Root().loadSync(path.join(import.meta.dirname, 'qrl.proto'), { keepCase: true });

export const messages = {
  GetNodeStateReq: root.lookupType('qrl.GetNodeStateReq'),
  GetNodeStateResp: root.lookupType('qrl.GetNodeStateResp'),
  GetStatsReq: root.lookupType('qrl.GetStatsReq'),
  GetStatsResp: root.lookupType('qrl.GetStatsResp'),
  GetAddressStateReq: root.lookupType('qrl.GetAddressStateReq'),
  GetAddressStateResp: root.lookupType('qrl.GetAddressStateResp'),
  GetOptimizedAddressStateResp: root.lookupType('qrl.GetOptimizedAddressStateResp'),
  GetObjectReq: root.lookupType('qrl.GetObjectReq'),
  GetObjectResp: root.lookupType('qrl.GetObjectResp'),
  GetTransactionReq: root.lookupType('qrl.GetTransactionReq'),
  GetTransactionResp: root.lookupType('qrl.GetTransactionResp'),
  GetHeightReq: root.lookupType('qrl.GetHeightReq'),
  GetHeightResp: root.lookupType('qrl.GetHeightResp'),
  GetBlockByNumberReq: root.lookupType('qrl.GetBlockByNumberReq'),
  GetBlockByNumberResp: root.lookupType('qrl.GetBlockByNumberResp'),
  GetLatestDataReq: root.lookupType('qrl.GetLatestDataReq'),
  GetLatestDataResp: root.lookupType('qrl.GetLatestDataResp'),
  Block: root.lookupType('qrl.Block'),
  Transaction: root.lookupType('qrl.Transaction'),
} as const;

/** A decoded message as protobufjs gives it: untyped until decode.ts has checked each field it reads. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Decoded = Record<string, any>;

/** The service's calls as gRPC paths. */
export const SERVICE = 'qrl.PublicAPI';
export const METHODS = ['GetNodeState', 'GetStats', 'GetAddressState', 'GetOptimizedAddressState', 'GetObject', 'GetLatestData', 'GetTransaction', 'GetHeight', 'GetBlockByNumber'] as const;
export type Method = (typeof METHODS)[number];
export const methodPath = (method: Method) => `/${SERVICE}/${method}`;

/** Request and response types of each call. */
export const CALL_TYPES: Record<Method, { request: protobuf.Type; response: protobuf.Type }> = {
  GetNodeState: { request: messages.GetNodeStateReq, response: messages.GetNodeStateResp },
  GetStats: { request: messages.GetStatsReq, response: messages.GetStatsResp },
  GetAddressState: { request: messages.GetAddressStateReq, response: messages.GetAddressStateResp },
  GetOptimizedAddressState: { request: messages.GetAddressStateReq, response: messages.GetOptimizedAddressStateResp },
  GetObject: { request: messages.GetObjectReq, response: messages.GetObjectResp },
  GetLatestData: { request: messages.GetLatestDataReq, response: messages.GetLatestDataResp },
  GetTransaction: { request: messages.GetTransactionReq, response: messages.GetTransactionResp },
  GetHeight: { request: messages.GetHeightReq, response: messages.GetHeightResp },
  GetBlockByNumber: { request: messages.GetBlockByNumberReq, response: messages.GetBlockByNumberResp },
};

/** A decoded uint64 (protobufjs gives a Long, or a number for small values) as a bigint. */
export function u64(value: unknown): bigint {
  if (typeof value === 'number') return BigInt(value);
  if (typeof value === 'bigint') return value;
  if (value && typeof value === 'object' && 'low' in value && 'high' in value) {
    const { low, high } = value as { low: number; high: number };
    return (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
  }
  if (value === undefined || value === null) return 0n;
  throw new TypeError(`not a uint64: ${String(value)}`);
}

/**
 * The length of the first length-delimited field `field` of an encoded message: the encoded size
 * of an embedded message (a block's size as the node counts it is its serialized length).
 */
export function embeddedLength(encoded: Uint8Array, field: number): number | null {
  const reader = protobuf.Reader.create(encoded);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === field && (tag & 7) === 2) return reader.uint32();
    reader.skipType(tag & 7);
  }
  return null;
}
