/**
 * A client of the QRL node's public gRPC service (`qrl.PublicAPI`) on @grpc/grpc-js, with our own
 * copy of the messages (qrl.proto). Bounded concurrency (calls beyond `concurrency` wait their
 * turn), a deadline per call, and retries with exponential backoff and jitter for the failures a
 * node recovers from (unavailable, deadline exceeded, resource exhausted, aborted). Responses are
 * decoded here, not inside grpc-js, so a malformed message is a NodeDataError (an undecodable block,
 * fetched again by the pipeline) rather than a transport failure.
 */
import * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { CALL_TYPES, embeddedLength, methodPath, type Decoded, type Method } from './proto.ts';
import { message, NodeCallError, NodeDataError } from './errors.ts';

export interface QrlClientOptions {
  /** host:port of the node's public API. */
  address: string;
  /** Calls in flight at once. Default 16. */
  concurrency?: number;
  /** Deadline of one call. Default 30 s. */
  timeoutMs?: number;
  /** Attempts per call for retryable failures. Default 6. */
  maxAttempts?: number;
  onRetry?: (info: { method: Method; attempt: number; delayMs: number; error: Error }) => void;
}

/** The decoded response, and the encoded bytes it came from. */
export interface Answer {
  message: Decoded;
  bytes: Buffer;
}

export interface QrlClient {
  call(method: Method, request: Record<string, unknown>): Promise<Answer>;
  /** The encoded answer, not decoded (measuring a node's serve rate). */
  raw(method: Method, request: Record<string, unknown>): Promise<Buffer>;
  close(): void;
}

const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED, grpc.status.CANCELLED]);
const MAX_MESSAGE = 256 * 1024 * 1024;

export function createQrlClient(options: QrlClientOptions): QrlClient {
  const client = new grpc.Client(options.address, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': MAX_MESSAGE,
    'grpc.max_send_message_length': MAX_MESSAGE,
  });
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 6;
  let active = 0;
  const queue: (() => void)[] = [];
  let closed = false;

  async function slot<T>(fn: () => Promise<T>): Promise<T> {
    if (active >= concurrency) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      queue.shift()?.();
    }
  }

  function once(method: Method, request: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        methodPath(method),
        (b: Buffer) => b,
        (b: Buffer) => b,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + timeoutMs },
        (error, value) => {
          if (error) reject(new NodeCallError(method, error.details || error.message, error.code, RETRYABLE.has(error.code) && !closed));
          else resolve(value ?? Buffer.alloc(0));
        },
      );
    });
  }

  async function withRetries(method: Method, request: Record<string, unknown>): Promise<Buffer> {
    const { request: requestType } = CALL_TYPES[method];
    const encoded = Buffer.from(requestType.encode(requestType.fromObject(request)).finish());
    for (let attempt = 1; ; attempt++) {
      try {
        return await slot(() => once(method, encoded));
      } catch (error) {
        if (!(error instanceof NodeCallError) || !error.retryable || attempt >= maxAttempts) throw error;
        const delayMs = Math.min(10_000, 200 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
        options.onRetry?.({ method, attempt, delayMs, error });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  return {
    async call(method, request) {
      const bytes = await withRetries(method, request);
      return { message: decode(CALL_TYPES[method].response, bytes, method), bytes };
    },
    raw: withRetries,
    close() {
      closed = true;
      client.close();
    },
  };
}

function decode(type: protobuf.Type, bytes: Buffer, method: Method): Decoded {
  try {
    return type.decode(bytes) as unknown as Decoded;
  } catch (error) {
    throw new NodeDataError(method, `the response does not decode as ${type.name}: ${message(error)}`, bytes.toString('base64'));
  }
}

/** The encoded size of the block inside a GetBlockByNumber answer (the node counts a block's size so). */
export function blockSize(answer: Answer): number | null {
  return embeddedLength(answer.bytes, 1);
}
