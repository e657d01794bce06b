/**
 * While a chain's history is still loading into the store this process serves (the demo's first
 * start: ingest/loading.ts), every request that reads that chain is answered 503 with Retry-After
 * and how far the load is, instead of figures of a half-loaded chain. A request reads the chain its
 * path starts with (`/api/v1/pow/…`, `/api/v1/{chain}/…`), else the one its `chain` query
 * parameter names (with its default), else every chain (the cross-chain routes, search).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CHAINS, isChainId, type ChainId } from '../../chain/chains.ts';
import type { ChainLoad, LoadingChains } from '../../ingest/loading.ts';
import { problem } from '../problem.ts';
import { sendProblem } from './errors.ts';

/** Seconds a client waits before asking again: a few batches of a load. */
export const LOADING_RETRY_AFTER_SECONDS = 5;

const API_PREFIX = '/api/v1/';

/** The chains a request of the /api/v1 scope reads. */
export function chainsRead(request: FastifyRequest): readonly ChainId[] {
  const first = request.url.slice(API_PREFIX.length).split(/[/?]/, 1)[0] ?? '';
  if (isChainId(first)) return [first];
  const chain = (request.query as { chain?: unknown } | undefined)?.chain;
  return typeof chain === 'string' && isChainId(chain) ? [chain] : CHAINS;
}

/** How a loading chain's progress reads in a problem's detail: "pow: 212,000 of 535,680 blocks". */
export function describeLoad(chain: ChainId, load: ChainLoad): string {
  const blocks = (n: number) => n.toLocaleString('en-US');
  return `${chain}: ${blocks(load.height + 1)} of ${blocks(load.toHeight + 1)} blocks`;
}

/** Answers 503 every request of `app` (the /api/v1 scope) that reads a chain still loading. */
export function registerLoadingGuard(app: FastifyInstance, loading: LoadingChains): void {
  app.addHook('preHandler', async (request, reply) => {
    const loads = loading.current();
    if (loads.size === 0) return;
    const waiting = chainsRead(request).filter((chain) => loads.has(chain));
    if (waiting.length === 0) return;
    const progress = waiting.map((chain) => describeLoad(chain, loads.get(chain)!)).join('; ');
    return sendProblem(reply, problem(503, `the history of ${waiting.join(' and ')} is still loading (${progress}); retry shortly`), {
      'retry-after': String(LOADING_RETRY_AFTER_SECONDS),
      'cache-control': 'no-store',
    });
  });
}
