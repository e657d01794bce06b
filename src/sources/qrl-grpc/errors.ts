/**
 * What can go wrong talking to a QRL node: a call that failed (retryable when the node may answer
 * next time) or an answer that does not fit the messages (an undecodable block: the pipeline
 * fetches it again, and stalls the chain at that height if it stays bad).
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
