/**
 * The fetch step: the next item from the source. Failure policy: a block the source could not
 * decode is fetched again with backoff (`refetchBlock`), and stalls the chain there if it stays
 * bad; a source that cannot go past a height (SourceHaltError) stalls the chain at that height; a
 * block of another chain is a bug of the source (IngestError); any other error of the source ends
 * the run (the indexer's supervisor starts a new one).
 */
import { SourceHaltError, type CanonicalBlock, type SourceItem } from '../../chain/model.ts';
import { sleep } from '../sleep.ts';
import { IngestError, type RunContext } from './context.ts';
import { STOPPED, stallAt, type StallAt, type Stopped } from './stall.ts';

/** What fetching needs of the run's context. */
export type FetchContext = Pick<RunContext, 'chain' | 'source' | 'refetch' | 'log' | 'signal'>;

export type Fetched = { kind: 'block'; block: CanonicalBlock } | { kind: 'caught-up' } | { kind: 'end' } | StallAt | Stopped;

const END = { kind: 'end' } as const;

/** The next block or caught-up mark; `end` when the source has no more. */
export async function fetchItem(ctx: FetchContext, iterator: AsyncIterator<SourceItem>): Promise<Fetched> {
  let next: IteratorResult<SourceItem>;
  try {
    next = await iterator.next();
  } catch (error) {
    // The source cannot go past this height: the chain stops there, and says why.
    if (error instanceof SourceHaltError) return stallAt(error.height, error.message);
    throw error;
  }
  if (next.done) return END;
  const item: SourceItem = next.value;
  if (item.kind === 'block' && item.block.chain !== ctx.chain) throw new IngestError(`${ctx.source.name} yielded a ${item.block.chain} block to the ${ctx.chain} pipeline`);
  if (item.kind !== 'undecodable') return item;
  return refetchBlock(ctx, item);
}

/** Fetches a block that did not decode again (`ctx.refetch`); a stall at its height if it stays bad. */
export async function refetchBlock(ctx: FetchContext, bad: Extract<SourceItem, { kind: 'undecodable' }>): Promise<{ kind: 'block'; block: CanonicalBlock } | StallAt | Stopped> {
  const { refetch: policy, source } = ctx;
  let last = bad;
  for (let attempt = 1; attempt <= policy.attempts && source.blockAt; attempt++) {
    // The first re-fetch goes at once (another backend behind a load balancer may answer it), then with backoff.
    const delayMs = attempt === 1 ? 0 : Math.min(policy.maxDelayMs, policy.delayMs * 2 ** (attempt - 2));
    ctx.log?.warn({ chain: ctx.chain, height: bad.height, err: last.error, attempt, delayMs }, 'block does not decode: fetching it again');
    await sleep(delayMs, ctx.signal);
    if (ctx.signal?.aborted) return STOPPED;
    const again = await source.blockAt(bad.height);
    if (again?.kind === 'block') return { kind: 'block', block: again.block };
    if (again?.kind === 'undecodable') last = again;
  }
  return stallAt(bad.height, `block ${bad.height} does not decode: ${last.error}`, last.payload);
}
