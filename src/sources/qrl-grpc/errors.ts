/**
 * What can go wrong talking to a QRL node: a call that failed (retryable when the node may answer
 * next time) or an answer that does not fit the messages (never retried; dead-lettered).
 */

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

export class NodeDataError extends Error {
  constructor(
    readonly path: string,
    message: string,
    readonly payload?: unknown,
  ) {
    super(`${path}: ${message}`);
    this.name = 'NodeDataError';
  }
}

/** The node's chain moved between two reads of one block (retryable: the next read is consistent). */
export class ChainMovedError extends NodeCallError {
  constructor(message: string) {
    super('chain', message, 0, true);
    this.name = 'ChainMovedError';
  }
}

export function isRetryable(error: unknown): boolean {
  return error instanceof NodeCallError && error.retryable;
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
