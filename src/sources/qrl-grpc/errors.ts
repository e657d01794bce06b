/**
 * What can go wrong talking to a QRL node: a call that failed (retryable when the node may answer
 * next time) or an answer that does not fit the messages (never retried; dead-lettered).
 */
export { message, NodeDataError } from '../node-errors.ts';

export class NodeCallError extends Error {
  constructor(
    readonly method: string,
    message: string,
    /** The gRPC status code. */
    readonly code: number,
    readonly retryable: boolean,
  ) {
    super(`${method}: ${message}`);
    this.name = 'NodeCallError';
  }
}

export function isRetryable(error: unknown): boolean {
  return error instanceof NodeCallError && error.retryable;
}
