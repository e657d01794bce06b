/** What both node sources share about failures: an answer that does not fit, and an error's text for logs. */

/** A node answer that does not have the shape its protocol gives it: the block is undecodable (the pipeline fetches it again). */
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

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
